# The start that the sample suites' scripts share (samples/cufuture/cufuture.sh,
# samples/userbuffers/userbuffers.sh): sourced once top_builddir and top_srcdir
# are set, it brings in the runtime-route checks (suite-checks.sh) and
# sc_suite_begin.

. "$top_srcdir/samples/common/suite-checks.sh"

# sc_suite_begin NAME HEADER PROGRAM: with SUITE_CHECK_DIR set, only the
# runtime-route checks (sc_rt_checks, HEADER's functions) of the outputs in
# that folder, then exit 0 or 1.  Otherwise the GPU tests' environment
# (tests/gpu/gpu-env.sh: skips without a GPU; sets SHIM and NGPUS), then exit
# 77 when PROGRAM was not built (no nvcc) and 1 when the shim is missing.
sc_suite_begin() {
	if [ -n "$SUITE_CHECK_DIR" ]; then
		sc_rt_checks "$SUITE_CHECK_DIR" "$2" "${NGPUS:-1}" && exit 0
		exit 1
	fi
	. "$top_srcdir/tests/gpu/gpu-env.sh"
	if [ ! -x "$3" ]; then
		echo "$1: $3 not built (configure found no nvcc); skipping"
		exit 77
	fi
	if [ ! -f "$SHIM" ]; then
		echo "$1: FAIL: no shim at $SHIM"
		exit 1
	fi
}
