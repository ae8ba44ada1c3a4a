#!/bin/sh
# What we run on the GPU machine to prove cushim there, from a build folder
# made on a development machine and carried over (the GPU machine has no
# libtool or Check).  Usage: cd BUILD && sh ../tools/gpu-session.sh [OUTDIR]
# Prints everything; writes traces and summaries to OUTDIR (default /tmp).
out=${1:-/tmp}
export top_builddir=$PWD top_srcdir=$(cd .. && pwd) NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
SHIM=$PWD/.libs/libcushim.so
echo "== machine"; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
ldconfig -p | grep -E 'libcuda\.so|libcudart\.so' | head
echo "== core (issue 2): every export, and a real program with and without the shim"
CUSHIM_TEST_REQUIRE_GPU=1 sh ../tests/gpu/core.sh; echo "core.sh exit $?"
echo "== bootstrap story"; CUSHIM_LOG=info LD_PRELOAD=$SHIM ./tests/gpu/saxpy
echo "== bench: without, with, summary mode, trace to a file"
./tests/bench/bench-calls --gpu
LD_PRELOAD=$SHIM ./tests/bench/bench-calls --gpu
CUSHIM_BENCH_MODE=summary CUSHIM_SUMMARY=$out/bench-summary.json LD_PRELOAD=$SHIM ./tests/bench/bench-calls --gpu
CUSHIM_BENCH_MODE=trace-to-file CUSHIM_LOG=trace CUSHIM_LOG_FILE=$out/bench-trace.log LD_PRELOAD=$SHIM ./tests/bench/bench-calls --gpu
ls -la $out/bench-trace.log; rm -f $out/bench-trace.log
echo "== emulation of 12.0 and a hidden export"
CUSHIM_DRIVER_VERSION=12.0 CUSHIM_HIDE='cuMulticast*' CUSHIM_LOG=info LD_PRELOAD=$SHIM ./tests/gpu/saxpy
echo "== masquerade"
m=$(mktemp -d); ln -s $SHIM $m/libcuda.so.1
CUSHIM_LOG=info LD_LIBRARY_PATH=$m ./tests/gpu/saxpy
CUSHIM_SUMMARY=1 LD_LIBRARY_PATH=$m ./tests/gpu/saxpy 2>&1 | head -12
echo "== masquerade: a PyTorch matmul"
CUSHIM_SUMMARY=$out/torch-summary.json CUSHIM_LOG=info LD_LIBRARY_PATH=$m timeout 120 python3 -c "
import torch; a = torch.randn(512, 512, device='cuda'); print('matmul sum', (a @ a).float().sum().item())" 2>&1 | tail -5
python3 -c "import json,sys; d=json.load(open('$out/torch-summary.json')); print('torch: calls', d['calls'], 'functions', len(d['functions'])); print(' '.join(f['name']+':'+str(f['calls']) for f in d['functions'][:40]))"
echo "== masquerade: a Triton kernel launch"
cat > $m/tri.py <<'PY'
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, o, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B); k = i < n
    tl.store(o + i, tl.load(x + i, mask=k) + tl.load(y + i, mask=k), mask=k)
x = torch.ones(4096, device='cuda'); y = torch.ones(4096, device='cuda'); o = torch.empty_like(x)
add[(4,)](x, y, o, 4096, B=1024); torch.cuda.synchronize(); print('triton sum', o.sum().item())
PY
CUSHIM_SUMMARY=$out/triton-summary.json LD_LIBRARY_PATH=$m timeout 180 python3 $m/tri.py 2>&1 | tail -3
python3 -c "import json; d=json.load(open('$out/triton-summary.json')); print('triton: calls', d['calls'], 'functions', len(d['functions'])); print(' '.join(f['name']+':'+str(f['calls']) for f in d['functions'] if 'Launch' in f['name'] or 'Module' in f['name'] or 'Library' in f['name']))"
rm -rf $m
