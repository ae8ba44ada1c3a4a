#!/bin/sh
# The downgrade adapters on a real GPU: under emulation of 12.8 every call of adapt-gpu is
# served (the batch copy by its 12.8 variant) with results identical to those
# without emulation; under 12.0 the context and device calls are served and
# the batch copy is reported missing.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
p=$top_builddir/tests/gpu/adapt-gpu
plain=$("$p"); rc=$?
echo "$plain"; [ $rc = 0 ] || { echo "FAIL: the program fails on the real driver ($rc)"; exit 1; }
e128=$(CUSHIM_DRIVER_VERSION=12.8 run_shimmed "$p" 2>"${TMPDIR:-/tmp}/adapt-12.8.err"); rc128=$?
cat "${TMPDIR:-/tmp}/adapt-12.8.err"
[ "$e128" = "$plain" ] && [ $rc128 = 0 ] || { echo "FAIL: under 12.8:"; echo "$e128"; exit 1; }
grep -q 'cuMemcpyBatchAsync_v2 served by cuMemcpyBatchAsync' "${TMPDIR:-/tmp}/adapt-12.8.err" ||
	{ echo "FAIL: the 12.8 run does not say the batch copy was served by its 12.8 variant"; exit 1; }
e120=$(CUSHIM_DRIVER_VERSION=12.0 run_shimmed "$p" 2>"${TMPDIR:-/tmp}/adapt-12.0.err")
cat "${TMPDIR:-/tmp}/adapt-12.0.err"; echo "$e120"
echo "$e120" | grep -q '^cuCtxCreate_v4  *CUDA_SUCCESS$' &&
echo "$e120" | grep -q '^cuCtxSynchronize_v2  *CUDA_SUCCESS$' &&
echo "$e120" | grep -q '^cuCtxGetDevice_v2  *CUDA_SUCCESS$' &&
echo "$e120" | grep -q '^device matches$' &&
echo "$e120" | grep -q '^cuMemcpyBatchAsync_v2  *CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER$' &&
grep -q 'cuMemcpyBatchAsync_v2 needs a CUDA 13.0 driver; this driver is CUDA 12.0' "${TMPDIR:-/tmp}/adapt-12.0.err" ||
	{ echo "FAIL: under 12.0"; exit 1; }
echo "adapt: identical under 12.8; under 12.0 context and device served, batch copy missing"
