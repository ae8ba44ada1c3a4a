#!/bin/sh
# The GPU checks: every GPU test, the suites, make bench and masquerade with
# PyTorch and Triton, from a build folder made on a development machine and
# carried over (the GPU machine has no libtool or Check).  Usage: cd BUILD && sh ../tools/gpu-check.sh [OUTDIR]
out=${1:-/tmp}
export top_builddir=$PWD top_srcdir=$(cd .. && pwd) NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CUSHIM_TEST_REQUIRE_GPU=1
SHIM=$PWD/.libs/libcushim.so
echo "== machine"; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
for t in tests/gpu/core tests/gpu/fork tests/gpu/adapt tests/gpu/explain samples/cufuture/cufuture samples/userbuffers/userbuffers; do
	echo "== $t.sh"
	sh "../$t.sh" > "$out/$(basename $t).log" 2>&1
	rc=$?
	tail -n 25 "$out/$(basename $t).log"
	echo "== $t.sh: exit $rc"
done
echo "== make bench"
sh ../tests/bench/bench.sh 2>&1 | tee "$out/bench.log"
echo "== masquerade: a PyTorch matmul and a Triton kernel"
m=$(mktemp -d); ln -s "$SHIM" "$m/libcuda.so.1"
CUSHIM_SUMMARY=$out/torch-summary.json LD_LIBRARY_PATH=$m timeout 120 python3 -c "
import torch; a = torch.randn(512, 512, device='cuda'); print('matmul sum', (a @ a).float().sum().item())" 2>&1 | tail -3
cat > "$m/tri.py" <<'PY'
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, o, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B); k = i < n
    tl.store(o + i, tl.load(x + i, mask=k) + tl.load(y + i, mask=k), mask=k)
x = torch.ones(4096, device='cuda'); y = torch.ones(4096, device='cuda'); o = torch.empty_like(x)
add[(4,)](x, y, o, 4096, B=1024); torch.cuda.synchronize(); print('triton sum', o.sum().item())
PY
CUSHIM_LOG=trace CUSHIM_LOG_FILE=$out/triton-trace.log LD_LIBRARY_PATH=$m timeout 180 python3 "$m/tri.py" 2>&1 | tail -3
for f in torch-summary.json; do python3 -c "import json; d=json.load(open('$out/$f')); print('$f: calls', d['calls'], 'functions', len(d['functions']))"; done
echo "triton trace: $(grep -c ' cu' $out/triton-trace.log) lines; launches:"; grep -E ' cu(LaunchKernel|LaunchKernelEx|ModuleLoadData|LibraryLoadData)\(' "$out/triton-trace.log" | cut -c1-230 | head -8
rm -rf "$m"
