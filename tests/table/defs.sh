# Sourced by the tests/table/*.sh scripts: where things are.
# AM_TESTS_ENVIRONMENT exports top_builddir, top_srcdir and CUSHIM_ORACLE_DIR.
set -u
: "${top_builddir:?run me through make check}" "${top_srcdir:?run me through make check}"
PYTHON=${PYTHON:-python3}
TABLE=$top_srcdir/src/table/cuda-api.tsv
# the configured toolkit's include folder and preprocessor, as the build has them
CUDA_INCDIR=$(sed -n 's/^CUDA_INCDIR = //p' "$top_builddir/Makefile")
CPP=$(sed -n 's/^CPP = //p' "$top_builddir/Makefile")
[ -n "$CPP" ] || CPP="cc -E"
export CPP
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-table-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

finish() {
	[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
	exit 0
}
