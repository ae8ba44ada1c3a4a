#!/bin/sh
# The floors of src/: every file edge between its folders goes down the
# order common < shim < diag < cli (a folder's subfolders on its floor): the
# shim tells the diagnostics what happens through the observers they define
# (src/shim/observers.h), never by name; the command links no library code
# but common's (tools/depgraph.py --floors, from the objects' symbols by nm).
# An arrow against the order fails here, with its count of file edges.
set -- --floors
. "${top_srcdir:-.}/tests/layout/depgraph.sh"
