#!/bin/sh
# cushim check on a tree of programs built once by make with the configured
# nvcc (tests/cli/local.mk: tests/cli/cuda-tree, copied here): a program
# linking the runtime statically, a library with its own kernel
# (SASS for sm_80 only, the runtime linked dynamically) that the program
# finds only through its $ORIGIN rpath, a PTX-only library, compressed and
# uncompressed fatbins, a cubin and a PTX file, and NVRTC carried.  The
# environment's verdict comes first and names what decides; what each needs
# is derived from nvcc's own release and the .version of the PTX it writes,
# never from cushim.  Skips (77) without nvcc.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_PRELOAD CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER CUSHIM_CUDART
[ -n "${NVCC-}" ] && [ -x "$NVCC" ] || { echo "SKIP: no nvcc configured"; exit 77; }
release=$("$NVCC" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9]\).*/\1/p')
major=${release%%.*}
[ -n "$release" ] && [ "$major" -ge 12 ] || { echo "SKIP: nvcc ${release:-?}: these expectations are for CUDA 12 and later"; exit 77; }
cudalib=$(dirname "$(dirname "$(realpath "$NVCC")")")/lib64
E=$T/env
tree=$top_builddir/tests/cli/cuda-tree
[ -f "$tree/bin/app" ] && [ -f "$top_builddir/tests/cli/cuda/vadd.ptx" ] ||
	{ echo "no $tree/bin/app or tests/cli/cuda/vadd.ptx: make check builds them" >&2; exit 99; }
mkdir -p "$E" && cp -R "$tree/." "$E" && cp "$top_builddir/tests/cli/cuda/vadd.ptx" "$E/kernels/" || exit 99
isa=$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$E/kernels/vadd.ptx")
case $isa in
9.0) jit=13.0 ;; 8.8) jit=12.9 ;; 8.7) jit=12.8 ;; 8.6) jit=12.7 ;; 8.[0-5]) jit=12.${isa#8.} ;;
*) echo "nvcc $release writes PTX ISA '$isa', which this test does not know" >&2; exit 99 ;;
esac
# vadd-size.fatbin: compressed with zstd (nvcc --compress-mode=size), the
# method read from the fatbin's header; empty where nvcc has no such option.
zstd=
if [ -s "$E/kernels/vadd-size.fatbin" ]; then zstd=1; else rm -f "$E/kernels/vadd-size.fatbin"; fi
[ -f "$cudalib/libcudart.so.$major" ] && ln -s "$cudalib/libcudart.so.$major" "$E/lib/"
[ -f "$cudalib/libnvrtc.so.$major" ] && ln -s "$cudalib/libnvrtc.so.$major" "$E/lib/" && nvrtc=1 || nvrtc=

old=12.2
[ "$major" -ge 13 ] || old=11.8
run_cmd old "$CUSHIM" check --driver-version=$old --gpu=sm_90 "$E"
expect_rc old 1
head -n 1 "$T/old.out" | grep -q "^environment: .*verdict: will not run on a CUDA $old driver .*decided by $E/.*runtime" ||
	fail "old: the first line is not a verdict decided by a CUDA $major runtime: $(head -n 1 "$T/old.out")"
# Six files (seven with vadd-size.fatbin) carry kernels; libk80 (SASS sm_80), libkptx and vadd.ptx (PTX
# ISA $isa, too new for $old) have nothing sm_90 can run there.
grep -q "^environment: on sm_90: 3 of the $((6 + ${zstd:-0})) files carrying kernels have no code it can run, first $E/kernels/vadd.ptx" "$T/old.out" ||
	fail "old: libk80, libkptx and vadd.ptx are not the sm_90 gap: $(grep sm_90 "$T/old.out")"
grep -q "libk80.so, which nothing" "$T/old.out" && fail "old: libk80.so, found through \$ORIGIN, said missing"
grep -q "libcudart.so.$major, which nothing" "$T/old.out" && fail "old: the tree's libcudart said missing"
if [ -n "$nvrtc" ]; then
	grep -q "^environment: caution: $E/lib/libnvrtc.so.$major carries NVRTC $release: the PTX it emits by default needs a CUDA $release driver" "$T/old.out" ||
		fail "old: no caution for NVRTC $release: $(grep -i nvrtc "$T/old.out")"
fi

run_cmd verbose "$CUSHIM" check --verbose --driver-version=$old --gpu=sm_90 "$E"
for f in bin/app bin/app-nocompress lib/libk80.so lib/libkptx.so kernels/vadd.ptx kernels/vadd.cubin kernels/vadd.fatbin; do
	grep -q "^$E/$f: " "$T/verbose.out" || fail "verbose: $f was not judged"
done
grep -q "^$E/kernels/vadd.ptx: .*PTX ISA $isa" "$T/verbose.out" -e "^  PTX .*PTX ISA $isa: JIT needs a CUDA $jit driver" ||
	fail "verbose: the PTX file's ISA $isa and its CUDA $jit JIT are not said"
[ -z "$zstd" ] || sed -n "\\|^$E/kernels/vadd-size.fatbin: GPU code|,\\|verdict|p" "$T/verbose.out" | grep -q "compressed (zstd; the driver that decompresses it: unknown)" ||
	fail "verbose: vadd-size.fatbin's zstd compression is not said: $(grep -A3 vadd-size "$T/verbose.out")"
app_nc=$(sed -n "\\|^$E/bin/app-nocompress: GPU code|,\\|verdict|p" "$T/verbose.out")
echo "$app_nc" | grep -q "compressed" && fail "verbose: app-nocompress's images said compressed: $app_nc"

# A library whose .nv_fatbin no wrapper registers loads its code itself
# (cuFFT does): not judged, where the same library registered fails on sm_90.
if command -v objcopy >/dev/null 2>&1; then
	objcopy --remove-section=.nvFatBinSegment "$E/lib/libk80.so" "$T/libself.so" || exit 99
	run_cmd self "$CUSHIM" check --driver-version="$release" --gpu=sm_90 "$T/libself.so"
	expect_rc self 0
	grep -q "no wrapper in .nvFatBinSegment registers this code.*not judged" "$T/self.out" ||
		fail "self: the unregistered code is not said: $(cat "$T/self.out")"
	run_cmd reg "$CUSHIM" check --driver-version="$release" --gpu=sm_90 "$E/lib/libk80.so"
	expect_rc reg 1
fi

# On the newest driver and sm_80, everything runs but the sm_90-only files.
run_cmd new "$CUSHIM" check --driver-version="$release" --gpu=sm_80 "$E/lib" "$E/bin/app"
expect_rc new 0
head -n 1 "$T/new.out" | grep -q "^environment: .*verdict: runs on a CUDA $release driver" ||
	fail "new: no passing verdict first: $(head -n 1 "$T/new.out")"
grep -q "^environment: caution" "$T/new.out" && fail "new: a caution for NVRTC on its own driver"
# A tree whose one file with kernels has none for the GPUs asked for: the
# verdict names them.
mkdir -p "$T/one"
cp "$E/bin/app-nocompress" "$T/one/"
run_cmd one "$CUSHIM" check --driver-version="$release" --gpu=sm_80,sm_75 "$T/one"
expect_rc one 1
head -n 1 "$T/one.out" | grep -q "decided by $T/one/app-nocompress: it has no GPU code that sm_80 or sm_75 can run\$" ||
	fail "one: the GPUs without code are not named: $(cat "$T/one.out")"
grep -q "^environment: on sm_80: the one file carrying kernels, $T/one/app-nocompress, has no code for it\$" "$T/one.out" ||
	fail "one: the one file with kernels is not named: $(cat "$T/one.out")"
exit $((failures > 0))
