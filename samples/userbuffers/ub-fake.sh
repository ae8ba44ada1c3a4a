#!/bin/sh
# The seed's multicast decision without a GPU: ub-test-mc (runtime route) and
# ub-test-mc-drv (the driver's cuGetProcAddress) run --mc-probe on the fake
# 13.0 driver (tests/fake), which offers the multicast entry points, judged by
# sc_mc_case (samples/common/suite-checks.sh): hidden by cushim or above an
# emulated 12.0 driver, the driver's answers (status SYMBOL_NOT_FOUND or
# VERSION_NOT_SUFFICIENT) prove them missing and the programs fall back; where
# the driver offers them, or a lookup fails otherwise, they refuse; the 13.0
# runtime refuses an emulated 12.0 driver by name. No cuMulticast* call is
# made. Then the ranks' placement on two GPUs (ub-test --mode place) on the
# fake driver's two devices (FAKE_DEVICES=2): rank r on GPU r / ceil(n/2), and
# every rank asks cuDeviceCanAccessPeer of the other device; with one device
# a two-GPU job skips. Exit 77 when the programs were not built (no nvcc).
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/samples/common/suite-checks.sh"
U="$top_builddir/samples/userbuffers"
F="$top_builddir/tests/fake"
SHIM="$top_builddir/.libs/libcushim.so"
[ -x "$U/ub-test-mc" ] && [ -x "$U/ub-test-mc-drv" ] || { echo "ub-fake: ub-test-mc not built (no nvcc); skipping"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ub-fake.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# probe NAME WANT HOW PROGRAM ENV...: PROGRAM --mc-probe on the fake driver
# (and, for rt, the fake runtime), HOW: shim (preloaded, traced), masq
# (`cushim run --masquerade`, traced) or plain; judged by sc_mc_case WANT.
probe() {
	p_name=$1 p_want=$2 p_how=$3 p_prog=$U/$4
	shift 4
	set -- env LD_LIBRARY_PATH="$F/rt-13.0:$F/drv-13.0" CUSHIM_LOG=trace \
		CUSHIM_LOG_FILE="$tmp/trace.$p_name.%p.log" "$@"
	case $p_how in
	shim) "$@" LD_PRELOAD="$SHIM" "$p_prog" --mc-probe ;;
	masq) "$@" "$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$p_prog" --mc-probe ;;
	*) "$@" "$p_prog" --mc-probe ;;
	esac >"$tmp/$p_name.out" 2>&1
	echo $? >"$tmp/$p_name.rc"
	sed "s/^/    [$p_name] /" "$tmp/$p_name.out"
	if sc_mc_case "$p_want" "$tmp/$p_name.out" "$tmp/$p_name.rc" "$tmp"/trace."$p_name".*.log; then
		echo "ok: $p_name ($p_want)"
	else
		echo "FAIL: $p_name: not $p_want"
		fail=1
	fi
}
probe hidden.drv probe-fallback shim ub-test-mc-drv CUSHIM_HIDE='cuMulticast*'
probe hidden.rt probe-fallback masq ub-test-mc CUSHIM_HIDE='cuMulticast*'
probe emulated.drv probe-fallback shim ub-test-mc-drv CUSHIM_HIDE= CUSHIM_DRIVER_VERSION=12.0
probe emulated.rt runtime masq ub-test-mc CUSHIM_HIDE= CUSHIM_DRIVER_VERSION=12.0
probe offered.drv offered shim ub-test-mc-drv CUSHIM_HIDE=
probe offered.rt offered masq ub-test-mc CUSHIM_HIDE=
probe offered.plain offered plain ub-test-mc-drv
# A lookup that fails otherwise (the driver answers INVALID_VALUE) proves nothing.
probe invalid.plain lookup-failed plain ub-test-mc-drv FAKE_GPA=invalid

# place NAME DEVICES WANT_RC ARGS...: ub-test --mode place under the traced
# shim on the fake driver with DEVICES devices; output in $tmp/NAME.out.
place() {
	p_name=$1 p_n=$2 p_rc=$3
	shift 3
	env FAKE_DEVICES="$p_n" LD_LIBRARY_PATH="$F/drv-13.0" LD_PRELOAD="$SHIM" CUSHIM_LOG=trace \
		CUSHIM_LOG_FILE="$tmp/trace.$p_name.%p.log" "$U/ub-test" --mode place "$@" >"$tmp/$p_name.out" 2>&1
	rc=$?
	sed "s/^/    [$p_name] /" "$tmp/$p_name.out"
	[ $rc -eq "$p_rc" ] || { echo "FAIL: $p_name: exit $rc, wanted $p_rc"; fail=1; return 1; }
}
if place place.n4.g2 2 0 --ranks 4 --gpus 2; then
	for r in 0 1 2 3; do
		grep -q "^\[ub rank $r/4\] ok place: rank $r of 4 on device $((r / 2)) of 2," "$tmp/place.n4.g2.out" ||
			{ echo "FAIL: place.n4.g2: rank $r is not on device $((r / 2))"; fail=1; }
	done
	peers=$(cat "$tmp"/trace.place.n4.g2.*.log | grep -c '^cushim: .* cuDeviceCanAccessPeer(')
	echo "place.n4.g2: cuDeviceCanAccessPeer called $peers times"
	[ "$peers" -eq 4 ] || { echo "FAIL: place.n4.g2: $peers peer checks, wanted one per rank"; fail=1; }
fi
if place place.n2.g1 2 0 --ranks 2 --gpus 1; then
	grep -q '^\[ub rank 1/2\] ok place: rank 1 of 2 on device 0 of 1,' "$tmp/place.n2.g1.out" ||
		{ echo "FAIL: place.n2.g1: rank 1 is not on device 0"; fail=1; }
	! cat "$tmp"/trace.place.n2.g1.*.log | grep -q 'cuDeviceCanAccessPeer(' ||
		{ echo "FAIL: place.n2.g1: a peer check with one GPU"; fail=1; }
fi
place place.one-device 1 77 --ranks 2 --gpus 2 && grep -q 'needs 2 GPUs and 1 is here; skipping' "$tmp/place.one-device.out" ||
	{ echo "FAIL: place.one-device: a two-GPU job on one device did not skip"; fail=1; }
# The runtime route's two-GPU function, counted by the summaries (sc_counts):
# called where the job spans two devices, not where it has one.
for g in 2 1; do
	env FAKE_DEVICES=2 LD_LIBRARY_PATH="$F/rt-13.0:$F/drv-13.0" CUSHIM_SUMMARY="$tmp/sum.g$g.%p.json" \
		"$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$U/ub-test-rt" --mode place --ranks 2 \
		--gpus $g >"$tmp/rt-place.g$g.out" 2>&1 || { echo "FAIL: rt-place.g$g: exit $?"; fail=1; }
	sc_counts "$tmp/counts.g$g" "$tmp"/sum.g$g.*.json || fail=1
	peers=$(awk '$1 == "cuDeviceCanAccessPeer" { print $2 }' "$tmp/counts.g$g")
	echo "rt-place.g$g: cuDeviceCanAccessPeer called ${peers:-0} times on the runtime route"
	want=0
	[ $g -eq 2 ] && want=2
	if [ "${peers:-0}" -ne $want ]; then
		echo "FAIL: rt-place.g$g: ${peers:-no} peer checks, wanted $want"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "ub-fake: every case as wanted"
exit $fail
