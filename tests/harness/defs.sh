# The shell harness, sourced by the scripts of tests/cli, tests/table and the
# other folders: where things are, and small helpers.  The build's values come
# from AM_TESTS_ENVIRONMENT (Makefile.am), never from the built Makefile:
# top_builddir, top_srcdir, CUSHIM_ORACLE_DIR, EXE_WRAPPER, NVCC, BUILD_CC,
# BUILD_CPP, BUILD_OBJDUMP, HOST_CPU, CUDA_DIR and CUDA_INCDIR.
set -u
: "${top_builddir:?run me through make check}" "${top_srcdir:?run me through make check}"
CUSHIM=${CUSHIM:-$top_builddir/cushim}
SHIMLIB=$(realpath "$top_builddir/.libs/libcushim.so")
ORACLE=${CUSHIM_ORACLE_DIR:-$top_srcdir/tests/oracle}/cuGetProcAddress-driver-580.159.04.tsv
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-cli-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
# A cross build: EXE_WRAPPER (the emulator) runs the command, through a
# script so that "$CUSHIM" stays one word, and any program of the build that a
# test has cushim run ($EXE_WRAPPER prog, unquoted: empty natively).
EXE_WRAPPER=${EXE_WRAPPER:-}
if [ -n "$EXE_WRAPPER" ] && [ "$CUSHIM" = "$top_builddir/cushim" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$EXE_WRAPPER" "$CUSHIM" >"$T/cushim" && chmod +x "$T/cushim" || exit 99
	CUSHIM=$T/cushim
fi
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run_cmd NAME CMD...: runs CMD, leaving stdout in $T/NAME.out, stderr in
# $T/NAME.err and the exit status in $rc.
run_cmd() {
	name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
}

expect_rc() { # NAME WANTED
	[ "$rc" -eq "$2" ] || fail "$1: exit status $rc, wanted $2 (stderr: $(head -c 400 "$T/$1.err"))"
}

# The CUDA version that introduced an exported name, by the real driver's
# answers (tests/oracle), as X.Y; empty when the driver never returned it.
oracle_version() {
	awk -F'\t' -v n="$1" 'NR > 1 && $5 == 0 && $6 == n { if (m == "" || $3 + 0 < m) m = $3 + 0 }
		END { if (m != "") printf "%d.%d\n", m / 1000, (m % 1000) / 10 }' "$ORACLE"
}

# Every CUSHIM_* variable the sources name (the rows of the settings table,
# what the command sets, what messages name), less the test harness's own;
# the sources are sought wherever in src/ they are.
source_variables() {
	find "$top_srcdir/src" -name '*.c' -exec cat {} + | grep -o '"CUSHIM_[A-Z][A-Z_]*["=]' |
		grep -o 'CUSHIM_[A-Z_]*' | grep -v '^CUSHIM_TEST_\|^CUSHIM_ORACLE_DIR$' | sort -u
}

# on_fake_driver PROGRAM: $app is the built PROGRAM (a path below the build
# folder), the fake 13.0 driver is on LD_LIBRARY_PATH, and none of the
# caller's cushim settings is left; skipped (77) without the fake drivers.
on_fake_driver() {
	fake=$top_builddir/tests/fake
	app=$top_builddir/$1
	PYTHON=${PYTHON:-python3}
	[ -d "$fake/drv-13.0" ] || { echo "no $fake/drv-13.0: the fake drivers are not built" >&2; exit 77; }
	[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
	unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_CUDART \
		CUSHIM_TIMELINE CUSHIM_HIDE CUSHIM_RUN
	export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt CUSHIM_ADAPT=0
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)" >&2
		exit 1
	fi
	exit 0
}
