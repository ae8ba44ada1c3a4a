#!/bin/sh
# Emulation on the GPU machine's real driver:
#   lookups    cushim posing as libcuda.so.1 answers every lookup (gpa-probe)
#              exactly as the driver; emulating each older real driver's
#              version, exactly as that driver answered (the answers that
#              tests/realdrv/lookups.sh kept from Debian's drivers in
#              tests/realdrv/answers of the build folder);
#   integrity  the driver's integrity check answers what cushim computes
#              (integrity-gpu, plain);
#   runtimes   each real CUDA runtime at hand (the realdrv cache's, and the
#              machine's own) moves data through the GPU plain, in
#              masquerade, and in masquerade emulating 12.0, 12.2 and 12.4:
#              the same result and checksum as plain, or the runtime's own
#              refusal of a driver older than its major release
#              (cudaErrorInsufficientDriver, 35).
# Exits 77 without a GPU (fails with CUSHIM_TEST_REQUIRE_GPU=1).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
PROBE=$top_builddir/tests/realdrv/gpa-probe
COUNT=$top_builddir/tests/realdrv/rt-count
ANSWERS=$top_builddir/tests/realdrv/answers
unset CUSHIM_HIDE
mkdir "$T/masq" && ln -s "$SHIM" "$T/masq/libcuda.so.1" || exit 99
real=$(LD_LIBRARY_PATH= "$top_builddir/tests/realdrv/gpa-probe" version) || { bad driver "no cuDriverGetVersion"; exit 1; }
echo "driver: CUDA $real"

echo "lookups (result, status, function) of every base name at every version, three flags:"
if [ -s "$ANSWERS/bases" ]; then
	for abi in v1 v2; do
		"$PROBE" $abi "$ANSWERS/bases" "$ANSWERS/versions" > "$T/plain.$abi" || { bad $abi "probe failed"; continue; }
		LD_LIBRARY_PATH=$T/masq "$PROBE" $abi "$ANSWERS/bases" "$ANSWERS/versions" > "$T/masq.$abi"
		n=$(differ "$T/plain.$abi" "$T/masq.$abi" "masquerade $abi")
		echo "  masquerade, $abi: $n of $(wc -l < "$T/plain.$abi") differ"
		[ "$n" = 0 ] || bad "masquerade $abi" "$n answers differ from the driver's"
	done
	for f in "$ANSWERS"/*.v[12].gz; do
		v=$(basename "$f" | cut -d. -f1) abi=$(basename "$f" | cut -d. -f2)
		[ "$v" -lt "$real" ] || continue
		gzip -dc "$f" > "$T/older"
		LD_LIBRARY_PATH=$T/masq CUSHIM_DRIVER_VERSION=$v "$PROBE" $abi "$ANSWERS/bases" "$ANSWERS/versions" > "$T/emu"
		n=$(differ "$T/older" "$T/emu" "emulating $v $abi")
		echo "  emulating CUDA $v, $abi, against the real driver of $v: $n of $(wc -l < "$T/older") differ"
		[ "$n" = 0 ] || bad "emulating $v $abi" "$n answers differ from the real driver's"
	done
else
	echo "  no recorded answers in $ANSWERS (make check-compat records them); not compared"
fi

echo "integrity check:"
"$top_builddir/tests/gpu/integrity-gpu" > "$T/integrity"
rc=$?
sed 's/^/  /' "$T/integrity"
[ $rc = 0 ] || bad integrity "exit $rc: the driver's answer is not cushim's"

# The runtimes: the cache's and the machine's (by soname, as the loader finds them).
{
	for r in $(ls -d "$CACHE"/rt/*/ 2>/dev/null); do f=$(runtime_file "$r") && [ -n "$f" ] && echo "$r$f"; done
	for s in libcudart.so.13 libcudart.so.12; do
		ldconfig -p 2>/dev/null | awk -v s="$s" '$1 == s { print $NF; exit }'
		ls /usr/local/cuda/lib64/$s /usr/local/lib/python3*/dist-packages/nvidia/cu*/lib/$s \
			/usr/local/lib/python3*/dist-packages/nvidia/cuda_runtime/lib/$s 2>/dev/null
	done
} | while read -r p; do readlink -f "$p"; done | awk '!seen[$0]++' > "$T/runtimes"
echo "runtimes (result of the work, checksum):"
while read -r rt; do
	major=$(basename "$rt" | sed 's/^libcudart\.so\.\([0-9]*\).*/\1/')
	plain=$("$COUNT" "$rt" work | sed -n 's/^work //p')
	echo "  $rt (CUDA $major.x runtime): plain $plain"
	[ "${plain%% *}" = 0 ] || { bad "$rt" "plain: $plain"; continue; }
	m=$(LD_LIBRARY_PATH=$T/masq "$COUNT" "$rt" work | sed -n 's/^work //p')
	echo "    masquerade: $m"
	[ "$m" = "$plain" ] || bad "$rt" "masquerade: $m"
	for v in 12000 12020 12040; do
		[ "$v" -lt "$real" ] || continue
		want=$plain
		[ "$v" -ge $((major * 1000)) ] || want="35 0000000000000000"
		e=$(LD_LIBRARY_PATH=$T/masq CUSHIM_DRIVER_VERSION=$v "$COUNT" "$rt" work | sed -n 's/^work //p')
		echo "    masquerade emulating $v: $e (want $want)"
		[ "$e" = "$want" ] || bad "$rt" "emulating $v: $e"
	done
done < "$T/runtimes"
exit $fail
