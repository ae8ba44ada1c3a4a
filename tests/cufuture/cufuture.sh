#!/bin/sh
# The cufuture suite four ways: plain, under the shim, under the shim with
# CUSHIM_DRIVER_VERSION=12.0 (below cuStreamGetDevice's 12.8, so the
# library's cuStreamGetCtx fallback runs), and under the shim with
# CUSHIM_LOG=trace. The PASS/FAIL/SKIP lines must be identical each way.
. "$top_srcdir/tests/gpu/gpu-env.sh"
T="$top_builddir/tests/cufuture/cufuture-test"
[ -x "$T" ] || { echo "cufuture: $T not built (no nvcc?); skipping"; exit 77; }
[ -f "$SHIM" ] || { echo "cufuture: no shim at $SHIM"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cufuture.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

run() { # NAME CMD...: runs the suite, keeps stdout and stderr
	name=$1; shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
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
# No multicast call may reach the driver (gpu-env.sh hides cuMulticast*).
if grep -i 'cuMulticast' "$tmp/trace.err" "$tmp/shim.err" "$tmp/shim-12.0.err" >/dev/null; then
	echo "cufuture: a cuMulticast* call was logged:"
	grep -i 'cuMulticast' "$tmp/trace.err" "$tmp/shim.err" "$tmp/shim-12.0.err" | head
	fail=1
fi
# With trace logging, the asynchronous work must be seen going through the shim.
if grep -q '^cushim: .*cuLaunchKernel(' "$tmp/trace.err"; then
	for call in cuModuleLoadData cuLaunchKernel cuEventRecord cuStreamWaitEvent cuStreamCreate; do
		n=$(grep -c "^cushim: .* $call(" "$tmp/trace.err")
		echo "== trace: $call x$n"
		[ "$n" -gt 0 ] || { echo "cufuture: no $call in the trace"; fail=1; }
	done
else
	echo "== trace: CUSHIM_LOG=trace logged no calls ($(wc -l <"$tmp/trace.err") lines on stderr)"
fi
[ $fail -eq 0 ] && echo "cufuture: identical results plain, under the shim, with CUSHIM_DRIVER_VERSION=12.0 and with CUSHIM_LOG=trace"
exit $fail
