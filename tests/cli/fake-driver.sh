#!/bin/sh
# Against the fake drivers of tests/fake: cushim run rescues a program built
# for CUDA 13.0 on an 11.4 driver; cushim check without --driver-version asks
# the driver here; cushim doctor tells what the shim finds.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
for d in drv-11.4 drv-12.0 drv-13.0 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
prog=$top_builddir/tests/cli/cuda13-app
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER CUSHIM_CUDART
# the plain missing-symbol path: the downgrade adapters are tested in check-imports.sh
export CUSHIM_ADAPT=0
# no-rt: no CUDA runtime can load, whatever this machine has installed.
on() { LD_LIBRARY_PATH=$fake/$1:$fake/no-rt; export LD_LIBRARY_PATH; }

# The imports newer than 11.4 and 12.0, by nm and the oracle.
newer_than() {
	for n in $(nm -D --undefined-only "$prog" | awk '$NF ~ /^cu[A-Z]/ { print $NF }'); do
		echo "$n $(oracle_version "$n")"
	done | awk -v lim="$1" '{ split($2, a, "."); if (a[1] * 1000 + a[2] * 10 > lim) print $1 }' | sort
}
newer114=$(newer_than 11040)
[ -n "$newer114" ] || { echo "the test program imports nothing newer than 11.4" >&2; exit 99; }

# 1. The rescue: alone the program cannot even start on 11.4; under cushim
#    it runs, and only the newer functions answer 36.
on drv-11.4
run_cmd direct $EXE_WRAPPER "$prog"
[ "$rc" -ne 0 ] && grep -q "undefined symbol" "$T/direct.err" ||
	{ echo "newer-app starts on the fake 11.4 driver without cushim: is the fake 11.4-level?" >&2; exit 99; }
run_cmd rescue "$CUSHIM" run -- $EXE_WRAPPER "$prog"
expect_rc rescue 1
for want in "cuInit: 0" "driver: 11040" "cuMemAlloc: 0" "cuCtxCreate: 36" "cuMemcpyBatchAsync: 36"; do
	grep -qxF "$want" "$T/rescue.out" || fail "rescued program: no '$want' in $(cat "$T/rescue.out")"
done

# 2. check asks the driver here.
run_cmd here114 "$CUSHIM" check "$prog"
expect_rc here114 1
got=$(awk '$1 ~ /^cu/ && $3 == "missing" { print $1 }' "$T/here114.out" | sort)
[ "$got" = "$newer114" ] || fail "on 11.4, check marks [$(echo $got)] missing, wanted [$(echo $newer114)]"
grep -q "the driver here (CUDA 11.4) lacks" "$T/here114.out" || fail "check does not name the driver here"
on drv-13.0
run_cmd here130 "$CUSHIM" check "$prog"
expect_rc here130 0
grep -q "the driver here (CUDA 13.0) provides all" "$T/here130.out" || fail "on 13.0, check does not pass: $(cat "$T/here130.out")"
# Emulation is what a process would see, so check sees it too.
CUSHIM_DRIVER_VERSION=12.0 run_cmd emul "$CUSHIM" check "$prog"
expect_rc emul 1
got=$(awk '$1 ~ /^cu/ && $3 == "missing" { print $1 }' "$T/emul.out" | sort)
[ "$got" = "$(newer_than 12000)" ] || fail "with CUSHIM_DRIVER_VERSION=12.0, check marks [$(echo $got)] missing"

# 3. doctor: the driver, its version, and a missing list that adds up.
on drv-12.0
LD_LIBRARY_PATH=$fake/drv-12.0:$fake/rt-12.0:$fake/no-rt run_cmd doc12 "$CUSHIM" doctor
expect_rc doc12 0
grep -q "^driver: *libcuda.so.1: $fake/drv-12.0/libcuda.so.1" "$T/doc12.out" || fail "doctor does not find the fake 12.0 driver"
grep -q "driver CUDA 12.0" "$T/doc12.out" || fail "doctor does not say CUDA 12.0"
# which path serves before the program's cuInit, and after it
grep -q "^bootstrap: *before cuInit: $fake/drv-12.0/libcuda.so.1 through the driver's cuGetProcAddress_v2 ([0-9]* by the driver's cuGetProcAddress)" \
	"$T/doc12.out" || fail "doctor does not say the driver serves before cuInit: $(cat "$T/doc12.out")"
grep -q "^ *after cuInit: $fake/rt-12.0/libcudart.so.12 through cudaGetDriverEntryPoint (cuGetProcAddress_v2) ([0-9]* by the runtime)" \
	"$T/doc12.out" || fail "doctor does not say the runtime serves after cuInit: $(cat "$T/doc12.out")"
nmiss=$(sed -n 's/^exports: *[0-9]* of [0-9]* resolved, [0-9]* served by adapters, \([0-9]*\) missing$/\1/p' "$T/doc12.out")
[ -n "$nmiss" ] && [ "$nmiss" -gt 0 ] || fail "doctor gives no missing count on 12.0"
sed -n '/^missing:/,/^settings:/p' "$T/doc12.out" | sed '$d' | sed 's/^missing://' | awk '{ print $1 }' >"$T/doc12.missing"
[ "$(wc -l <"$T/doc12.missing")" -eq "${nmiss:-0}" ] || fail "doctor lists $(wc -l <"$T/doc12.missing") missing exports but counts $nmiss"
while read -r n; do
	v=$(oracle_version "$n")
	[ -z "$v" ] && continue # the real driver never had it either
	case $v in 1[01].* | 12.0) fail "doctor calls $n (CUDA $v) missing on a 12.0 driver" ;; esac
done <"$T/doc12.missing"
grep -q "CUSHIM_LOG unset" "$T/doc12.out" || fail "doctor does not list the unset CUSHIM_LOG"
# Settings in effect, a bad one, and a typo.
on drv-13.0
CUSHIM_DRIVER_VERSION=12.0 CUSHIM_HIDE='cuMulticast*' run_cmd docemul "$CUSHIM" doctor
expect_rc docemul 0
grep -q "seen as CUDA 12.0" "$T/docemul.out" || fail "doctor does not show the emulated version"
grep -q "CUSHIM_HIDE=cuMulticast\*" "$T/docemul.out" || fail "doctor does not show CUSHIM_HIDE"
CUSHIM_LOG=loud CUSHIM_LOGG=1 run_cmd docbad "$CUSHIM" doctor
expect_rc docbad 1
grep -q "CUSHIM_LOG=loud: not off, warn, info, errors or trace: warn is used" "$T/docbad.out" || fail "doctor does not flag CUSHIM_LOG=loud"
grep -q "CUSHIM_LOGG is not a cushim variable" "$T/docbad.out" || fail "doctor does not flag CUSHIM_LOGG"
# Each variable the library reads, set (CUSHIM_ADAPT=0 say), is shown as a
# setting, never taken for a typo: doctor judges with the library's table.
vars=$(source_variables)
[ "$(echo "$vars" | wc -w)" -ge 9 ] || fail "found too few variables in src/: $vars"
for v in $vars; do
	run_cmd docset env "$v=0" "$CUSHIM" doctor
	grep -q "$v is not a cushim variable" "$T/docset.out" && fail "doctor takes $v=0 for a typo"
	grep -q "^\(settings: \)\{0,1\} *$v=0" "$T/docset.out" || fail "doctor does not show $v=0: $(grep "$v" "$T/docset.out")"
done
# No driver at all (unless this machine has a real one in its loader cache).
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	LD_LIBRARY_PATH=$fake/no-rt run_cmd docnone "$CUSHIM" doctor
	expect_rc docnone 1
	grep -q "no CUDA runtime and no driver usable" "$T/docnone.out" || fail "doctor without a driver: $(cat "$T/docnone.out")"
	grep -q "^masquerade: *would find no real driver" "$T/docnone.out" || fail "doctor without a driver: masquerade line"
fi
finish
