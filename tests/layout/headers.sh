#!/bin/sh
# One header per module: each function a header of src/ declares is defined
# by the C file of the header's own name (source.h's by source.c), where
# there is one (tools/depgraph.py --headers, from the objects' symbols by nm).
# A header that declares another module's function fails here, naming both.
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
nm=${NM:-nm}
python=${PYTHON:-python3}
obj=$(find "$builddir/src" -name '*.o' | head -n 1)
if [ -z "$obj" ]; then
	echo "headers.sh: no objects under $builddir/src" >&2
	exit 99
fi
if ! $nm -P "$obj" >/dev/null 2>&1; then
	echo "headers.sh: SKIP: '$nm' cannot read $obj" >&2
	exit 77
fi
"$python" "$srcdir/tools/depgraph.py" --nm "$nm" --srcdir "$srcdir" --headers "$builddir" 2>/dev/null
