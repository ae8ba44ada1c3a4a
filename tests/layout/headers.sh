#!/bin/sh
# One header per module: each function a header of src/ declares is defined
# by the C file of the header's own name (source.h's by source.c), where
# there is one (tools/depgraph.py --headers, from the objects' symbols by nm).
# A header that declares another module's function fails here, naming both.
set -- --headers
. "${top_srcdir:-.}/tests/layout/depgraph.sh"
