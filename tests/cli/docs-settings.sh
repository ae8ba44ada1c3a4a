# Sourced by docs.sh (which sets top_srcdir, T, fail, $docs and $rows, the
# settings cushim doctor lists): doc/SETTINGS.md states every row of the
# settings table (settings.c, wherever it is in src/) with its accepted
# values, default and cushim run option, word for word, and names no setting
# the table lacks; no document names a CUSHIM_* variable that is neither a
# setting, a test harness variable nor a name of the sources.

# ---- the settings table, as settings.c states it: name, option, accepted,
# default, what applies without one (NULL where the table says NULL).
settings_c=$(cd "$top_srcdir" && find src -name settings.c)
[ "$(echo "$settings_c" | grep -c .)" -eq 1 ] || { echo "docs.sh: not one settings.c in src/: $settings_c" >&2; exit 99; }
awk '{ buf = buf $0 "\n" }
END {
	s = index(buf, "cushim_settings[] = {"); if (!s) exit 1
	buf = substr(buf, s + 21); buf = substr(buf, 1, index(buf, "\n};"))
	while (length(buf)) {
		c = substr(buf, 1, 1)
		if (c == "{") { inrow = 1; nf = 0; cur = "" }
		else if (c == "\"") {
			match(buf, /^"([^"\\]|\\.)*"/); cur = cur substr(buf, 2, RLENGTH - 2)
			buf = substr(buf, RLENGTH + 1); continue
		} else if (substr(buf, 1, 4) == "NULL") { cur = "NULL"; buf = substr(buf, 5); continue }
		else if ((c == "," || c == "}") && inrow) {
			f[++nf] = cur; cur = ""
			if (c == "}") { print f[1] "\t" f[2] "\t" f[3] "\t" f[4] "\t" f[5]; inrow = 0 }
		}
		buf = substr(buf, 2)
	}
}' "$top_srcdir/$settings_c" >"$T/table.tsv" || fail "no settings table (cushim_settings[]) in $settings_c"
[ "$(cut -f1 "$T/table.tsv" | sort -u)" = "$(echo "$rows" | sort -u)" ] ||
	fail "the rows read from $settings_c ($(cut -f1 "$T/table.tsv" | tr '\n' ' ')) are not those cushim doctor lists ($(echo "$rows" | tr '\n' ' '))"

settings_md=$top_srcdir/doc/SETTINGS.md
while IFS='	' read -r name option accepted deflt otherwise; do
	awk -v h="## $name" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$settings_md" >"$T/entry"
	[ -s "$T/entry" ] || { fail "doc/SETTINGS.md has no section '## $name'"; continue; }
	grep -qxF -- "- Accepted: $accepted" "$T/entry" || fail "doc/SETTINGS.md: $name does not say '- Accepted: $accepted'"
	[ "$deflt" = NULL ] && deflt=$otherwise
	grep -qxF -- "- Default: $deflt" "$T/entry" || fail "doc/SETTINGS.md: $name does not say '- Default: $deflt'"
	if [ "$option" = NULL ]; then
		grep -q '^- cushim run option:' "$T/entry" && fail "doc/SETTINGS.md names a cushim run option for $name, which has none"
	else
		grep -qxF -- "- cushim run option: --$option" "$T/entry" || fail "doc/SETTINGS.md: $name does not say '- cushim run option: --$option'"
	fi
done <"$T/table.tsv"
for v in $(grep -o 'CUSHIM_[A-Z][A-Z_]*' "$settings_md" | sort -u); do
	cut -f1 "$T/table.tsv" | grep -qx "$v" || fail "doc/SETTINGS.md names $v, which is not in the settings table"
done
# Any other document: a setting, a harness variable, or a name of the sources.
for v in $(cat $docs "$top_srcdir/doc/cushim.1" | grep -o 'CUSHIM_[A-Z][A-Z0-9_]*' | sort -u); do
	cut -f1 "$T/table.tsv" | grep -qx "$v" && continue
	case $v in CUSHIM_TEST_* | CUSHIM_ORACLE_DIR) continue ;; esac
	grep -rqw --include='*.[ch]' "$v" "$top_srcdir/src" || fail "the docs name $v, which is no setting and nothing in src/"
done
