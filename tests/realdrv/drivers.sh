#!/bin/sh
# The real-driver matrix: tests/realdrv/realdrv-app (built against the
# configured toolkit, linked -z now) on each real NVIDIA driver library that
# fetch.sh brings from Debian (390 to 555: CUDA 9.1 to 12.5), no GPU needed.
# Without cushim the loader refuses it; under LD_PRELOAD=libcushim.so it runs
# and its own checks pass (see realdrv-app.c), every missing export it calls
# is logged once, the log names the way entry points were asked for, and
# cuDeviceGetCount still answers 3 (not initialised) after cushim's bootstrap.
# One matrix line per driver; in a cross build, the drivers built for its host
# CPU, each run through EXE_WRAPPER, and a line for each that Debian has no
# build of for that CPU.  Skips (77) when no driver can be fetched.
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
drivers=$(fetched drivers)
[ -n "$drivers" ] || {
	unbuilt drivers
	echo "drivers: no real driver could be fetched (see above); skipping"
	exit 77
}

# log_checks DRIVER LOG OUT: each missing export logged once; the log names
# the way entry points were asked for, as cushim_entry_via() does.
log_checks() {
	called=$(row_field "$3" missing-36)
	logged=$(grep 'returning CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER' "$2" | awk '{ print $2 }' | sort)
	[ "$(echo "$logged" | grep -c .)" = "$called" ] ||
		bad "$1" "$called missing exports called, $(echo "$logged" | grep -c .) logged"
	[ -z "$(echo "$logged" | uniq -d)" ] || bad "$1" "logged more than once: $(echo "$logged" | uniq -d | head -3)"
	via=$(sed -n 's/.* via="\(.*\)"$/\1/p' "$3")
	grep -qF "$via" "$2" || bad "$1" "the log does not say \"$via\""
}

# row DRIVER OUT REFUSED: the matrix line.
FORMAT='%-11s %-4s %5s %8s %7s %7s  %-10s %-8s %-8s %-10s %-7s %-6s %s\n'
row() {
	# shellcheck disable=SC2046
	set -- "$1" "$3" $(sed -n 's/^realdrv-row: //p' "$2")
	printf "$FORMAT" "$1" "$(($3 / 1000)).$(($3 % 1000 / 10))" "$3" "$4" "$5" "$6" "$7" "${8#exact=}" \
		"${9#imports=}" "${11#missing-36=}" "${12#count=}" "${13#cuInit=}" "$2"
}

# shellcheck disable=SC2059
printf "$FORMAT" driver CUDA seen resolved adapted missing origin exact imports 'missing:36' count cuInit \
	'without cushim'
for d in $drivers; do
	name=$(driver_version "$d")
	[ -n "$name" ] || { bad "$d" "no libcuda.so.X.Y in it"; continue; }
	# without cushim: the loader refuses the CUDA 13.0 imports
	# shellcheck disable=SC2086
	if LD_LIBRARY_PATH=$d $EXE_WRAPPER "$APP" > "$T/plain.$name" 2>&1; then
		refused="loads"
		bad "$name" "the program loaded without cushim"
	else
		refused="refused ($(grep -o 'undefined symbol: [A-Za-z0-9_]*' "$T/plain.$name" | head -n 1 | cut -d' ' -f3))"
	fi
	run_app "$T/out.$name" "$T/log.$name" LD_LIBRARY_PATH="$d"
	rc=$?
	grep -q '^realdrv-row: ' "$T/out.$name" && [ $rc = 0 ] || {
		bad "$name" "exit $rc under cushim"
		head -n 20 "$T/out.$name"
		continue
	}
	[ "$(row_field "$T/out.$name" count)" = 3/3 ] || bad "$name" "cuDeviceGetCount did not answer 3 before cuInit"
	log_checks "$name" "$T/log.$name" "$T/out.$name"
	row "$name" "$T/out.$name" "$refused"
done
unbuilt drivers | sed 's/^/skipped: /'
echo "drivers: libcushim.so $SHIM"
exit $fail
