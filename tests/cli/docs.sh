#!/bin/sh
# The docs against the code: the man page documents every subcommand, every
# option the command accepts and every CUSHIM_* variable the library reads;
# doc/SETTINGS.md states each setting as the settings table does; the docs
# name no variable, file or section that is not there; doc/LAYOUT.md matches
# the tree; the README stays a front door; --version and --help work.
. "$top_srcdir/tests/harness/defs.sh"
man=$top_srcdir/doc/cushim.1
[ -s "$man" ] || { fail "no $man"; finish; }
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" >"$T/man.txt"

run_cmd help "$CUSHIM" --help
expect_rc help 0
for sub in run check doctor symbols timeline summary; do
	grep -q "cushim $sub" "$T/help.out" || fail "--help does not show '$sub'"
	grep -q "^\.SS.*$sub" "$man" || fail "the man page has no section for '$sub'"
done
for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/help.out" | sort -u); do
	grep -q -- "$opt" "$T/man.txt" || fail "the man page does not document $opt"
done
# Every variable the sources name is a row of the settings table (cushim
# doctor lists every row), none is read but through the table, and every row
# has an entry in the man page and in --help with its line.
# The sources are sought recursively, wherever in src/ they are.
vars=$(cd "$top_srcdir" && find src -name '*.c' -exec cat {} + | grep -o '"CUSHIM_[A-Z][A-Z_]*["=]' |
	grep -o 'CUSHIM_[A-Z_]*' | grep -v '^CUSHIM_TEST_\|^CUSHIM_ORACLE_DIR$' | sort -u)
[ -n "$vars" ] || { echo "found no CUSHIM_* variables in src/" >&2; exit 99; }
direct=$(cd "$top_srcdir" && grep -rn --include='*.c' 'getenv("CUSHIM_' src)
[ -z "$direct" ] || fail "read around the settings table (conf.c reads every row): $direct"
env -u CUSHIM_LOG "$CUSHIM" doctor >"$T/doctor.out" 2>&1
rows=$(sed -n 's/^\(settings: \)\{0,1\} *\(CUSHIM_[A-Z_]*\)[ =].*/\2/p' "$T/doctor.out" | sort -u)
[ -n "$rows" ] || fail "cushim doctor lists no settings: $(cat "$T/doctor.out")"
for v in $vars; do
	echo "$rows" | grep -qx "$v" || fail "$v is read in src/ but is not in the settings table (settings.c)"
done
for v in $rows; do
	grep -A1 "^\.TP" "$man" | sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -q "$v" || fail "the man page has no entry for $v"
	grep -A1 "^  $v: " "$T/help.out" | sed -n 2p | grep -q '^      [a-z]' || fail "--help has no line for $v"
done
# cushim run has an option for each setting --help shows one for, and checks its value.
for opt in $(sed -n 's/^  --\([a-z-]*\)[=[].* \(CUSHIM_[A-Z_]*\)$/\1/p' "$T/help.out"); do
	run_cmd "opt-$opt" "$CUSHIM" run "--$opt=" -- true
	expect_rc "opt-$opt" 125
	grep -q -- "--$opt=: not " "$T/opt-$opt.err" || fail "cushim run --$opt takes a bad value: $(cat "$T/opt-$opt.err")"
done
# The README and doc/*.md against the tree.
docs="$top_srcdir/README $(ls "$top_srcdir"/doc/*.md)"
. "$top_srcdir/tests/cli/docs-settings.sh"
. "$top_srcdir/tests/cli/docs-layout.sh"
. "$top_srcdir/tests/cli/docs-cite.sh"
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$man" 2>"$T/groff.err"
	[ -s "$T/groff.err" ] && fail "groff warns: $(head -5 "$T/groff.err")"
fi

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
run_cmd version "$CUSHIM" --version
expect_rc version 0
[ "$(head -1 "$T/version.out")" = "cushim $version" ] || fail "--version says '$(head -1 "$T/version.out")'"
run_cmd unknown "$CUSHIM" frobnicate
expect_rc unknown 2
grep -q frobnicate "$T/unknown.err" || fail "an unknown command is not named"
run_cmd none "$CUSHIM"
expect_rc none 2
finish
