#!/bin/sh
# The naming rule (tools/cudaapi.py), run on the configured toolkit's headers,
# reproduces the real driver's export list (tests/oracle) for the names both
# know, and every row of the toolkit and of the table is the export the
# driver's cuGetProcAddress returned for its (base, version, flavour).
. "$top_srcdir/tests/table/defs.sh"
"$PYTHON" "$top_srcdir/tests/table/tabletest.py" oracle --include "$CUDA_INCDIR" --table "$TABLE" \
	--oracle "${CUSHIM_ORACLE_DIR:-$top_srcdir/tests/oracle}" || fail "oracle"
finish
