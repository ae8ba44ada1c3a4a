#!/bin/sh
# The real driver behind a masquerade: the one `cushim doctor` predicts is
# the one the library opens, for each order of the fake drivers on
# LD_LIBRARY_PATH, with a file that is no ELF object first, with an empty
# entry (the current folder) and with CUSHIM_DRIVER.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
for d in drv-11.4/libcuda.so.1 drv-13.0/libcuda.so.1 bad-drv/libcuda.so.1 no-rt; do
	[ -e "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
prog=$top_builddir/tests/cli/cuda13-app
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER CUSHIM_CUDART
# The masquerade folder: cushim as libcuda.so.1, first on every path below.
mkdir "$T/masq" && ln -s "$SHIMLIB" "$T/masq/libcuda.so.1" || exit 99

# same LABEL WANT_DRIVER WANT_VERSION [FOLDER...]: with LD_LIBRARY_PATH the
# masquerade folder then FOLDERs then no-rt, doctor's prediction, the driver
# the library opens and the version the program sees are WANT_DRIVER's.
same() {
	label=$1 want=$2 version=$3
	shift 3
	llp=$T/masq
	for d in "$@"; do llp=$llp:$d; done
	llp=$llp:$fake/no-rt
	LD_LIBRARY_PATH=$llp run_cmd "$label-doctor" "$CUSHIM" doctor
	LD_LIBRARY_PATH=$llp CUSHIM_LOG=info run_cmd "$label-lib" $EXE_WRAPPER "$prog"
	predicted=$(sed -n 's/^masquerade: *would use \(the real driver \|CUSHIM_DRIVER=\)//p' "$T/$label-doctor.out")
	opened=$(sed -n 's/^cushim: masquerade: cushim is libcuda.so.1; the real driver is //p' "$T/$label-lib.err")
	[ -n "$predicted" ] || fail "$label: doctor predicts no driver: $(cat "$T/$label-doctor.out")"
	[ -n "$opened" ] || fail "$label: the library opens no driver: $(cat "$T/$label-lib.err")"
	[ "$(realpath "$predicted")" = "$(realpath "$opened")" ] ||
		fail "$label: doctor predicts $predicted, the library opens $opened"
	[ "$(realpath "$opened")" = "$(realpath "$want")" ] || fail "$label: the library opens $opened, wanted $want"
	grep -qxF "driver: $version" "$T/$label-lib.out" ||
		fail "$label: the program does not see driver $version: $(cat "$T/$label-lib.out")"
}

same order-11 "$fake/drv-11.4/libcuda.so.1" 11040 "$fake/drv-11.4" "$fake/drv-13.0"
same order-13 "$fake/drv-13.0/libcuda.so.1" 13000 "$fake/drv-13.0" "$fake/drv-11.4"
# Not an ELF object: the command sees no ELF file, the library's dlopen fails.
same not-elf "$fake/drv-11.4/libcuda.so.1" 11040 "$fake/bad-drv" "$fake/drv-11.4" "$fake/drv-13.0"
grep -q "cannot load $fake/bad-drv/libcuda.so.1" "$T/not-elf-lib.err" ||
	fail "not-elf: the library did not try $fake/bad-drv first: $(cat "$T/not-elf-lib.err")"
# An empty entry is the current folder, for the loader and for both.
(cd "$fake/drv-11.4" && same empty "$fake/drv-11.4/libcuda.so.1" 11040 "" "$fake/drv-13.0" && exit "$failures")
failures=$((failures + $?))
# CUSHIM_DRIVER comes before the search, in both.
CUSHIM_DRIVER=$fake/drv-13.0/libcuda.so.1
export CUSHIM_DRIVER
same setting "$fake/drv-13.0/libcuda.so.1" 13000 "$fake/drv-11.4"
# A CUSHIM_DRIVER that is no driver: both say so and search the usual places.
CUSHIM_DRIVER=$fake/bad-drv/libcuda.so.1
same bad-setting "$fake/drv-11.4/libcuda.so.1" 11040 "$fake/drv-11.4"
grep -q "^masquerade: *CUSHIM_DRIVER=$fake/bad-drv/libcuda.so.1 is not a usable driver" "$T/bad-setting-doctor.out" ||
	fail "bad-setting: doctor does not flag CUSHIM_DRIVER: $(cat "$T/bad-setting-doctor.out")"
grep -q "CUSHIM_DRIVER=$fake/bad-drv/libcuda.so.1 is not a usable driver" "$T/bad-setting-lib.err" ||
	fail "bad-setting: the library does not flag CUSHIM_DRIVER: $(cat "$T/bad-setting-lib.err")"
finish
