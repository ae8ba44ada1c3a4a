#!/bin/sh
# No cycle between the files of the libraries and the command: each object's
# undefined symbols, resolved by nm to the object that defines them, make a
# graph (tools/depgraph.py) whose only cycle may be the generated stubs and
# the slots they read.  A new cycle fails here, with the files that make it.
. "${top_srcdir:-.}/tests/layout/depgraph.sh"
