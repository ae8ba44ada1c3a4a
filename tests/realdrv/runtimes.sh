#!/bin/sh
# Real CUDA runtimes (Debian's libcudart 11.8 and 12.4, PyPI's 11.8 and 12.9)
# refuse to initialise without a GPU; the bootstrap must take that in its
# stride.  With each runtime, on the real 535 and 550 drivers:
#   CUSHIM_CUDART    the program's cuInit fails, so the runtime is never asked
#                    (asking it would initialise the driver): every export still
#                    comes from the driver, and the log never says it was used;
#   program's own    the program initialises the runtime itself first (it
#                    fails: no device); cushim's bootstrap then adopts nothing;
# and on the fake 13.0 driver, whose cuInit succeeds, CUSHIM_CUDART is asked
# once the program's cuInit succeeded: the log says it gave no entry points,
# and every export still comes from the driver.  realdrv-app's own checks
# hold in every run (see realdrv-app.c).  In a cross build: the runtimes and
# drivers built for its host CPU, through EXE_WRAPPER.  Skips (77) when
# nothing can be fetched.
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
runtimes=$(fetched runtimes)
drivers=$(fetched drivers | grep -E '/(535|550)/$')
[ -n "$runtimes" ] || {
	unbuilt runtimes
	echo "runtimes: no real CUDA runtime could be fetched (see above); skipping"
	exit 77
}
NO_RT=$FAKE/no-rt # the machine's own runtimes, if any, out of the way

# ran WHO OUT RC: the program ran and its checks held; its row's origin field
# (else the failure, on stderr: a caller may take the output; fail is set
# where ran runs in the test's own shell).
ran() {
	if [ "$3" != 0 ] || ! grep -q '^realdrv-row: ' "$2"; then
		bad "$1" "exit $3" >&2
		head -n 20 "$2" >&2
		return 1
	fi
	sed -n 's/^realdrv-row: [0-9]* [0-9]* [0-9]* [0-9]* \([a-z]*\):.*/\1/p' "$2"
}

# on_real RUNTIME FILE DRIVER: both ways on a real driver.
on_real() {
	dv=$(driver_version "$3")
	for mode in CUSHIM_CUDART program; do
		who="$1 on $dv ($mode)"
		if [ $mode = CUSHIM_CUDART ]; then
			run_app "$T/out" "$T/log" LD_LIBRARY_PATH="$3:$NO_RT" CUSHIM_CUDART="$2"
		else
			run_app "$T/out" "$T/log" LD_LIBRARY_PATH="$3:$NO_RT" REALDRV_RUNTIME="$2"
		fi
		origin=$(ran "$who" "$T/out" $?) || { fail=1; continue; }
		[ "$origin" = driver ] || bad "$who" "exports came from \"$origin\", not the driver"
		! grep -q "using .*libcudart" "$T/log" || bad "$who" "the log says a runtime was used: $(grep using "$T/log")"
		said=$(sed -n 's/^realdrv-runtime: .*: cudaGetDeviceCount \([0-9]*\).*/cudaGetDeviceCount \1; /p' "$T/out")
		printf '%-10s %-12s %-14s %s\n' "$1" "$dv" "$mode" \
			"${said}cuInit $(row_field "$T/out" cuInit); exports from the driver: $(row_field "$T/out" exact)"
	done
}

# on_fake RUNTIME FILE: CUSHIM_CUDART asked after a successful cuInit.
on_fake() {
	who="$1 on the fake 13.0"
	run_app "$T/out" "$T/log" LD_LIBRARY_PATH="$FAKE/drv-13.0:$NO_RT" CUSHIM_CUDART="$2" REALDRV_ORIGIN=driver
	ran "$who" "$T/out" $? > /dev/null || return
	[ "$(row_field "$T/out" cuInit)" = 0/0 ] || bad "$who" "cuInit did not succeed on the fake driver"
	why=$(grep -F "CUSHIM_CUDART runtime $2" "$T/log" | grep -oE 'gave no entry points.*|refuses this driver.*')
	[ -n "$why" ] || { bad "$who" "the log does not say the runtime gave no entry points:"; cat "$T/log"; }
	after=$(sed -n 's/^realdrv-after-init: resolved \([0-9]*\), exact \([0-9]*\).*/\2\/\1/p' "$T/out")
	printf '%-10s %-12s %-14s %s\n' "$1" "fake 13.0" CUSHIM_CUDART \
		"cuInit 0/0; the runtime ${why%%;*}; exports from the driver: $after"
}

printf '%-10s %-12s %-14s %s\n' runtime driver 'runtime as' 'what happened'
for r in $runtimes; do
	name=$(basename "$r") file=$(runtime_file "$r")
	[ -n "$file" ] || { bad "$name" "no libcudart.so.N in $r"; continue; }
	for d in $drivers; do
		on_real "$name" "$r$file" "$d"
	done
	on_fake "$name" "$r$file"
done
unbuilt runtimes | sed 's/^/skipped: /'
[ -n "$drivers" ] || echo "runtimes: the real 535 and 550 drivers could not be fetched; only the fake driver was used"
exit $fail
