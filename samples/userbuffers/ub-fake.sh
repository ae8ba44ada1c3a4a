#!/bin/sh
# The seed's multicast decision without a GPU: ub-test-mc (runtime route) and
# ub-test-mc-drv (the driver's cuGetProcAddress) run --mc-probe on the fake
# 13.0 driver (tests/fake), which offers the multicast entry points, judged by
# sc_mc_case (samples/common/suite-checks.sh): hidden by cushim or above an
# emulated 12.0 driver, the driver's answers (status SYMBOL_NOT_FOUND or
# VERSION_NOT_SUFFICIENT) prove them missing and the programs fall back; where
# the driver offers them, or a lookup fails otherwise, they refuse; the 13.0
# runtime refuses an emulated 12.0 driver by name. No cuMulticast* call is
# made. Exit 77 when the programs were not built (no nvcc).
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
exit $fail
