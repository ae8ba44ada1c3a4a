#!/bin/sh
# The Userbuffers benchmark, plain and under the shim, in one run: one line per
# measurement (op, variant, bytes, bus bandwidth), with cuMemcpyDtoD as the
# ceiling; where two GPUs exist, two ranks on two GPUs (VMM peer-to-peer)
# against cuMemcpyPeer and cuMemcpyPeerAsync. Every result is verified: a
# mismatch fails. UB_BENCH_ARGS passes options to ub-bench (e.g. --ranks 4
# --max 268435456), in place of --gpus.
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/gpu/gpu-env.sh"
B="$top_builddir/samples/userbuffers/ub-bench"
[ -x "$B" ] || { echo "ub-bench not built (no nvcc)"; exit 77; }
g=1
[ "$NGPUS" -ge 2 ] && g=2
args=${UB_BENCH_ARGS:---gpus $g}
# shellcheck disable=SC2086
"$B" $args || exit $?
# shellcheck disable=SC2086
run_shimmed "$B" $args
