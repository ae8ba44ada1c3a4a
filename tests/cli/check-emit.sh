#!/bin/sh
# cushim check --emit=docker|conda|variant: a folder's needs, derived from its
# files, as the NVIDIA Container Toolkit's NVIDIA_REQUIRE_CUDA, conda's
# __cuda and __cuda_arch, and the wheel-variant properties of NVIDIA's
# provider, each against a checked-in expected output
# (tests/cli/emit-FORMAT.expected).  The folder holds a library whose GPU
# code is SASS for sm_80, sm_86 and sm_90 and PTX for compute_90 of ISA 8.4,
# compressed, from CUDA 12.4's compiler: a CUDA 12 file (a 12.0 driver); on
# 10.0 and later its PTX needs 12.4; sm_87 (Tegra) and sm_88 (undocumented)
# are left out.  Then a wheel that says otherwise than its files: its name
# says cuda12x, its version +cu128, it requires nvidia-cuda-runtime-cu12, its
# variant label says CUDA 12.8 and sm_100; its one library was built by CUDA
# 13.0 for sm_90a alone.  Each contradiction is one line.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_LIBRARY_PATH LD_PRELOAD CUSHIM_DRIVER_VERSION
CC=${BUILD_CC:-${CC:-cc}}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
[ -z "$EXE_WRAPPER" ] || { echo "SKIP: the libraries are built for the build machine"; exit 77; }
grep -q '^#define HAVE_LZ4 1' "$top_builddir/config.h" || { echo "SKIP: built without liblz4"; exit 77; }
E=$top_srcdir/tests/cli
cat >"$T/gpu.c" <<'C'
__asm__(".section .nv_fatbin,\"a\"\n.balign 8\n.globl test_gpu\n.hidden test_gpu\ntest_gpu:\n.incbin \"" FATBIN "\"\n.previous\n");
extern const char test_gpu[];
struct wrapper { unsigned magic, version; const void *data, *prelinked; };
__attribute__((used, section(".nvFatBinSegment"), aligned(8))) static struct wrapper w = { 0x466243B1u, 1, test_gpu, 0 };
int gpu(void) { return 0; }
C
gpulib() { # OUT IMAGE...: a library carrying those images
	out=$1
	shift
	python3 "$E/mkfatbin.py" "$T/code.fatbin" "$@" || exit 99
	"$CC" -shared -fPIC -o "$out" "$T/gpu.c" -DFATBIN="\"$T/code.fatbin\"" || exit 99
}
mkdir -p "$T/site/pkg" || exit 99
gpulib "$T/site/pkg/libk.so" sass:80 sass:86 sass:90 ptx:90:8.4@12.4+lz4

# 1. Each format, against its expected output.
for f in docker conda variant; do
	run_cmd "$f" "$CUSHIM" check --emit="$f" "$T/site"
	expect_rc "$f" 0
	diff -u "$E/emit-$f.expected" "$T/$f.out" >"$T/$f.diff" || fail "--emit=$f: $(cat "$T/$f.diff")"
	[ -s "$T/$f.err" ] && fail "--emit=$f: said on stderr: $(cat "$T/$f.err")"
done
run_cmd bad "$CUSHIM" check --emit=yaml "$T/site"
expect_rc bad 2
[ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "emit=yaml: not a format" "$T/bad.err" || fail "bad: $(cat "$T/bad.err")"

# 2. A wheel whose declared tags contradict its contents.
W=$T/demo_cuda12x-1.0+cu128-py3-none-linux_x86_64-cu128.whl
gpulib "$T/lib13.so" sass:90a ptx:90a:9.0@13.0+lz4
python3 - "$W" "$T/lib13.so" <<'PY' || exit 99
import sys, zipfile
d = "demo_cuda12x-1.0+cu128.dist-info"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.write(sys.argv[2], "demo/lib13.so")
    z.writestr(d + "/WHEEL", "Wheel-Version: 1.0\n")
    z.writestr(d + "/METADATA", "Metadata-Version: 2.1\nName: demo-cuda12x\nVersion: 1.0+cu128\n"
               "Requires-Dist: nvidia-cuda-runtime-cu12==12.8.90\n\nA demo.\n")
    z.writestr(d + "/variant.json", '{"variants": {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], '
               '"sm_arch": ["90a_real", "100_real"]}}}}')
PY
run_cmd wheel "$CUSHIM" check --emit=docker "$W"
expect_rc wheel 0
for want in "its name says cuda12x (CUDA 12), but $W:demo/lib13.so was built for CUDA 13.0" \
	"its version says +cu128 (CUDA 12.8), but $W:demo/lib13.so was built for CUDA 13.0" \
	"it requires nvidia-cuda-runtime-cu12 (CUDA 12), but $W:demo/lib13.so was built for CUDA 13.0" \
	"its variant cu128 says nvidia :: cuda_version_lower_bound :: 12.8, but $W:demo/lib13.so needs a CUDA 13.0 driver" \
	"its variant cu128 says nvidia :: sm_arch :: 100_real, but not every file with kernels in it runs there"; do
	grep -qxF "cushim: $W: $want" "$T/wheel.err" || fail "wheel: no line [$want] in: $(cat "$T/wheel.err")"
done
[ "$(wc -l <"$T/wheel.err")" -eq 5 ] || fail "wheel: wanted 5 lines: $(cat "$T/wheel.err")"
grep -qxF "NVIDIA_REQUIRE_CUDA=cuda>=13.0,arch>=9.0,arch<10.0" "$T/wheel.out" || fail "wheel: $(cat "$T/wheel.out")"
run_cmd wheel-json "$CUSHIM" check --json "$W"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["contradictions"]
w = [l.split(": ", 1)[1] for l in open(sys.argv[2]).read().splitlines()]
assert c == w and len(c) == 5 and all(x.startswith(sys.argv[3] + ": ") for x in c), c' \
	"$T/wheel-json.out" "$T/wheel.err" "$W" ||
	fail "wheel-json: the contradictions are not in --json: $(cat "$T/wheel-json.out")"
run_cmd wheel-text "$CUSHIM" check "$W"
grep -qF "environment: caution: $W: its name says cuda12x (CUDA 12)" "$T/wheel-text.out" ||
	fail "wheel-text: the contradiction is not said: $(cat "$T/wheel-text.out")"
finish
