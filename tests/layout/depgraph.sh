# Sourced by the tests of tests/layout: runs tools/depgraph.py on the build's
# objects with the options the test set (set -- ...), its exit status the
# test's.  A cross build's nm may not read these objects: then it skips.
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
nm=${NM:-nm}
python=${PYTHON:-python3}
obj=$(find "$builddir/src" -name '*.o' | head -n 1)
if [ -z "$obj" ]; then
	echo "depgraph.sh: no objects under $builddir/src" >&2
	exit 99
fi
if ! $nm -P "$obj" >/dev/null 2>&1; then
	echo "depgraph.sh: SKIP: '$nm' cannot read $obj" >&2
	exit 77
fi
"$python" "$srcdir/tools/depgraph.py" --nm "$nm" --srcdir "$srcdir" "$@" "$builddir"
