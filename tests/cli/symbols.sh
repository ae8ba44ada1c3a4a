#!/bin/sh
# cushim symbols: exactly the table's rows, filtered by version; the version
# column agrees with what the real driver answered (tests/oracle).
. "$top_srcdir/tests/harness/defs.sh"
tsv=$top_builddir/src/cushim-syms.tsv
rows() { # the table rows at or above a CUDA_VERSION, as "name base X.Y flavour"
	awk -F'\t' -v min="$1" 'NR > 1 && $3 + 0 >= min { printf "%s %s %d.%d %s\n", $1, $2, $3 / 1000, ($3 % 1000) / 10, $4 }' "$tsv" | sort
}

run_cmd all "$CUSHIM" symbols
expect_rc all 0
awk '{ print $1, $2, $3, $4 }' "$T/all.out" | sort >"$T/all.got"
rows 0 >"$T/all.want"
cmp -s "$T/all.got" "$T/all.want" || fail "cushim symbols differs from $tsv: $(diff "$T/all.want" "$T/all.got" | head -5)"

run_cmd since "$CUSHIM" symbols --since 12.8
expect_rc since 0
awk '{ print $1, $2, $3, $4 }' "$T/since.out" | sort >"$T/since.got"
rows 12080 >"$T/since.want"
[ -s "$T/since.want" ] || { echo "no table rows at 12.8 or later?" >&2; exit 99; }
[ "$(wc -l <"$T/since.want")" -lt "$(wc -l <"$T/all.want")" ] || { echo "12.8 filters nothing?" >&2; exit 99; }
cmp -s "$T/since.got" "$T/since.want" || fail "--since 12.8 differs from the table rows >= 12080: $(diff "$T/since.want" "$T/since.got" | head -5)"
run_cmd since2 "$CUSHIM" symbols --since=12080
cmp -s "$T/since.out" "$T/since2.out" || fail "--since=12080 differs from --since 12.8"

# The version column against the real driver: the lowest cudaVersion at which
# cuGetProcAddress returned that very export.
awk -F'\t' 'NR > 1 && $5 == 0 && $6 != "-" { v = $3 + 0; if (!($6 in m) || v < m[$6]) m[$6] = v }
	END { for (n in m) printf "%s %d.%d\n", n, m[n] / 1000, (m[n] % 1000) / 10 }' "$ORACLE" | sort >"$T/oracle"
awk '{ print $1, $3 }' "$T/all.got" | sort >"$T/mine"
common=$(join "$T/oracle" "$T/mine" | wc -l)
[ "$common" -gt 600 ] || fail "only $common exports in common with the oracle"
bad=$(join "$T/oracle" "$T/mine" | awk '$2 != $3')
[ -z "$bad" ] || fail "versions disagree with the real driver: $(echo "$bad" | head -5)"

# --missing against a version: the rows above it.
run_cmd missing "$CUSHIM" symbols --missing --driver-version=12.0
expect_rc missing 0
awk '{ print $1, $2, $3, $4 }' "$T/missing.out" | sort >"$T/missing.got"
rows 12010 >"$T/missing.want"
cmp -s "$T/missing.got" "$T/missing.want" || fail "--missing --driver-version=12.0 differs from the rows above 12.0"

# --json: valid, and the same rows.
run_cmd json "$CUSHIM" symbols --json --since 12.8
expect_rc json 0
python3 -m json.tool "$T/json.out" >/dev/null 2>&1 || fail "symbols --json is not valid JSON"
python3 -c 'import json,sys
for r in json.load(open(sys.argv[1])): print(r["name"], r["base"], r["version"], r["flavour"])' "$T/json.out" | sort >"$T/json.got"
cmp -s "$T/json.got" "$T/since.want" || fail "symbols --json --since 12.8 has other rows"

run_cmd bad "$CUSHIM" symbols --since twelve
expect_rc bad 2
run_cmd bad2 "$CUSHIM" symbols extra
expect_rc bad2 2
finish
