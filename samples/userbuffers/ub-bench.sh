#!/bin/sh
# The Userbuffers benchmark, plain and under the shim, in one run: one line per
# measurement (op, variant, bytes, bus bandwidth), with cuMemcpyDtoD as the
# ceiling. UB_BENCH_ARGS passes options to ub-bench (e.g. --ranks 4 --max 268435456).
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/gpu/gpu-env.sh"
B="$top_builddir/samples/userbuffers/ub-bench"
[ -x "$B" ] || { echo "ub-bench not built (no nvcc)"; exit 77; }
# shellcheck disable=SC2086
"$B" $UB_BENCH_ARGS || exit $?
# shellcheck disable=SC2086
run_shimmed "$B" $UB_BENCH_ARGS
