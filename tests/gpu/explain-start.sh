#!/bin/sh
# CUDA that cannot start or runs out, named on a real GPU and driver:
# CUDA_VISIBLE_DEVICES=7 and CUDA_VISIBLE_DEVICES= (cuInit: 100); Debian's
# user-mode driver 550 on this machine's newer kernel module, where
# make fetch-drivers has cached it (tests/realdrv/cache); an allocation of
# twice the device's memory under cushim run --summary, with what the
# process holds.  Each message is said once.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/start-gpu"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-start.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
said() { # name, rc pattern, message pattern
	echo "== $1"; cat "$tmp/$1.out" "$tmp/$1.err"
	grep -q "$2" "$tmp/$1.out" || { echo "FAIL: $1: no '$2'"; fail=1; }
	[ "$(grep -c "$3" "$tmp/$1.err")" -eq 1 ] || { echo "FAIL: $1: '$3' not said once"; fail=1; }
}
CUDA_VISIBLE_DEVICES=7 run_shimmed "$app" init >"$tmp/cvd7.out" 2>"$tmp/cvd7.err"
said cvd7 'init 100 100' 'cuInit returned 100 (CUDA_ERROR_NO_DEVICE.*CUDA_VISIBLE_DEVICES="7" names none of the'
CUDA_VISIBLE_DEVICES='' run_shimmed "$app" init >"$tmp/cvd.out" 2>"$tmp/cvd.err"
said cvd 'init 100 100' 'cuInit returned 100 (CUDA_ERROR_NO_DEVICE.*CUDA_VISIBLE_DEVICES="" names none of the'
old=$(ls "$top_builddir"/tests/realdrv/cache/drv/550/libcuda.so.550.* \
	"$top_builddir"/tests/gpu/drv550/libcuda.so.550.* 2>/dev/null | head -n 1)
if [ -n "$old" ]; then
	mkdir "$tmp/d" && ln -s "$old" "$tmp/d/libcuda.so.1"
	LD_LIBRARY_PATH="$tmp/d" run_shimmed "$app" init >"$tmp/mis.out" 2>"$tmp/mis.err"
	said mis 'init [1-9][0-9]* ' 'cuInit returned [0-9]* (.*the user-mode driver (libcuda.so 550\.[0-9.]*) and the kernel module (.*) are of different releases'
else
	echo "SKIP: the mismatch case needs Debian's 550 libcuda (make fetch-drivers, or tests/gpu/drv550)"
fi
"$top_builddir/cushim" run --lib="$SHIM" --summary="$tmp/s.json" -- "$app" oom >"$tmp/oom.out" 2>"$tmp/oom.err"
said oom 'alloc 0 oom 2 2' 'cuMemAlloc_v2 returned CUDA_ERROR_OUT_OF_MEMORY asking for .* of device memory on device 0: the device has .* free of .*This process holds through cushim: device 64.00 MiB in 1 allocation'
python3 -c "import json,sys; c=json.load(open('$tmp/s.json'))['causes']; sys.exit(not any(x['cause']=='out-of-memory' for x in c))" ||
	{ echo "FAIL: no out-of-memory cause in the summary"; fail=1; }
exit $fail
