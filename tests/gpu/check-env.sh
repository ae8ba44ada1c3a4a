#!/bin/sh
# cushim check --gpu=auto --python on a GPU machine with PyTorch, against
# what actually runs there: the environment's verdict for this driver and
# these GPUs, then PyTorch itself (a kernel launched, its result read back).
# Where PyTorch runs, the verdict must not say that a CUDA runtime refuses
# this driver or that the GPU has no code, and PyTorch's CUDA libraries must
# have code for every GPU here, and none of PyTorch's own libraries may decide
# that the environment will not run; libraries the tree needs and nothing
# provides are listed (a module PyTorch never imports may lack one).  Skips (77)
# without a GPU or PyTorch.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
PY=${PYTHON:-python3}
"$PY" -c 'import torch' 2>/dev/null || { echo "SKIP: no PyTorch for $PY"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-check-env.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
start=$(date +%s.%N)
"$top_builddir/cushim" check --gpu=auto --python="$PY" >"$tmp/check.out" 2>"$tmp/check.err"
rc=$?
end=$(date +%s.%N)
echo "== cushim check --gpu=auto --python=$PY: exit $rc, $(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }') s"
head -n 40 "$tmp/check.out"
head -n 10 "$tmp/check.err"
"$top_builddir/cushim" check --json --gpu=auto --python="$PY" >"$tmp/check.json" 2>/dev/null
"$PY" - >"$tmp/torch.out" 2>&1 <<'PY'
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
for i in range(torch.cuda.device_count()):
    print("device", i, torch.cuda.get_device_name(i), "sm_%d%d" % torch.cuda.get_device_capability(i))
x = torch.arange(1024, device="cuda", dtype=torch.float32)
print("kernel", float((x * 2).sum().item()) == 1023 * 1024.0)
PY
trc=$?
echo "== PyTorch: exit $trc"
cat "$tmp/torch.out"
if [ $trc -eq 0 ] && grep -q "^kernel True" "$tmp/torch.out"; then
	grep -q "^environment: .*verdict: will not run .*runtime.*refuses" "$tmp/check.out" &&
		{ echo "FAIL: PyTorch runs here, yet a CUDA runtime is said to refuse this driver"; fail=1; }
	grep -q "^environment: .*verdict: will not run .*decided by [^ ]*-packages/\(torch\|nvidia\)/" "$tmp/check.out" &&
		{ echo "FAIL: PyTorch runs here, yet one of its own libraries decides that the environment will not"; fail=1; }
	grep "^environment: on sm_" "$tmp/check.out" | grep -q "\(have\|has\) no code" &&
		grep "^  .*torch/lib/libtorch_cuda.so: fails: it has no GPU code" "$tmp/check.out" &&
		{ echo "FAIL: PyTorch runs here, yet libtorch_cuda.so is said to have no code for this GPU"; fail=1; }
	"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/check.json" ||
		{ echo "FAIL: --json is not one JSON document"; fail=1; }
else
	echo "PyTorch does not run kernels here; the verdict above should say why"
	grep -q "^environment: .*verdict: will not run" "$tmp/check.out" ||
		{ echo "FAIL: PyTorch fails here, yet the environment is said to run"; fail=1; }
fi
exit $fail
