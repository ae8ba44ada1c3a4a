#!/bin/sh
# The GPU checks: every GPU test, the suites, make bench and masquerade with
# PyTorch and Triton, from a build folder made on a development machine and
# carried over (the GPU machine has no libtool or Check).
# Usage: cd BUILD && sh ../tools/gpu-check.sh [OUTDIR]
# Exits 0 only when every part passed; else 1, naming the parts that failed.
# GPU_CHECK_PARTS (default: all of them) names the scripts to run, relative to
# the source folder, without .sh.
out=${1:-/tmp}
export top_builddir=$PWD top_srcdir="${top_srcdir:-$(cd .. && pwd)}" NCCL_NVLS_ENABLE=0 \
	TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CUSHIM_TEST_REQUIRE_GPU=1
SHIM=$PWD/.libs/libcushim.so
failed=
# part NAME RC: one part's result; a non-zero RC fails the whole check.
part() {
	echo "== $1: exit $2"
	[ "$2" -eq 0 ] || failed="$failed $1"
}
echo "== machine"
nvidia-smi -L && nvidia-smi --query-gpu=driver_version --format=csv,noheader
part nvidia-smi $?
for t in ${GPU_CHECK_PARTS:-tests/gpu/core tests/gpu/fork tests/gpu/adapt tests/gpu/emulation tests/gpu/coexist tests/gpu/procs tests/gpu/explain tests/gpu/explain-start tests/gpu/sticky tests/gpu/check-env tests/gpu/check-truth
	samples/cufuture/cufuture
	samples/userbuffers/userbuffers}; do
	echo "== $t.sh"
	sh "$top_srcdir/$t.sh" >"$out/$(basename "$t").log" 2>&1
	rc=$?
	tail -n 25 "$out/$(basename "$t").log"
	part "$t.sh" $rc
done
echo "== make bench"
sh "$top_srcdir/tests/bench/bench.sh" >"$out/bench.log" 2>&1
rc=$?
cat "$out/bench.log"
part bench.sh $rc

echo "== masquerade: a PyTorch matmul and a Triton kernel"
m=$(mktemp -d) || exit 1
ln -s "$SHIM" "$m/libcuda.so.1"
CUSHIM_SUMMARY=$out/torch-summary.json LD_LIBRARY_PATH=$m timeout 120 python3 -c "
import torch; a = torch.randn(512, 512, device='cuda'); print('matmul sum', (a @ a).float().sum().item())" \
	>"$out/torch.log" 2>&1
rc=$?
tail -n 3 "$out/torch.log"
[ $rc -eq 0 ] && grep -q '^matmul sum ' "$out/torch.log" || rc=1
python3 -c "import json; d=json.load(open('$out/torch-summary.json')); print('torch-summary.json: calls', d['calls'], 'functions', len(d['functions'])); assert d['calls'] > 0" || rc=1
part masquerade.torch $rc
cat > "$m/tri.py" <<'PY'
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, o, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B); k = i < n
    tl.store(o + i, tl.load(x + i, mask=k) + tl.load(y + i, mask=k), mask=k)
x = torch.arange(4096, device='cuda', dtype=torch.float32); y = torch.ones(4096, device='cuda'); o = torch.empty_like(x)
add[(4,)](x, y, o, 4096, B=1024); torch.cuda.synchronize()
assert torch.equal(o, x + 1), "the Triton kernel's sums are wrong"
print('triton sum', o.sum().item())
PY
CUSHIM_LOG=trace CUSHIM_LOG_FILE=$out/triton-trace.log LD_LIBRARY_PATH=$m timeout 180 python3 "$m/tri.py" \
	>"$out/triton.log" 2>&1
rc=$?
tail -n 3 "$out/triton.log"
[ $rc -eq 0 ] && grep -q '^triton sum 8390656.0$' "$out/triton.log" || rc=1
echo "triton trace: $(grep -c ' cu' "$out/triton-trace.log" 2>/dev/null) lines; launches:"
grep -E ' cu(LaunchKernel|LaunchKernelEx|ModuleLoadData|LibraryLoadData)\(' "$out/triton-trace.log" 2>/dev/null |
	cut -c1-230 | head -8
grep -qE ' cu(LaunchKernel|LaunchKernelEx)\(' "$out/triton-trace.log" 2>/dev/null || {
	echo "triton: the trace shows no kernel launch"
	rc=1
}
part masquerade.triton $rc
rm -rf "$m"
if [ -n "$failed" ]; then
	echo "gpu-check: FAILED:$failed"
	exit 1
fi
echo "gpu-check: every part passed"
exit 0
