# Sourced by docs.sh: every citation of a document or of a section finds it,
# in the code (comments, messages, scripts) and in the docs; and the README
# stays a front door.
#   doc/X.md or X.md          doc/X.md exists
#   doc/X.md, "Heading"       doc/X.md has "## Heading" (also X.md ("Heading"))
#   README, section N         the README has a section "N. ..."
#   README "Heading"          the README has a section "N. Heading"
# (X.md in the docs; doc/X.md, or X.md after "doc/", in the code.)
heading() { # FILE TITLE: 0 when FILE has that heading
	case $1 in
	*README) grep -q "^[0-9][0-9]*\. $2\$" "$1" ;;
	*) grep -qxF "## $2" "$1" || grep -qxF "# $2" "$1" ;;
	esac
}
code=$(cd "$top_srcdir" && find Makefile.am configure.ac .ci src tests tools samples debian -type f \
	! -path 'tests/oracle/*' ! -path 'tests/cli/docs*.sh' ! -path 'tests/fuzz/*/*')
(cd "$top_srcdir" && grep -Iho 'doc/[A-Za-z]*\.md\(, "[^"]*"\)\{0,1\}' $code) >"$T/cites"
(cd "$top_srcdir" && grep -ho '\(^\|[^/A-Za-z]\)[A-Z][A-Z]*\.md\(,\{0,1\} (\{0,1\}"[^"]*"\)\{0,1\}' $docs |
	sed 's/^[^A-Z]//; s/,\{0,1\} (\{0,1\}"/, "/; s|^|doc/|'; grep -ho 'doc/[A-Z][A-Z]*\.md' $docs) >>"$T/cites"
sort -u "$T/cites" | while read -r cite; do
	f=${cite%%,*}
	[ -f "$top_srcdir/$f" ] || { echo "cites $f, which is not there"; continue; }
	case $cite in *', "'*) t=${cite#*, \"}; t=${t%\"}; heading "$top_srcdir/$f" "$t" || echo "cites $f, \"$t\": no such heading" ;; esac
done >"$T/cite.bad"
(cd "$top_srcdir" && grep -In 'README,\{0,1\} \(section\|sections\) [0-9]\+\|README'"'"'s section [0-9]\+\|README,\{0,1\} "[^"]*"' $code) >"$T/readme.cites"
# ... and one whose number is on the next line of a comment.
(cd "$top_srcdir" && awk 'FNR == 1 { prev = "" } prev != "" { l = $0; sub(/^[#\/* \t]*/, "", l); print FILENAME ":" FNR - 1 ": " prev " " l }
	{ prev = ($0 ~ /README,? sections?$/) ? $0 : "" }' $code) >>"$T/readme.cites"
while IFS= read -r line; do
	n=$(echo "$line" | sed -n 's/.*[Ss]ection \([0-9][0-9]*\).*/\1/p')
	t=$(echo "$line" | sed -n 's/.*README,\{0,1\} "\([^"]*\)".*/\1/p')
	if [ -n "$n" ]; then grep -q "^$n\. " "$top_srcdir/README" || echo "$line: the README has no section $n"; fi
	if [ -n "$t" ]; then heading "$top_srcdir/README" "$t" || echo "$line: the README has no section \"$t\""; fi
done <"$T/readme.cites" >>"$T/cite.bad"
[ -s "$T/cite.bad" ] && fail "citations that find nothing: $(cat "$T/cite.bad")"

# The README: at most 200 lines, its two commands (what CI runs) before its
# first section, and every document of doc/ named.
readme=$top_srcdir/README
[ "$(wc -l <"$readme")" -le 200 ] || fail "the README has $(wc -l <"$readme") lines, more than 200: move the rest to doc/"
first=$(grep -n '^    \$ ' "$readme" | sed -n 2p | cut -d: -f1)
sect=$(grep -n '^1\. ' "$readme" | head -n 1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$sect" ] && [ "$first" -lt "$sect" ] || fail "the README does not start with its two commands"
for f in $(cd "$top_srcdir" && ls doc/*.md doc/*.1); do
	grep -q "$f" "$readme" || fail "the README does not point to $f"
done
