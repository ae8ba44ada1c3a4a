#!/bin/sh
# cushim check counts what a library loads at run time.  Lazy stubs, as
# frameworks ship them, import nothing from CUDA: they dlopen the runtime
# ("libcudart.so.12") and the driver by names in their read-only data, and
# find the runtime through an $ORIGIN run path into the nvidia/cuda_runtime/lib
# folder of NVIDIA's wheel.  Built here, in a fake site-packages:
#  - stub: names libcudart.so.12 and libcuda.so.1;
#  - prefix: names "libcudart.so." and appends its major release at run time;
#  - folder: names only the driver; its run path points into the folder;
#  - gpu, gpu-zstd: carry GPU code whose PTX, compressed (LZ4, Zstandard),
#    says "release 12.9" in its compiler's line.
# Each is a CUDA 12 file: never judged to run on an 11.x driver.  Without
# the runtime's folder, the runtime a stub loads is named, with the wheel
# that provides it.  A wheel's name says the release of a member that says
# nothing itself.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_LIBRARY_PATH LD_PRELOAD CUSHIM_DRIVER_VERSION
CC=${BUILD_CC:-${CC:-cc}}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
[ -z "$EXE_WRAPPER" ] || { echo "SKIP: the libraries are built for the build machine"; exit 77; }
S=$T/site
R=$S/nvidia/cuda_runtime/lib
mkdir -p "$S/plugin" "$R" || exit 99
lib() { # NAME SOURCE CFLAGS...: $S/plugin/libNAME.so with an $ORIGIN run path into the runtime's folder
	n=$1 src=$2
	shift 2
	printf '%s\n' "$src" >"$T/$n.c"
	"$CC" -shared -fPIC -o "$S/plugin/lib$n.so" "$T/$n.c" -Wl,-rpath,'$ORIGIN/../nvidia/cuda_runtime/lib' "$@" ||
		{ echo "cannot build lib$n.so" >&2; exit 99; }
}
printf 'int cudaRuntimeGetVersion(int *v) { *v = 12090; return 0; }\n' >"$T/rt.c"
"$CC" -shared -fPIC -o "$R/libcudart.so.12" -Wl,-soname,libcudart.so.12 "$T/rt.c" || exit 99
lib stub '#include <dlfcn.h>
static void *rt, *drv;
int stub_init(void) { drv = dlopen("libcuda.so.1", RTLD_LAZY); rt = dlopen("libcudart.so.12", RTLD_LAZY); return rt && drv; }' -ldl
lib prefix '#include <dlfcn.h>
#include <stdio.h>
void *prefix_init(int major) { char n[64]; snprintf(n, sizeof n, "libcudart.so.%d", major); return dlopen(n, RTLD_LAZY); }' -ldl
lib folder '#include <dlfcn.h>
void *folder_init(void) { return dlopen("libcuda.so.1", RTLD_LAZY); }' -ldl
gpu_src='__asm__(".section .nv_fatbin,\"a\"\n.balign 8\n.globl test_gpu\n.hidden test_gpu\ntest_gpu:\n.incbin \"" FATBIN "\"\n.previous\n");
extern const char test_gpu[];
struct wrapper { unsigned magic, version; const void *data, *prelinked; };
__attribute__((used, section(".nvFatBinSegment"), aligned(8))) static struct wrapper w = { 0x466243B1u, 1, test_gpu, 0 };
int gpu(void) { return 0; }'
python3 "$top_srcdir/tests/cli/mkfatbin.py" "$T/lz4.fatbin" sass:80+lz4 ptx:80:8.8@12.9+lz4 || exit 99
gpulib() { # NAME FATBIN: GPU code alone, no run path
	printf '%s\n' "$gpu_src" >"$T/gpu.c"
	"$CC" -shared -fPIC -o "$S/plugin/lib$1.so" "$T/gpu.c" -DFATBIN="\"$2\"" || { echo "cannot build lib$1.so" >&2; exit 99; }
}
gpulib gpu "$T/lz4.fatbin"
zstd=
if command -v zstd >/dev/null 2>&1 && grep -q '^#define HAVE_ZSTD 1' "$top_builddir/config.h"; then
	python3 "$top_srcdir/tests/cli/mkfatbin.py" "$T/zstd.fatbin" sass:80+zstd ptx:80:8.8@12.9+zstd || exit 99
	gpulib gpu-zstd "$T/zstd.fatbin"
	zstd=gpu-zstd
else
	echo "no zstd command or no libzstd in this build: the Zstandard case is not run"
fi
grep -q '^#define HAVE_LZ4 1' "$top_builddir/config.h" || { echo "SKIP: built without liblz4"; exit 77; }

# 1. On an 11.8 driver every one fails, each for the CUDA 12 it loads or was built by.
run_cmd old "$CUSHIM" check --driver-version=11.8 "$S"
expect_rc old 1
rt12="its CUDA 12 runtime (loaded at run time) refuses drivers older than a CUDA 12.0 driver (branch 525)"
for n in stub prefix folder; do
	grep -qF "  $S/plugin/lib$n.so: fails: $rt12" "$T/old.out" || fail "lib$n.so on 11.8: $(cat "$T/old.out")"
done
for n in gpu $zstd; do
	grep -qF "  $S/plugin/lib$n.so: fails: it is built for CUDA 12 (its GPU code's compiler says \"Cuda compilation tools, release 12.9, V12.9.1\" (read from a compressed image))" \
		"$T/old.out" || fail "lib$n.so on 11.8: $(cat "$T/old.out")"
done
# 2. On 12.2 they run, and each says what it loads and where the loader finds it.
run_cmd new "$CUSHIM" check --driver-version=12.2 --verbose "$S"
expect_rc new 0
grep -q "^environment: [0-9]* files: verdict: runs on a CUDA 12.2 driver" "$T/new.out" || fail "12.2: $(head -n 1 "$T/new.out")"
for n in stub prefix; do
	grep -qF "$S/plugin/lib$n.so: loads the CUDA 12 runtime at run time (its data names libcudart.so." "$T/new.out" ||
		fail "lib$n.so: the runtime it loads is not named: $(grep "lib$n.so" "$T/new.out")"
	grep -qF "found at $S/plugin/../nvidia/cuda_runtime/lib/libcudart.so.12)" "$T/new.out" ||
		fail "lib$n.so: the runtime is not found through its run path: $(grep "lib$n.so" "$T/new.out")"
done
grep -qF "$S/plugin/libfolder.so: loads the CUDA 12 runtime at run time (its run path points into \$ORIGIN/../nvidia/cuda_runtime/lib; found at" \
	"$T/new.out" || fail "libfolder.so: $(grep libfolder.so "$T/new.out")"
# 3. Alone, not in a tree: the names in its data still say CUDA 12.
run_cmd alone "$CUSHIM" check --driver-version=11.8 "$S/plugin/libstub.so"
expect_rc alone 1
grep -qF "$S/plugin/libstub.so: loads at run time, by names in its data: libcuda.so.1 (the driver)" "$T/alone.out" ||
	fail "libstub.so alone: $(cat "$T/alone.out")"
# 4. Without the runtime's folder: named, with the wheel that provides it.
mkdir -p "$T/bare/plugin" && cp "$S/plugin/libstub.so" "$T/bare/plugin/" || exit 99
run_cmd bare "$CUSHIM" check --driver-version=12.2 "$T/bare"
expect_rc bare 0
grep -qF "environment: caution: 1 file loads CUDA libraries at run time that this tree lacks (each fails when it loads them): first $T/bare/plugin/libstub.so loads libcudart.so.12 at run time; this tree has none: the nvidia-cuda-runtime-cu12 wheel provides it" \
	"$T/bare.out" || fail "bare: $(cat "$T/bare.out")"
run_cmd bare118 "$CUSHIM" check --driver-version=11.8 --json "$T/bare"
expect_rc bare118 1
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
assert f["runtime"]["linkage"] == "loaded" and f["runtime"]["cuda_version"] == 12000, f["runtime"]
rt = [l for l in f["loads"] if l["library"] == "libcudart"][0]
assert (rt["state"], rt["wheel"], rt["cuda_major"]) == ("none", "nvidia-cuda-runtime-cu12", 12), rt
assert d["environment"]["files_loading_missing_libraries"] == 1, d["environment"]' "$T/bare118.out" ||
	fail "bare118: $(cat "$T/bare118.out")"
# 5. A wheel whose name says CUDA 12: its member with GPU code of no release line is a CUDA 12 file.
python3 "$top_srcdir/tests/cli/mkfatbin.py" "$T/plain.fatbin" sass:80 || exit 99
"$CC" -shared -fPIC -o "$T/libplain.so" "$T/gpu.c" -DFATBIN="\"$T/plain.fatbin\"" || exit 99
python3 - "$T/demo_cu12-1.0-py3-none-linux_x86_64.whl" "$T/libplain.so" <<'PY' || exit 99
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.write(sys.argv[2], "demo/libplain.so")
    z.writestr("demo_cu12-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    z.writestr("demo_cu12-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-cu12\nVersion: 1.0\n\n")
PY
run_cmd wheel "$CUSHIM" check --driver-version=11.8 "$T/demo_cu12-1.0-py3-none-linux_x86_64.whl"
expect_rc wheel 1
grep -qF "fails: it is built for CUDA 12 (its wheel's name says cu12 (demo_cu12-1.0)" "$T/wheel.out" || fail "wheel: $(cat "$T/wheel.out")"
finish
