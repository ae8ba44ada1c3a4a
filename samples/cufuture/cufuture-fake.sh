#!/bin/sh
# The cufuture suite's two-device logic without a GPU: two_device_restore (a
# value on cuda:1 completed with cuda:0 current; the callbacks' device, fresh
# streams and the caller's restored device) on the fake driver's two devices
# (tests/fake, FAKE_DEVICES=2): linked, under the shim, and on the runtime
# route under `cushim run --masquerade` with the fake runtime. With one
# device the test must say it skips. Exit 77 when the suite was not built (no
# nvcc).
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
T="$top_builddir/samples/cufuture/cufuture-test"
F="$top_builddir/tests/fake"
SHIM="$top_builddir/.libs/libcushim.so"
[ -x "$T" ] || { echo "cufuture-fake: $T not built (no nvcc); skipping"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cufuture-fake.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# case NAME WANT DEVICES CMD...: runs CMD on the fake with DEVICES devices;
# its output must hold the line WANT and it must exit 0.
case_() {
	c_name=$1 c_want=$2 c_n=$3
	shift 3
	env FAKE_DEVICES="$c_n" CUSHIM_HIDE='cuMulticast*' "$@" two_device_restore >"$tmp/$c_name.out" 2>&1
	c_rc=$?
	sed "s/^/    [$c_name] /" "$tmp/$c_name.out"
	if [ $c_rc -eq 0 ] && grep -qx "$c_want" "$tmp/$c_name.out"; then
		echo "ok: $c_name"
	else
		echo "FAIL: $c_name: exit $c_rc, or no line '$c_want'"
		fail=1
	fi
}
L="LD_LIBRARY_PATH=$F/drv-13.0"
case_ linked "PASS two_device_restore" 2 "$L" "$T"
case_ shim "PASS two_device_restore" 2 "$L" LD_PRELOAD="$SHIM" "$T"
case_ one-device "SKIP two_device_restore: needs 2 GPUs (1 here)" 1 "$L" "$T"
case_ runtime-route "PASS two_device_restore" 2 LD_LIBRARY_PATH="$F/rt-13.0:$F/drv-13.0" \
	"$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$T-rt"
exit $fail
