# Sourced by the tests/table/*.sh scripts: the helpers of tests/cli (T, fail,
# finish, ...), the committed table, and the configured toolkit's include
# folder and preprocessor as the build has them (AM_TESTS_ENVIRONMENT).
. "$top_srcdir/tests/harness/defs.sh"
PYTHON=${PYTHON:-python3}
TABLE=$top_srcdir/src/table/cuda-api.tsv
: "${CUDA_INCDIR:?run me through make check}"
CPP=${BUILD_CPP:-cc -E}
export CPP
