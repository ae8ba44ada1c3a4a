#!/bin/sh
# cushim check on real wheels from PyPI, read in place: the CUDA 12 and 13
# runtimes, NVRTC 12, and CuPy with those, for drivers 12.0, 12.2, 12.9 and
# 13.0 on sm_80 and sm_90; and JAX's CUDA 12 plugin, whose libraries import
# nothing of CUDA's and reach its runtime by dlopen through an RPATH into the
# nvidia-* wheels, for drivers 11.8, 12.2 and 13.0 (a CUDA 12 runtime refuses
# 11.x drivers).  What each verdict must be comes from the wheels'
# own versions (their METADATA) and NVIDIA's rules as doc/USAGE.md states them
# (a runtime accepts drivers of its major release and newer; NVRTC's default
# PTX needs its own release), never from cushim.  The wheels (about 230 MB)
# are cached in the build folder (wheel-cache/), fetched once with pip
# download when CUSHIM_TEST_FETCH=1; skips (77) when they are not there.
. "$top_srcdir/tests/harness/defs.sh"
C=${CUSHIM_WHEEL_CACHE:-$top_builddir/wheel-cache}
pins="nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-runtime==13.0.96 nvidia-cuda-nvrtc-cu12==12.9.86 cupy-cuda12x==14.2.0 jax-cuda12-plugin==0.8.0"
mkdir -p "$C" || exit 99
for p in $pins; do
	n=$(echo "${p%%==*}" | tr - _)
	ls "$C/$n-${p#*==}-"*.whl >/dev/null 2>&1 && continue
	[ "${CUSHIM_TEST_FETCH:-0}" = 1 ] || { echo "SKIP: $p is not in $C (make check-compat fetches it)"; exit 77; }
	timeout 600 "${PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_27_x86_64 -d "$C" "$p" >"$T/pip.log" 2>&1 ||
		{ cat "$T/pip.log"; echo "SKIP: cannot fetch $p"; exit 77; }
done
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: the pinned wheels are x86-64's"; exit 77; }
rt12=$(ls "$C"/nvidia_cuda_runtime_cu12-*.whl) rt13=$(ls "$C"/nvidia_cuda_runtime-13*.whl)
nvrtc=$(ls "$C"/nvidia_cuda_nvrtc_cu12-*.whl) cupy=$(ls "$C"/cupy_cuda12x-*.whl) jax=$(ls "$C"/jax_cuda12_plugin-*.whl)
version() { unzip -p "$1" '*.dist-info/METADATA' | sed -n 's/^Version: \([0-9]*\.[0-9]*\).*/\1/p'; }
num() { echo "$1" | awk -F. '{ print $1 * 1000 + $2 * 10 }'; }
# verdict NAME DRIVER GPU WANT WHEEL...: WANT is runs or fails
verdict() {
	set=$1 d=$2 g=$3 want=$4
	shift 4
	run_cmd "$set-$d-$g" "$CUSHIM" check --driver-version="$d" --gpu="$g" "$@"
	line=$(head -n 1 "$T/$set-$d-$g.out")
	case $want in
	runs) echo "$line" | grep -q "verdict: runs on a CUDA $d driver" || fail "$set on $d/$g: wanted runs: $line" ;;
	*) echo "$line" | grep -q "verdict: will not run on a CUDA $d driver.*decided by .*$want" ||
		fail "$set on $d/$g: wanted a failure decided by /$want/: $line" ;;
	esac
	printf '%-8s %-5s %-6s %s\n' "$set" "$d" "$g" "$(echo "$line" | sed "s|$C/||g; s/^environment: //" | cut -c1-160)"
}
v13=$(num "$(version "$rt13")") vrtc=$(num "$(version "$nvrtc")")
for d in 12.0 12.2 12.9 13.0; do
	for g in sm_80 sm_90; do
		verdict cu12 $d $g runs "$rt12" # a 12.x runtime: any 12.0+ driver
		[ "$(num $d)" -ge "$((v13 / 1000 * 1000))" ] && w=runs || w="libcudart.so.13: its CUDA"
		verdict cu13 $d $g "$w" "$rt13"
		verdict nvrtc12 $d $g runs "$nvrtc"
		if [ "$(num $d)" -lt "$vrtc" ]; then
			grep -q "^environment: caution: .*NVRTC $(version "$nvrtc")" "$T/nvrtc12-$d-$g.out" ||
				fail "nvrtc12 on $d: no caution for NVRTC's default PTX"
		fi
		# CuPy's modules that need cuBLAS, cuFFT, ... (which these wheels do
		# not hold) load only when imported: a caution, not the verdict
		verdict cupy $d $g runs "$cupy" "$nvrtc" "$rt12"
		grep -q "^environment: caution: [0-9]* Python extension modules cannot be imported .*cupy/.*libcu" \
			"$T/cupy-$d-$g.out" || fail "cupy on $d/$g: no caution for its modules that cannot load"
	done
done
# The dlopen-only plugin: no DT_NEEDED of CUDA's, so only what it loads at
# run time (its RPATH into nvidia/cuda_runtime/lib, its name's cuda12) can
# tell that it needs a CUDA 12 driver.
unzip -Z1 "$jax" '*.so' | while read -r m; do
	unzip -p "$jax" "$m" >"$T/member.so" && readelf -d "$T/member.so" | grep NEEDED | grep -qi 'libcu' &&
		echo "$m imports CUDA: not the dlopen-only case" >"$T/jax-imports"
done
[ -s "$T/jax-imports" ] && fail "$(cat "$T/jax-imports")"
verdict jax12 11.8 sm_90 "CUDA 12 runtime (loaded at run time)" "$jax"
verdict jax12 12.2 sm_90 runs "$jax"
verdict jax12 13.0 sm_90 runs "$jax"
exit $((failures > 0))
