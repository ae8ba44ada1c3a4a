#!/bin/sh
# The floors of src/: every file edge between its folders goes down the
# order common < shim < diag < cli (a folder's subfolders on its floor): the
# shim tells the diagnostics what happens through the observers they define
# (src/shim/observers.h), never by name; the command links no library code
# but common's (tools/depgraph.py --floors, from the objects' symbols by nm).
# An arrow against the order fails here, with its count of file edges.
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
nm=${NM:-nm}
python=${PYTHON:-python3}
obj=$(find "$builddir/src" -name '*.o' | head -n 1)
if [ -z "$obj" ]; then
	echo "floors.sh: no objects under $builddir/src" >&2
	exit 99
fi
if ! $nm -P "$obj" >/dev/null 2>&1; then
	echo "floors.sh: SKIP: '$nm' cannot read $obj" >&2
	exit 77
fi
"$python" "$srcdir/tools/depgraph.py" --nm "$nm" --srcdir "$srcdir" --floors "$builddir" 2>/dev/null
