#!/bin/sh
# The flight recorder on the fake 13.0 driver (record-app.c):
# - a sticky error (FAKE_STICKY: 700, 710, 719 from cuCtxSynchronize) after
#   two named kernels on two streams: the message names both, newest first,
#   with their grids, blocks and streams, once per context; 710 says where
#   the assertion's text went; with only the summary, how to get the list;
# - a crash (SIGSEGV) under CUSHIM_RECORD=FILE: the file holds every call
#   before it, cushim trace reads it, and the program still dies by the signal;
# - a record file decodes to the same lines as the live trace;
# - 8 threads of 100,000 calls under the trace: every call is a line, or is
#   counted in the message that says how many were lost.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/timeline/record-app
for d in drv-13.0 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_CUDART \
	CUSHIM_TIMELINE CUSHIM_RECORD
export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt

# 1. Sticky errors.
for code in 700:CUDA_ERROR_ILLEGAL_ADDRESS 710:CUDA_ERROR_ASSERT 719:CUDA_ERROR_LAUNCH_FAILED; do
	n=${code%%:*} ename=${code#*:}
	FAKE_STICKY=$n CUSHIM_RECORD=1 LD_PRELOAD=$SHIMLIB run_cmd "sticky$n" $EXE_WRAPPER "$app" sticky
	expect_rc "sticky$n" 0
	grep -q "^sync $n $n\$" "$T/sticky$n.out" || fail "sticky $n: $(cat "$T/sticky$n.out")"
	[ "$(grep -c "cuCtxSynchronize returned $ename ($n" "$T/sticky$n.err")" -eq 1 ] ||
		fail "sticky $n: not said once: $(cat "$T/sticky$n.err")"
	grep -q "newest first: 1\. write_wild grid (1,1,1) block (32,1,1) shared 64 B stream 0x52, thread [0-9]*, [0-9.]* [mu]s before; 2\. saxpy(int, float, float\*, float\*) grid (4,1,1) block (256,1,1) shared 0 B stream 0x51, thread " "$T/sticky$n.err" ||
		fail "sticky $n: the kernels in flight are not named, newest first: $(cat "$T/sticky$n.err")"
done
grep -q "The device printed the failed assertion's text on the program's standard output" "$T/sticky710.err" ||
	fail "710: no word of the assertion's text: $(cat "$T/sticky710.err")"
FAKE_STICKY=700 CUSHIM_SUMMARY=1 LD_PRELOAD=$SHIMLIB run_cmd norec $EXE_WRAPPER "$app" sticky
grep -q "Which kernels were in flight is not recorded: run the program under cushim run --record" "$T/norec.err" ||
	fail "without the recorder: $(cat "$T/norec.err")"

# 2. A crash: the records reach the file, and the program dies by its signal.
CUSHIM_RECORD=$T/crash.rec LD_PRELOAD=$SHIMLIB run_cmd crash $EXE_WRAPPER "$app" crash
[ "$rc" -eq 139 ] || fail "crash: exit status $rc, wanted 139 (SIGSEGV)"
run_cmd crashed "$CUSHIM" trace "$T/crash.rec"
expect_rc crashed 0
for f in cuInit cuCtxGetCurrent cuDeviceGet 'cuModuleGetFunction(.*name="before_the_crash")'; do
	grep -q " $f" "$T/crashed.out" || fail "crash: no $f in the decoded file: $(cat "$T/crashed.out")"
done

# 3. The record file decodes to the live trace's lines.
CUSHIM_RECORD=$T/plain.rec CUSHIM_LOG=trace CUSHIM_LOG_FILE=$T/live.log LD_PRELOAD=$SHIMLIB run_cmd plain $EXE_WRAPPER "$app"
expect_rc plain 0
run_cmd decoded "$CUSHIM" trace "$T/plain.rec"
expect_rc decoded 0
grep '^cushim: [0-9]' "$T/live.log" | sort >"$T/live.lines"
sort "$T/decoded.out" >"$T/decoded.lines"
[ -s "$T/live.lines" ] && cmp -s "$T/live.lines" "$T/decoded.lines" ||
	fail "decoded differs from the live trace: $(diff "$T/live.lines" "$T/decoded.lines" | head -5)"
grep -q 'name="a \\"quoted\\"\\tname"' "$T/decoded.out" || fail "the string argument: $(cat "$T/decoded.out")"
printf 'not a record\n' >"$T/bad.rec"
run_cmd bad "$CUSHIM" trace "$T/bad.rec"
expect_rc bad 2
grep -q "not a cushim record file" "$T/bad.err" || fail "a bad file: $(cat "$T/bad.err")"

# 4. 8 threads x 100,000 calls: each a line, or counted as lost.
CUSHIM_LOG=trace CUSHIM_LOG_FILE=$T/threads.log LD_PRELOAD=$SHIMLIB run_cmd threads $EXE_WRAPPER "$app" threads
expect_rc threads 0
lines=$(grep -c ' cuCtxGetCurrent(' "$T/threads.log")
lost=$(sed -n 's/.*cushim: \([0-9]*\) calls* \(is\|are\) not in the trace.*/\1/p' "$T/threads.log" "$T/threads.err" | head -n 1)
echo "threads: $lines lines, ${lost:-0} counted as lost, of 800000"
[ $((lines + ${lost:-0})) -eq 800000 ] || fail "threads: $lines lines and ${lost:-0} lost, of 800000 calls"
finish
