# Sourced by the tests/table/*.sh scripts: the helpers of tests/cli (T, fail,
# finish, ...), the committed table, and the configured toolkit's include
# folder and preprocessor as the build has them.
. "$top_srcdir/tests/cli/defs.sh"
PYTHON=${PYTHON:-python3}
TABLE=$top_srcdir/src/table/cuda-api.tsv
CUDA_INCDIR=$(sed -n 's/^CUDA_INCDIR = //p' "$top_builddir/Makefile")
CPP=$(sed -n 's/^CPP = //p' "$top_builddir/Makefile")
[ -n "$CPP" ] || CPP="cc -E"
export CPP
