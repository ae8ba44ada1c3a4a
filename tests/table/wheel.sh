#!/bin/sh
# The committed table is what tools/mktable.py makes of the wheels it names
# (nvidia-cuda-runtime 13.5.37, nvidia-cuda-profiler-api 13.5.25): the table
# holds facts the tool extracts, nothing edited by hand.  Skips (77) when
# PyPI cannot be reached; the build itself never needs it.
. "$top_srcdir/tests/table/defs.sh"
wheels=$(sed -n 's/^cuda\t[0-9]*\t//p' "$TABLE" | sed 's/ (PyPI)$//' | tr ',' '\n' |
	awk 'NF == 2 { printf "%s==%s ", $1, $2 }')
[ -n "$wheels" ] || { echo "wheel: the table names no wheel"; exit 99; }
if ! timeout 180 "$PYTHON" -m pip download -q --no-deps --only-binary=:all: -d "$T/w" $wheels >"$T/pip.log" 2>&1; then
	echo "wheel: cannot fetch $wheels from PyPI; skipping"
	cat "$T/pip.log"
	exit 77
fi
cp "$TABLE" "$T/table.tsv"
PYTHON=$PYTHON sh "$top_srcdir/tools/update-table.sh" "$T/table.tsv" "" "$(echo "$T"/w/*.whl)" || fail "update-table.sh"
"$PYTHON" "$top_srcdir/tests/table/tabletest.py" same --table "$TABLE" --other "$T/table.tsv" || fail "not the same table"
finish
