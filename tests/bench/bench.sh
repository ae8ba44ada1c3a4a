#!/bin/sh
# make bench: what cushim costs, each figure against a baseline measured in the
# same run.  Here (fake driver, no GPU) and, where a GPU is, on the real driver.
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
B=$top_builddir
# A cross build: its programs run under the emulator (figures that only show
# that it works), and the build machine has no GPU for them.
run=${EXE_WRAPPER:-}
SHIM=$B/.libs/libcushim.so
tmp=${TMPDIR:-/tmp}/cushim-bench.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=

# ran LABEL CMD...: runs CMD; a non-zero exit (a failed run, or a benchmark's
# data check that found a mismatch) is named at the end and fails make bench.
ran() {
	r_label=$1
	shift
	"$@"
	r_rc=$?
	[ $r_rc -eq 0 ] || failed="$failed $r_label(exit $r_rc)"
}
# bench_calls ENV...: bench-calls under ENV, its header lines dropped.
bench_calls() {
	env "$@" $run "$B/tests/bench/bench-calls" $GPUFLAG >"$tmp/calls.out"
	b_rc=$?
	grep -v '^==' "$tmp/calls.out"
	return $b_rc
}

calls() { # calls LABEL ITERS ENV...: bench-calls with and without the shim
	label=$1 iters=$2; shift 2
	echo "-- $label"
	ran "bench-calls ($label)" bench_calls CUSHIM_BENCH_ITERS="$iters" CUSHIM_BENCH_MODE="$label" LD_PRELOAD="$SHIM" "$@"
}
suite() {
	echo "-- without cushim (the noise floor: by name and direct both reach the driver)"
	ran "bench-calls (plain)" bench_calls CUSHIM_BENCH_ITERS=20000000 "$@"
	calls "forwarding (CUSHIM_LOG=warn)" 20000000 "$@"
	calls "summary (CUSHIM_SUMMARY=FILE.json)" 5000000 CUSHIM_SUMMARY="$tmp/summary.json" "$@"
	calls "recording (CUSHIM_RECORD=1)" 5000000 CUSHIM_RECORD=1 "$@"
	calls "trace to a file (CUSHIM_LOG=trace)" 1000000 CUSHIM_LOG=trace CUSHIM_LOG_FILE="$tmp/trace.log" "$@"
	rm -f "$tmp/trace.log"
	calls "timeline (CUSHIM_TIMELINE=FILE.json)" 1000000 CUSHIM_TIMELINE="$tmp/timeline.json" "$@"
	rm -f "$tmp/timeline.json"
}

# on_top LIB ITERS ENV...: cushim preloaded first, LIB (a library that hooks
# the driver, as HAMi-core's libvgpu.so) after it; "direct" is LIB's own
# function, so the figure is what cushim adds on top of LIB.
on_top() {
	lib=$1 iters=$2; shift 2
	echo "-- on top of $(basename "$lib") (LD_PRELOAD=\"libcushim.so $(basename "$lib")\"; direct: what cushim forwards to)"
	ran "bench-calls (on top of $(basename "$lib"))" bench_calls CUSHIM_BENCH_ITERS="$iters" CUSHIM_BENCH_NEXT=1 \
		CUSHIM_BENCH_MODE="on top of $(basename "$lib")" LD_PRELOAD="$SHIM $lib" "$@"
}

# masq LABEL DRIVER [RUNTIMES]: masquerade (a folder whose libcuda.so.1 is
# cushim, first on LD_LIBRARY_PATH, DRIVER behind it); "direct" is the
# driver's own function, so cuDriverGetVersion's figure is what the runtime
# gate adds once it has judged, with the RUNTIMES loaded (paths).
masq() {
	label=$1 drv=$2 rts=${3:-}
	mkdir -p "$tmp/masq" && ln -sf "$SHIM" "$tmp/masq/libcuda.so.1" || return 1
	echo "-- masquerade, $label (libcushim.so as libcuda.so.1 ahead of the driver; direct: the driver's own)"
	ran "bench-calls (masquerade, $label)" bench_calls CUSHIM_BENCH_ITERS=5000000 CUSHIM_BENCH_NEXT=1 \
		CUSHIM_BENCH_VERSION=1 CUSHIM_BENCH_LOAD="$rts" CUSHIM_BENCH_MODE="masquerade, $label" \
		LD_LIBRARY_PATH="$tmp/masq:$(dirname "$drv"):$B/tests/fake/no-rt" CUSHIM_DRIVER="$drv"
}

# The lean fake driver (tests/fake/drv-lean): each export a load and a
# return, so that the figures are what cushim adds, not noise around the
# system call the test fake makes on every call.
echo "== cushim on the lean fake 13.0 driver (tests/fake/drv-lean; no GPU): added ns per call${run:+ (under $run: functional only)}"
GPUFLAG=
suite LD_LIBRARY_PATH="$B/tests/fake/drv-lean:$B/tests/fake/no-rt"
on_top "$B/tests/fake/vgpu/libfakevgpu.so" 5000000 LD_LIBRARY_PATH="$B/tests/fake/drv-lean:$B/tests/fake/no-rt"
masq "no runtime loaded" "$B/tests/fake/drv-lean/libcuda.so.1"
masq "two runtimes loaded" "$B/tests/fake/drv-lean/libcuda.so.1" \
	"$B/tests/fake/rt-12.0/libcudart.so.12 $B/tests/fake/rt-13.0/libcudart.so.13"

if $run "$B/tests/gpu/have-gpu" >/dev/null 2>&1; then
	echo "== cushim on the real driver: added ns per call"
	GPUFLAG=--gpu
	suite NCCL_NVLS_ENABLE=0
	# HAMi-core's libvgpu.so, built elsewhere (never here): CUSHIM_TEST_VGPU=PATH
	if [ -n "${CUSHIM_TEST_VGPU:-}" ] && [ -f "$CUSHIM_TEST_VGPU" ]; then
		on_top "$CUSHIM_TEST_VGPU" 2000000 NCCL_NVLS_ENABLE=0
	else
		echo "-- on top of HAMi-core: skipped (set CUSHIM_TEST_VGPU to a libvgpu.so)"
	fi
	# The suites' benchmarks check their data and exit non-zero on a mismatch.
	for sb in cufuture/cufuture-bench userbuffers/ub-bench; do
		if [ -x "$B/samples/$sb" ]; then
			ran "$sb.sh" env top_builddir="$B" top_srcdir="$top_srcdir" sh "$top_srcdir/samples/$sb.sh"
		else
			echo "== $sb not built (no nvcc)"
		fi
	done
else
	echo "== no GPU here: the real-driver, CUDA-future and Userbuffers benchmarks need one"
fi
if [ -n "$failed" ]; then
	echo "bench: FAILED:$failed"
	exit 1
fi
echo "bench: every run and data check passed"
exit 0
