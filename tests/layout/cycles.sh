#!/bin/sh
# No cycle between the files of the libraries and the command: each object's
# undefined symbols, resolved by nm to the object that defines them, make a
# graph (tools/depgraph.py) whose only cycle may be the generated stubs and
# the slots they read.  A new cycle fails here, with the files that make it.
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
nm=${NM:-nm}
python=${PYTHON:-python3}
# A cross build's nm may not read its objects: skip, saying so.
obj=$(find "$builddir/src" -name '*.o' | head -n 1)
if [ -z "$obj" ]; then
	echo "cycles.sh: no objects under $builddir/src" >&2
	exit 99
fi
if ! $nm -P "$obj" >/dev/null 2>&1; then
	echo "cycles.sh: SKIP: '$nm' cannot read $obj" >&2
	exit 77
fi
"$python" "$srcdir/tools/depgraph.py" --nm "$nm" --srcdir "$srcdir" "$builddir"
