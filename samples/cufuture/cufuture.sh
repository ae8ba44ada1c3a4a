#!/bin/sh
# The cufuture suite four ways: plain, under the shim, under the shim with
# CUSHIM_DRIVER_VERSION=12.0 (below cuStreamGetDevice's 12.8, so the
# library's cuStreamGetCtx fallback runs), and under the shim with
# CUSHIM_LOG=trace. The PASS/FAIL/SKIP lines must be identical each way.
# Then the runtime route (cufuture-test-rt, every driver call through
# cudaGetDriverEntryPointByVersion): plain, under `cushim run --masquerade`,
# masquerade with CUSHIM_DRIVER_VERSION=12.0 and masquerade with trace; the
# checks of samples/common/suite-checks.sh (sc_rt_checks) judge those runs.
# SUITE_CHECK_DIR=DIR runs only those checks, on the outputs in DIR.
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/samples/common/suite-env.sh"
T="$top_builddir/samples/cufuture/cufuture-test"
sc_suite_begin cufuture "$top_srcdir/samples/cufuture/cufuture-rtroute.h" "$T"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cufuture.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

run() { # NAME CMD...: runs the suite, keeps stdout and stderr
	name=$1; shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	echo $rc >"$tmp/$name.rc"
	echo "== $name: exit $rc"
	cat "$tmp/$name.out"
	grep -v '^#' "$tmp/$name.out" >"$tmp/$name.res"
	if [ $rc -ne 0 ]; then
		echo "cufuture: the $name run failed (exit $rc); its stderr:"
		tail -n 40 "$tmp/$name.err"
		fail=1
	fi
}

run plain "$T"
run shim run_shimmed "$T"
run shim-12.0 env CUSHIM_DRIVER_VERSION=12.0 LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$T"
run trace env CUSHIM_LOG=trace LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$T"

for name in shim shim-12.0 trace; do
	if ! cmp -s "$tmp/plain.res" "$tmp/$name.res"; then
		echo "cufuture: the $name results differ from the plain run's:"
		diff "$tmp/plain.res" "$tmp/$name.res"
		fail=1
	fi
done
[ -s "$tmp/plain.res" ] || { echo "cufuture: no results"; fail=1; }
# The emulated 12.0 driver must have sent the library down its fallback.
if ! grep -q '^# optional call: cuStreamGetCtx+cuCtxGetDevice (fallback' "$tmp/shim-12.0.out"; then
	echo "cufuture: under CUSHIM_DRIVER_VERSION=12.0 the fallback did not run:"
	grep '^# optional call' "$tmp/shim-12.0.out"
	fail=1
fi
# The traced run's stderr is its trace: it must show driver calls, the
# asynchronous work among them, and no cuMulticast* call (gpu-env.sh hides them).
if sc_trace_calls "$tmp/trace-calls" "$tmp/trace.err" && sc_no_multicast "$tmp/trace-calls"; then
	for call in cuModuleLoadData cuLaunchKernel cuEventRecord cuStreamWaitEvent cuStreamCreate; do
		n=$(awk -v c="$call" '$1 == c { print $2 }' "$tmp/trace-calls")
		echo "== trace: $call x${n:-0}"
		[ "${n:-0}" -gt 0 ] || { echo "cufuture: no $call in the trace"; fail=1; }
	done
else
	fail=1
fi
if grep -i 'cuMulticast' "$tmp/shim.err" "$tmp/shim-12.0.err" >/dev/null; then
	echo "cufuture: a cuMulticast* call was logged:"
	grep -i 'cuMulticast' "$tmp/shim.err" "$tmp/shim-12.0.err" | head
	fail=1
fi
[ $fail -eq 0 ] && echo "cufuture: identical results plain, under the shim, with CUSHIM_DRIVER_VERSION=12.0 and with CUSHIM_LOG=trace"

# ---- the runtime route ----
RT="$top_builddir/samples/cufuture/cufuture-test-rt"
[ -x "$RT" ] || { echo "cufuture: $RT not built"; exit 1; }
sc_rt_begin "$tmp"
for r in rt-plain rt-masq rt-masq-12.0 rt-masq-trace; do
	sc_rt_run "$tmp" "$r" all "$RT"
	echo "== $r: exit $(cat "$tmp/$r.rc")"
	cat "$tmp/$r.out"
	[ "$(cat "$tmp/$r.rc")" = 0 ] || tail -n 20 "$tmp/$r.err"
	grep -v '^#' "$tmp/$r.out" >"$tmp/$r.res"
done
for name in rt-plain rt-masq rt-masq-trace; do
	[ "$(cat "$tmp/$name.rc")" = 0 ] || fail=1
done
grep -q '^# driver calls through the runtime: cudaGetDriverEntryPointByVersion' "$tmp/rt-plain.out" ||
	{ echo "cufuture: the runtime-route build did not say which runtime it used"; fail=1; }
cmp -s "$tmp/plain.res" "$tmp/rt-plain.res" ||
	{ echo "cufuture: the runtime route's results differ from the linked build's"; fail=1; }
sc_links_no_driver "$RT" || fail=1
if sc_rt_checks "$tmp" "$top_srcdir/samples/cufuture/cufuture-rtroute.h" "$NGPUS"; then
	echo "cufuture: runtime route: identical results plain, masquerade and traced; masquerade with 12.0" \
		"identical or refused by the runtime by name; equal per-function counts traced and untraced;" \
		"no cuMulticast call"
else
	fail=1
fi
sed 's/^/    /' "$tmp/counts-masq"
exit $fail
