#!/bin/sh
# On a GPU: once the program's own cuInit succeeded, cushim adopts a runtime's
# cudaGetDriverEntryPoint(ByVersion).  With CUSHIM_CUDART pointing at each
# real runtime in the cache (Debian's 11.8 and 12.4, PyPI's 11.8 and 12.9:
# make fetch-runtimes, then carry the build folder to the GPU machine),
# realdrv-app runs on the machine's driver and its checks hold; the log says
# that runtime was used, exports came from it, and every export forwards to
# the same driver function as in a run without CUSHIM_CUDART.  The app calls
# no driver function but cuDriverGetVersion, cuGetErrorName/String,
# cuGetProcAddress, cuDeviceGetCount and cuInit (the exports the driver lacks
# return 36 from cushim without reaching it).
# Exits 77 without a GPU (fails with CUSHIM_TEST_REQUIRE_GPU=1).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
runtimes=$(fetched runtimes)
[ -n "$runtimes" ] ||
	{ echo "runtimes-gpu: no real CUDA runtime in $CACHE/rt (make fetch-runtimes); skipping"; exit 77; }

# gpu_run WHO OUT LOG DUMP [VAR=VALUE...]: the app ran, cuInit succeeded.
gpu_run() {
	who=$1 out=$2 log=$3 dump=$4
	shift 4
	run_app "$out" "$log" REALDRV_DUMP="$dump" "$@"
	rc=$?
	if [ $rc != 0 ] || [ "$(row_field "$out" cuInit)" != 0/0 ]; then
		bad "$who" "exit $rc, cuInit $(row_field "$out" cuInit)"
		head -n 20 "$out"
		return 1
	fi
	sed -n 's/^realdrv-after-init: /  /p' "$out"
}

echo "default (no CUSHIM_CUDART):"
gpu_run default "$T/out" "$T/log" "$T/default.dump" || exit 1
grep -E 'driver initialised|using ' "$T/log" | sed 's/^/  /'
for r in $runtimes; do
	name=$(basename "$r") file=$r$(runtime_file "$r")
	echo "CUSHIM_CUDART=$file:"
	gpu_run "$name" "$T/out.$name" "$T/log.$name" "$T/$name.dump" CUSHIM_CUDART="$file" || continue
	grep -F "using CUSHIM_CUDART runtime $file" "$T/log.$name" | sed 's/^/  /' | grep . ||
		bad "$name" "the log does not say this runtime was used: $(grep -E 'initialised|runtime' "$T/log.$name")"
	from_rt=$(sed -n 's/.* runtime \([0-9]*\); via .*/\1/p' "$T/out.$name")
	[ "${from_rt:-0}" -gt 0 ] || bad "$name" "no export came from the runtime"
	if cmp -s "$T/default.dump" "$T/$name.dump"; then
		echo "  every export forwards to the same function as by default ($(wc -l < "$T/$name.dump") exports)"
	else
		bad "$name" "exports differ from the default run:"
		diff "$T/default.dump" "$T/$name.dump" | head -n 20
	fi
done
exit $fail
