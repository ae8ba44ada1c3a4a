#!/bin/sh
# A program built with the 13.5 ABI and -z now (tests/table/prog135.c) on the
# fake 13.0 and 11.4 drivers: without cushim it does not load; under cushim
# each 13.1-13.5 call returns 36 and is logged once with the version that
# introduced it, the older calls reach the driver with exactly their
# arguments, cuLaunchHostFunc_v2 in the blocking mode is served by
# cuLaunchHostFunc, CUSHIM_LOG=trace decodes the new calls, and
# `cushim check` and `cushim symbols --since 13.1` know them.  A cross build
# runs the program and the command through EXE_WRAPPER (LD_PRELOAD and
# LD_LIBRARY_PATH reach the emulated program's loader).
. "$top_srcdir/tests/table/defs.sh"
prog=$top_builddir/tests/table/prog135
shim=$SHIMLIB
fake=$top_builddir/tests/fake
norte=$fake/no-rt
[ -x "$prog" ] && [ -f "$fake/drv-13.0/libcuda.so.1" ] || { echo "program: no prog135 or fake driver"; exit 99; }

LD_LIBRARY_PATH=$fake/drv-13.0:$norte $EXE_WRAPPER "$prog" >"$T/plain.out" 2>&1 && fail "it loaded without cushim"
grep -q 'undefined symbol: cu' "$T/plain.out" || fail "not refused for an undefined symbol: $(cat "$T/plain.out")"

for level in 13.0 11.4; do
	env LD_PRELOAD="$shim" LD_LIBRARY_PATH="$fake/drv-$level:$norte" CUSHIM_ADAPT=0 $EXE_WRAPPER "$prog" 0 \
		>"$T/$level.out" 2>"$T/$level.err" || fail "$level: prog135 failed: $(cat "$T/$level.out" "$T/$level.err")"
	for call in "cuLaunchHostFunc_v2 13.1" "cuGraphGetId 13.1" "cuFuncGetParamCount 13.2" "cuDevSmResourceSplit 13.1"; do
		set -- $call
		[ "$(grep -c "^$1 36$" "$T/$level.out")" -eq 2 ] || fail "$level: $1 did not return 36 twice"
		n=$(grep -c "cushim: $1 needs a CUDA $2 driver; this driver is CUDA $level (returning CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)" "$T/$level.err")
		[ "$n" -eq 1 ] || fail "$level: $1 logged $n times, not once with CUDA $2: $(cat "$T/$level.err")"
	done
	for call in cuCtxGetCurrent cuMemAlloc_v2 cuLaunchKernel; do
		grep -q "^$call 0$" "$T/$level.out" || fail "$level: $call did not succeed"
	done
done

env LD_PRELOAD="$shim" LD_LIBRARY_PATH="$fake/drv-13.0:$norte" $EXE_WRAPPER "$prog" 0 >"$T/adapt.out" 2>"$T/adapt.err" ||
	fail "adapted: $(cat "$T/adapt.out" "$T/adapt.err")"
grep -q '^cuLaunchHostFunc_v2 0$' "$T/adapt.out" || fail "cuLaunchHostFunc_v2 (blocking) not served"
grep -q 'cushim: cuLaunchHostFunc_v2 served by cuLaunchHostFunc (syncMode CU_HOST_TASK_BLOCKING (0)); this driver is CUDA 13.0' \
	"$T/adapt.err" || fail "no adapter line: $(cat "$T/adapt.err")"
env LD_PRELOAD="$shim" LD_LIBRARY_PATH="$fake/drv-13.0:$norte" $EXE_WRAPPER "$prog" 1 >"$T/spin.out" 2>"$T/spin.err" ||
	fail "spin-wait: $(cat "$T/spin.out")"
grep -q '^cuLaunchHostFunc_v2 36$' "$T/spin.out" || fail "cuLaunchHostFunc_v2 (spin-wait) served"

env LD_PRELOAD="$shim" LD_LIBRARY_PATH="$fake/drv-13.0:$norte" CUSHIM_LOG=trace CUSHIM_LOG_FILE="$T/trace" \
	$EXE_WRAPPER "$prog" 1 >"$T/trace.out" 2>&1 || fail "traced: $(cat "$T/trace.out")"
us=' = CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER [0-9]*\.[0-9]* us$'
grep -q "cuGraphGetId(hGraph=0x6a, graphId=0x[0-9a-f]*)$us" "$T/trace" || fail "cuGraphGetId not traced: $(grep cuGraph "$T/trace")"
grep -q "cuLaunchHostFunc_v2(hStream=0x5150, fn=0x[0-9a-f]*, userData=0xda7a, syncMode=1)$us" "$T/trace" ||
	fail "cuLaunchHostFunc_v2 not traced: $(grep HostFunc "$T/trace")"
grep -q "cuDevSmResourceSplit(result=NULL, nbGroups=2, input=NULL, remainder=NULL, flags=0, groupParams=NULL)$us" \
	"$T/trace" || fail "cuDevSmResourceSplit not traced"
grep -q "cuLaunchKernel(f=0xf1, gridDimX=1, .*extra=0x[0-9a-f]*) = CUDA_SUCCESS" "$T/trace" || fail "cuLaunchKernel not traced"

"$CUSHIM" check "$prog" --driver-version=13.0 >"$T/check.out" 2>&1
grep -q 'needs a CUDA 13.2 driver' "$T/check.out" || fail "cushim check: $(cat "$T/check.out")"
for f in cuGraphGetId cuFuncGetParamCount cuDevSmResourceSplit; do
	grep -q "^ *$f .* missing" "$T/check.out" || fail "cushim check does not call $f missing on 13.0"
done
grep -q '^ *cuLaunchHostFunc_v2 .*adapted' "$T/check.out" || fail "cushim check: cuLaunchHostFunc_v2 not adapted"

"$CUSHIM" symbols --since 13.1 >"$T/since.out" || fail "cushim symbols --since 13.1"
[ "$(wc -l <"$T/since.out")" -eq "$(awk -F'\t' '$1 == "fn" && $4 >= 13010' "$TABLE" | wc -l)" ] ||
	fail "cushim symbols --since 13.1 lists $(wc -l <"$T/since.out") rows"
for f in cuLaunchHostFunc_v2 cuGraphGetId cuFuncGetParamCount cuDevSmResourceSplit cuTensorMapSetAllocationClass; do
	grep -q "^$f " "$T/since.out" || fail "cushim symbols --since 13.1 lacks $f"
done
finish
