#!/bin/sh
# A CUDA runtime's validity check under emulation, with real runtimes
# (Debian's 11.8 and 12.4, PyPI's 11.8 and 12.9) on a stand-in driver
# (rt-driver.c: one device, the private tables, the integrity check as the
# real drivers compute it; it is CUDA 12.8), no GPU needed.  Each runtime:
#   plain                       counts 1 device (the stand-in holds);
#   plain, a driver that hashes another version than it reports
#                               refused: cudaErrorSoftwareValidityNotEstablished
#                               (the runtime checks, so this test can fail);
#   masquerade                  counts 1 device;
#   masquerade emulating 12.0, 12.2, 12.4 and 11.4
#                               counts 1 device and sees the emulated version,
#                               except where the runtime refuses an older
#                               driver by its rules (a 12.x runtime on 11.4:
#                               cudaErrorInsufficientDriver, 35).
# In a cross build: the runtimes of its host CPU, through EXE_WRAPPER.  Skips
# (77) when no runtime can be fetched.
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
runtimes=$(fetched runtimes)
[ -n "$runtimes" ] || { unbuilt runtimes; echo "validity: no real CUDA runtime at hand; skipping"; exit 77; }
COUNT=$top_builddir/tests/realdrv/rt-count
STANDIN=$top_builddir/tests/realdrv/rt-driver
mkdir "$T/masq" && ln -s "$SHIM" "$T/masq/libcuda.so.1" || exit 99

# count RUNTIME WHERE [VAR=VALUE...]: "RESULT N VERSION" as the runtime says.
count() {
	rt=$1 where=$2
	shift 2
	# shellcheck disable=SC2086
	env LD_LIBRARY_PATH="$where" CUSHIM_DRIVER="$STANDIN/libcuda.so.1" CUSHIM_LOG=info \
		CUSHIM_LOG_FILE="$T/log" "$@" $EXE_WRAPPER "$COUNT" "$rt" 2>&1 | sed -n 's/^count \([-0-9]*\) \([-0-9]*\) driver \([-0-9]*\)$/\1 \2 \3/p'
}

# expect WHO GOT WANT
expect() {
	printf '  %-44s %s\n' "$1" "$2"
	[ "$2" = "$3" ] || bad "$1" "got \"$2\", want \"$3\""
}

for r in $runtimes; do
	f=$(runtime_file "$r")
	[ -n "$f" ] || continue
	rt=$r$f
	echo "$(basename "$r") ($f): result, devices, driver version"
	expect plain "$(count "$rt" "$STANDIN")" "0 1 12080"
	expect "plain, a driver hashing 13.0" "$(count "$rt" "$STANDIN" RT_DRIVER_HASH=13000)" "103 -1 12080"
	expect masquerade "$(count "$rt" "$T/masq")" "0 1 12080"
	for v in 12000 12020 12040 11040; do
		want="0 1 $v"
		case $f in libcudart.so.12) [ $v -ge 12000 ] || want="35 -1 $v" ;; esac
		rm -f "$T/log"
		expect "masquerade, emulating $v" "$(count "$rt" "$T/masq" CUSHIM_DRIVER_VERSION=$v)" "$want"
		[ "${want%% *}" != 0 ] || grep -q "validity check is answered over CUDA $((v / 1000)).$((v % 1000 / 10))" \
			"$T/log" || bad "emulating $v" "the log does not say the validity check was answered"
	done
done
echo "validity: libcushim.so $SHIM"
exit $fail
