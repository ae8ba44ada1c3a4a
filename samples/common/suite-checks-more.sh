# Sourced by suite-checks-test.sh (n, fail, tmp and top_srcdir set): the other
# checks the suites and the GPU run rely on, each on crafted inputs that it
# must pass and on broken ones that it must fail:
#   sc_mc_case            the multicast decision's runs
#   sc_links_no_driver    the imports, with a fake nm, and with no nm or readelf
#   tests/bench/bench.sh  a benchmark whose data check fails
#   tools/gpu-check.sh    a part that fails

# expect_rc WANT WHAT CMD...: CMD must exit 0 (pass) or not (fail).
expect_rc() {
	e_want=$1 e_what=$2
	shift 2
	n=$((n + 1))
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$e_want" = pass ] && [ $rc -eq 0 ]; then
		echo "ok: passes $e_what"
	elif [ "$e_want" = fail ] && [ $rc -ne 0 ]; then
		echo "ok: fails $e_what: $(grep -m 1 '^check: \|FAILED' "$tmp/out")"
	else
		echo "FAIL: $e_what: exit $rc, wanted $e_want"
		sed 's/^/    /' "$tmp/out"
		fail=$((fail + 1))
	fi
}
# checks CMD...: CMD with suite-checks.sh's functions.
checks() { (. "$top_srcdir/samples/common/suite-checks.sh" && "$@"); }

# ---- sc_mc_case ----
m=$tmp/mc
# mc_good: a fallback run's output, exit status and trace.
mc_good() {
	rm -rf "$m" && mkdir -p "$m"
	for f in cuMulticastGetGranularity cuMulticastCreate cuMulticastAddDevice cuMulticastBindMem cuMulticastUnbind; do
		echo "[ub rank 0/2] multicast: $f is missing (cuGetProcAddress($f, 12000): CUDA_SUCCESS (0), status 2 VERSION_NOT_SUFFICIENT)"
		echo "cushim: 0.1 7 7 cuGetProcAddress_v2(symbol=\"$f\", pfn=0x7ffd, cudaVersion=12000, flags=0, symbolStatus=0x7ffe) = CUDA_SUCCESS 0.3 us" >>"$m/trace.7.log"
	done >"$m/out"
	echo "[ub rank 0/2] multicast: the driver offers no multicast entry points; falling back to the unicast path" >>"$m/out"
	echo "[ub rank 0/2] ok burst: 8 collectives" >>"$m/out"
	echo 'cushim: 0.2 7 7 cuMemCreate(handle=0x1, size=2097152, prop=0x2, flags=0) = CUDA_SUCCESS 3.0 us' >>"$m/trace.7.log"
	echo 0 >"$m/rc"
}
mc_good
expect_rc pass "sc_mc_case: a fallback proven by the driver's answers" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
sed -i '2s/status 2 VERSION_NOT_SUFFICIENT/status -1 none/' "$m/out"
expect_rc fail "sc_mc_case: a fallback after a lookup that failed otherwise (status -1)" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
mc_good
echo 1 >"$m/rc"
expect_rc fail "sc_mc_case: a fallback run that exited 1" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
mc_good
sed -i '/ok burst/d' "$m/out"
expect_rc fail "sc_mc_case: a fallback run with no result" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
mc_good
: >"$m/trace.7.log"
expect_rc fail "sc_mc_case: an empty trace" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
mc_good
sed -i '/symbol="cuMulticastCreate"/d' "$m/trace.7.log"
expect_rc fail "sc_mc_case: a trace without the lookup of cuMulticastCreate" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
mc_good
echo 'cushim: 0.3 7 7 cuMulticastCreate(mcHandle=0x1, prop=0x2) = CUDA_ERROR_NOT_FOUND 0.1 us' >>"$m/trace.7.log"
expect_rc fail "sc_mc_case: a cuMulticast* call in the trace" checks sc_mc_case fallback "$m/out" "$m/rc" "$m"/trace.*.log
echo 'rtroute: cannot find the driver entry point cuInit: cudaGetDriverEntryPointByVersion(cuInit, 12000) returned cudaErrorInsufficientDriver (35), status -1 [x]' >"$m/out"
echo 1 >"$m/rc"
rm -f "$m"/trace.*.log
expect_rc pass "sc_mc_case: the runtime refusing a 12.0 driver by name" checks sc_mc_case runtime "$m/out" "$m/rc"
sed -i 's/cudaErrorInsufficientDriver (35)/cudaErrorInvalidValue (1)/' "$m/out"
expect_rc fail "sc_mc_case: a run refused by cudaErrorInvalidValue" checks sc_mc_case runtime "$m/out" "$m/rc"
echo '[ub] multicast: REFUSING to run: cuMulticastGetGranularity is offered by the driver (x)' >"$m/out"
expect_rc pass "sc_mc_case: a refusal where the driver offers multicast" checks sc_mc_case offered "$m/out" "$m/rc"
echo '[ub] multicast: the driver offers no multicast entry points; falling back to the unicast path' >>"$m/out"
expect_rc fail "sc_mc_case: a run that refused and fell back" checks sc_mc_case offered "$m/out" "$m/rc"

# ---- sc_links_no_driver: a fake nm, then neither nm nor readelf ----
b=$tmp/bin
mkdir -p "$b/none"
for t in sh grep head awk sed cat; do
	ln -sf "$(command -v $t)" "$b/none/$t"
done
cp -R "$b/none" "$b/nm"
printf '#!/bin/sh\necho "                 U printf@GLIBC_2.2.5"\n[ -z "$NM_EXTRA" ] || echo "                 U $NM_EXTRA"\n' >"$b/nm/nm"
chmod +x "$b/nm/nm"
expect_rc pass "sc_links_no_driver: imports without cu*" env PATH="$b/nm" sh -c '. "$1" && sc_links_no_driver /x' sh \
	"$top_srcdir/samples/common/suite-checks.sh"
expect_rc fail "sc_links_no_driver: an import of cuInit" env NM_EXTRA=cuInit PATH="$b/nm" sh -c \
	'. "$1" && sc_links_no_driver /x' sh "$top_srcdir/samples/common/suite-checks.sh"
expect_rc fail "sc_links_no_driver: neither nm nor readelf" env PATH="$b/none" sh -c '. "$1" && sc_links_no_driver /x' sh \
	"$top_srcdir/samples/common/suite-checks.sh"

# ---- tests/bench/bench.sh on a crafted build folder that claims a GPU ----
B=$tmp/bench-build
mkdir -p "$B/tests/bench" "$B/tests/gpu" "$B/samples/cufuture" "$B/samples/userbuffers" "$B/.libs"
: >"$B/.libs/libcushim.so"
printf '#!/bin/sh\necho "== header"\necho "calls: 1 ns"\nexit ${CRAFT_CALLS_RC:-0}\n' >"$B/tests/bench/bench-calls"
printf '#!/bin/sh\necho 1\n' >"$B/tests/gpu/have-gpu"
printf '#!/bin/sh\necho "$1 metric 1 us"\nexit ${CRAFT_CF_RC:-0}\n' >"$B/samples/cufuture/cufuture-bench"
printf '#!/bin/sh\necho "ub-bench: done"\nexit ${CRAFT_UB_RC:-0}\n' >"$B/samples/userbuffers/ub-bench"
chmod +x "$B/tests/bench/bench-calls" "$B/tests/gpu/have-gpu" "$B/samples/cufuture/cufuture-bench" \
	"$B/samples/userbuffers/ub-bench"
# (the crafted programs are scripts: no emulator runs them in a cross build)
bench() { env EXE_WRAPPER= top_builddir="$B" top_srcdir="$top_srcdir" "$@" sh "$top_srcdir/tests/bench/bench.sh"; }
expect_rc pass "bench.sh: every run and data check passing" bench
expect_rc fail "bench.sh: cufuture-bench's data check failing" bench CRAFT_CF_RC=1
expect_rc fail "bench.sh: ub-bench's data check failing" bench CRAFT_UB_RC=1
expect_rc fail "bench.sh: bench-calls failing" bench CRAFT_CALLS_RC=1

# ---- tools/gpu-check.sh on crafted parts ----
G=$tmp/gpu
mkdir -p "$G/src/tests/gpu" "$G/src/tests/bench" "$G/build/.libs" "$G/bin" "$G/out"
printf 'exit 0\n' >"$G/src/tests/gpu/ok.sh"
printf 'echo broken; exit 1\n' >"$G/src/tests/gpu/bad.sh"
printf 'exit ${CRAFT_BENCH_RC:-0}\n' >"$G/src/tests/bench/bench.sh"
printf '#!/bin/sh\necho "GPU 0: crafted"\n' >"$G/bin/nvidia-smi"
cat >"$G/bin/python3" <<'PY'
#!/bin/sh
case "$*" in
*torch.randn*) echo 'matmul sum 1.0'; echo '{"calls": 3}' >"$CUSHIM_SUMMARY" ;;
*json.load*) echo 'torch-summary.json: calls 3' ;;
*tri.py*) echo "triton sum ${CRAFT_TRITON_SUM:-8390656.0}"
	echo 'cushim: 0.1 1 1 cuLaunchKernel(f=0x1) = CUDA_SUCCESS 1.0 us' >"$CUSHIM_LOG_FILE" ;;
esac
PY
chmod +x "$G/bin/nvidia-smi" "$G/bin/python3"
gpucheck() {
	(cd "$G/build" && env PATH="$G/bin:$PATH" top_srcdir="$G/src" "$@" sh "$top_srcdir/tools/gpu-check.sh" "$G/out")
}
expect_rc pass "gpu-check.sh: every part passing" gpucheck GPU_CHECK_PARTS=tests/gpu/ok
expect_rc fail "gpu-check.sh: a suite failing" gpucheck GPU_CHECK_PARTS="tests/gpu/ok tests/gpu/bad"
expect_rc fail "gpu-check.sh: make bench failing" gpucheck GPU_CHECK_PARTS=tests/gpu/ok CRAFT_BENCH_RC=1
expect_rc fail "gpu-check.sh: a wrong Triton sum" gpucheck GPU_CHECK_PARTS=tests/gpu/ok CRAFT_TRITON_SUM=8390655.0
