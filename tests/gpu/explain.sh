#!/bin/sh
# The causes cushim names, on a real GPU and driver: a forked child's cuInit
# after its parent initialised CUDA (its own cuInit under LD_PRELOAD; the
# runtime's in masquerade, whose frames are named); a fatbin with SASS for sm_100 alone
# (NO_BINARY_FOR_GPU on any other GPU); PTX of ISA 9.9 (UNSUPPORTED_PTX_VERSION
# on a driver of CUDA 13.0, ISA 9.0); a CUDA 13.0 runtime under
# CUSHIM_DRIVER_VERSION=12.4 in masquerade.  Each is said once.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/explain-gpu"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-explain.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
said() { # name, rc pattern, message pattern
	echo "== $1"; cat "$tmp/$1.out" "$tmp/$1.err"
	grep -q "$2" "$tmp/$1.out" || { echo "FAIL: $1: no '$2'"; fail=1; }
	[ "$(grep -c "$3" "$tmp/$1.err")" -eq 1 ] || { echo "FAIL: $1: '$3' not said once"; fail=1; }
}
run_shimmed "$app" fork >"$tmp/fork.out" 2>"$tmp/fork.err"
said fork 'child cuInit 3' 'cuInit returned CUDA_ERROR_NOT_INITIALIZED in process .* because it was forked from process .*Initialise CUDA only after fork'
mkdir "$tmp/m" && ln -s "$SHIM" "$tmp/m/libcuda.so.1"
LD_LIBRARY_PATH="$tmp/m${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$app" fork-runtime >"$tmp/forkrt.out" 2>"$tmp/forkrt.err"
said forkrt 'child cuInit 3' 'initialised CUDA through cuInit called from .*libcudart.so.13'
if nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -q '^10\.'; then
	echo "SKIP: the sm_100 case needs a GPU that is not sm_100"
else
	run_shimmed "$app" module "$top_builddir/tests/gpu/sm100-only.fatbin" >"$tmp/sass.out" 2>"$tmp/sass.err"
	said sass 'cuModuleLoad 209' 'cuModuleLoad returned CUDA_ERROR_NO_BINARY_FOR_GPU for .*sm100-only.fatbin, a fatbin: it holds SASS for sm_100; no PTX.*It has no SASS for sm_'
fi
printf '.version 9.9\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n' >"$tmp/isa99.ptx"
run_shimmed "$app" module "$tmp/isa99.ptx" >"$tmp/ptx.out" 2>"$tmp/ptx.err"
said ptx 'cuModuleLoad 222' 'cuModuleLoad returned CUDA_ERROR_UNSUPPORTED_PTX_VERSION for .*isa99.ptx, PTX: it holds no SASS; PTX ISA 9.9 for compute_90.*newer than this driver compiles'
LD_LIBRARY_PATH="$tmp/m${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUSHIM_DRIVER_VERSION=12.4 "$app" runtime >"$tmp/rt.out" 2>"$tmp/rt.err"
said rt 'cudaGetDeviceCount 35' 'cuDriverGetVersion answers CUDA 12.4 (emulated by CUSHIM_DRIVER_VERSION.*the CUDA runtime 13\.[0-9]* in .*libcudart.so.13 needs a driver of CUDA 13.0 or later (branch 580 or later).*cushim cannot lift that gate'
exit $fail
