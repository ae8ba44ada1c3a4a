#!/bin/sh
# Invisible until used, on a real driver: a process that probes the driver
# (cuDriverGetVersion, cuCtxGetCurrent, cuDeviceGetCount) and then forks a
# worker gets the same answers, in parent and child, without cushim, under
# LD_PRELOAD, with CUSHIM_CUDART=none and in masquerade; and cushim's first
# call costs little more than the driver's own.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/fork-probe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-fork.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ln -s "$SHIM" "$tmp/libcuda.so.1"
fail=0
run() { # name, then the command
	name=$1; shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	grep -v '^cushim after' "$tmp/$name.out" >"$tmp/$name.cmp"
	echo "== $name: $(grep '^time' "$tmp/$name.err")"
	cat "$tmp/$name.out"
}
run plain "$app"
run preload env LD_PRELOAD="$SHIM" "$app"
run cudart-none env LD_PRELOAD="$SHIM" CUSHIM_CUDART=none "$app"
run masquerade env LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$app"
grep -q 'cuCtxGetCurrent=3 cuDeviceGetCount=3' "$tmp/plain.out" || { echo "FAIL: the driver itself did not answer 3 before cuInit"; fail=1; }
grep -q '^child exit: 0' "$tmp/plain.out" || { echo "FAIL: the child failed without cushim"; fail=1; }
for m in preload cudart-none masquerade; do
	cmp -s "$tmp/plain.cmp" "$tmp/$m.cmp" || { echo "FAIL: $m differs from plain:"; diff "$tmp/plain.cmp" "$tmp/$m.cmp"; fail=1; }
done
grep -q 'by the runtime [1-9]' "$tmp/preload.out" || { echo "FAIL: the program's cuInit adopted no runtime"; fail=1; }
exit $fail
