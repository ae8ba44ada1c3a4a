#!/bin/sh
# The cufuture benchmark with and without the shim, in one run:
#   top_builddir=BUILD top_srcdir=SRC sh samples/cufuture/cufuture-bench.sh
# Prints "LABEL METRIC VALUE UNIT" lines: plain, shim, and shim with
# CUSHIM_DRIVER_VERSION=12.0 (the optional call's fallback path).
. "$top_srcdir/tests/gpu/gpu-env.sh"
B="$top_builddir/samples/cufuture/cufuture-bench"
[ -x "$B" ] || { echo "cufuture-bench: not built (no nvcc?)" >&2; exit 77; }
[ -f "$SHIM" ] || { echo "cufuture-bench: no $SHIM" >&2; exit 1; }
rc=0
"$B" plain || rc=1
run_shimmed "$B" shim || rc=1
CUSHIM_DRIVER_VERSION=12.0 run_shimmed "$B" shim-12.0 || rc=1
exit $rc
