#!/bin/sh
# The core shim on a real GPU: every export forwards to the driver's function of
# the same name, and a real program gives the same answer with and without it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
set -e
# every export, none hidden (this only compares pointers: nothing is called)
env -u CUSHIM_HIDE LD_PRELOAD="$SHIM" "$top_builddir/tests/gpu/real-exports"
plain=$("$top_builddir/tests/gpu/saxpy")
shimmed=$(run_shimmed "$top_builddir/tests/gpu/saxpy")
traced=$(CUSHIM_LOG=trace CUSHIM_LOG_FILE="${TMPDIR:-/tmp}/cushim-core-trace.%p" run_shimmed "$top_builddir/tests/gpu/saxpy")
echo "plain:   $plain"
echo "shimmed: $shimmed"
echo "traced:  $traced"
test "$plain" = "$shimmed" && test "$plain" = "$traced"
