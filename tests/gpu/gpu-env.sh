# Sourced by the GPU tests: '. "$top_srcdir/tests/gpu/gpu-env.sh"'.
# Skips (77) without a GPU, fails with CUSHIM_TEST_REQUIRE_GPU=1; sets SHIM to
# the built libcushim.so and NGPUS to the device count.
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
SHIM="$top_builddir/.libs/libcushim.so"
# (a cross build: through its emulator, EXE_WRAPPER, where no driver is found)
NGPUS=$(${EXE_WRAPPER:-} "$top_builddir/tests/gpu/have-gpu") || exit $?
export NCCL_NVLS_ENABLE=0
export CUSHIM_HIDE="${CUSHIM_HIDE-cuMulticast*}"
# run_shimmed CMD...: the command with the shim preloaded.
run_shimmed() { LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$@"; }
