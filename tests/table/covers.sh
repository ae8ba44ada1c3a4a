#!/bin/sh
# The committed table covers every variant the configured toolkit declares,
# with the same names and parameter kinds (a newer toolkit than the table
# fails here: refresh the table with make update-table).
. "$top_srcdir/tests/table/defs.sh"
"$PYTHON" "$top_srcdir/tests/table/tabletest.py" covers --include "$CUDA_INCDIR" --table "$TABLE" || fail "covers"
finish
