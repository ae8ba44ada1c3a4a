#!/bin/sh
# A sticky error on a real GPU, under cushim run --record: a kernel that
# writes through a wild pointer (700) and one whose assertion fails (710),
# each launched among others on two streams after a synchronisation that
# completed; cushim names the kernels in flight, newest first, and not the
# one synchronised before.  Then PyTorch (where installed): an index out of
# range on the GPU, then a synchronize, under cushim run --record alone:
# cushim names the indexing kernel.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/sticky-gpu"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-sticky.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for mode in wild:700:CUDA_ERROR_ILLEGAL_ADDRESS assert:710:CUDA_ERROR_ASSERT; do
	m=${mode%%:*} rest=${mode#*:} code=${rest%%:*} ename=${rest#*:}
	"$top_builddir/cushim" run --lib="$SHIM" --record -- "$app" "$m" >"$tmp/$m.out" 2>"$tmp/$m.err"
	echo "== $m: exit $?"; cat "$tmp/$m.out" "$tmp/$m.err"
	grep -q "^sync $code\$" "$tmp/$m.out" || { echo "FAIL: $m: the synchronize did not return $code"; fail=1; }
	[ "$(grep -c "cuCtxSynchronize returned $ename ($code" "$tmp/$m.err")" -eq 1 ] ||
		{ echo "FAIL: $m: not said once"; fail=1; }
	bad=write_wild
	[ "$m" = assert ] && bad=assert_fails
	grep -q "newest first: 1\. fill grid (32,1,1) block (256,1,1) shared 0 B stream 0x[0-9a-f]*, thread [0-9]*, [0-9.]* [mu]s before; 2\. $bad grid (1,1,1) block (32,1,1) shared 0 B stream 0x[0-9a-f]*, thread [0-9]*, [0-9.]* [mu]s before; 3\. fill grid (64,1,1) block (256,1,1)" "$tmp/$m.err" ||
		{ echo "FAIL: $m: the kernels in flight are not named, newest first"; fail=1; }
	grep -q "fill grid (16,1,1)" "$tmp/$m.err" && { echo "FAIL: $m: a kernel synchronised before is named"; fail=1; }
done
grep -q "Assertion" "$tmp/assert.out" "$tmp/assert.err" || echo "note: the device's assertion text was not seen"
grep -q "The device printed the failed assertion's text" "$tmp/assert.err" || { echo "FAIL: 710: no word of the assertion's text"; fail=1; }
PY=${PYTHON:-python3}
if "$PY" -c 'import torch' 2>/dev/null; then
	"$top_builddir/cushim" run --lib="$SHIM" --record -- "$PY" -c "import torch
x = torch.arange(10, device='cuda')
y = x[torch.tensor([20], device='cuda')]
torch.cuda.synchronize()" >"$tmp/torch.out" 2>"$tmp/torch.err"
	echo "== PyTorch: exit $?"; grep -v '^\s*$' "$tmp/torch.err" | tail -n 30
	grep -q "cushim: .* returned CUDA_ERROR_ASSERT (710" "$tmp/torch.err" || { echo "FAIL: PyTorch: the sticky error is not explained"; fail=1; }
	grep -q "cushim: .*newest first: 1\. [^;]*[Ii]ndex" "$tmp/torch.err" || { echo "FAIL: PyTorch: the indexing kernel is not named first"; fail=1; }
else
	echo "SKIP: no PyTorch for $PY"
fi
exit $fail
