# Sourced by docs.sh: doc/LAYOUT.md and the paths the docs name, against the
# tree.  LAYOUT.md names every folder that has a build fragment; every folder
# it names exists; every folder of src/ is named (not the hidden ones a build
# in the source tree makes: .libs, .deps); a src/ folder's entry names every
# .c file in it and no file that is not there; every path the docs name
# exists, and so does every path named in the tests' comments and in the
# .md files under tests/.
layout=$top_srcdir/doc/LAYOUT.md
# One line per entry: "folder/<TAB>its text".
awk '/^- `[a-z.][a-z0-9_.\/-]*\/`/ { if (d != "") print d "\t" txt; d = $2; gsub(/`:?/, "", d); txt = $0; next }
	d != "" && /^  / { txt = txt " " $0; next }
	d != "" { print d "\t" txt; d = "" }
	END { if (d != "") print d "\t" txt }' "$layout" | grep -v '^\./' >"$T/layout"
[ -s "$T/layout" ] || fail "doc/LAYOUT.md names no folder"
cut -f1 "$T/layout" >"$T/layout.dirs"
for mk in $(cd "$top_srcdir" && find doc src tests samples tools -name local.mk); do
	grep -qx "${mk%local.mk}" "$T/layout.dirs" || fail "doc/LAYOUT.md does not name ${mk%local.mk} (it has $mk)"
done
while read -r d; do
	[ -d "$top_srcdir/$d" ] || fail "doc/LAYOUT.md names $d, which is not in the tree"
done <"$T/layout.dirs"
for d in $(cd "$top_srcdir" && find src -mindepth 1 -maxdepth 2 -type d -not -path '*/.*'); do
	grep -qx "$d/" "$T/layout.dirs" || fail "doc/LAYOUT.md does not describe $d/"
done
set -f # the names may be globs (explain*.c)
grep '^src/[a-z/]*/	' "$T/layout" | while IFS='	' read -r d txt; do
	names=$(echo "$txt" | grep -o '[A-Za-z0-9_*-]*\.[ch]\b' | sort -u)
	for n in $names; do
		set +f; ls "$top_srcdir/$d"$n >/dev/null 2>&1 || echo "doc/LAYOUT.md puts $n in $d, which has none"; set -f
	done
	[ "$d" = src/cli/ ] && continue # its entry names a few of its files
	for f in $(cd "$top_srcdir/$d" && find . -maxdepth 1 -name '*.c' | sed 's|^\./||'); do
		named=0
		for n in $names; do case $f in $n) named=1 ;; esac; done
		[ $named -eq 1 ] || echo "doc/LAYOUT.md does not name $d$f"
	done
done >"$T/layout.files"
set +f
[ -s "$T/layout.files" ] && fail "$(cat "$T/layout.files")"

# Every path the docs name: a file or folder, a program built from PATH.c
# (tests/hardening/faults), or what the build makes (named in a build file,
# not in its comments: tests/realdrv/cache, debian/build).
builds=$(cd "$top_srcdir" && find . -name local.mk -o -name Makefile.am -o -path ./debian/rules | xargs sed 's/^[ \t]*#.*//; s/[ \t]#[ \t].*//')
paths='\(src\|tests\|tools\|samples\|doc\|debian\)/[A-Za-z0-9_./*-]*[A-Za-z0-9_/]'
in_tree() { # PATH: 0 when the tree has it, a program is built from PATH.c, or the build makes it
	[ -e "$top_srcdir/$1" ] || [ -e "$top_srcdir/$1.c" ] || echo "$builds" | grep -qw -- "${1%/}"
}
for p in $(cat $docs | grep -o "\\b$paths" | sort -u); do
	case $p in *'*'*) continue ;; esac
	in_tree "$p" || fail "the docs name $p, which is not in the tree"
done

# Every path the tests' comments name: in C comments (/* */ and //, not in
# strings) of tests/**/*.c, *.h and *.cu, in # comments of the scripts,
# Python, awk and the fragments, and anywhere in tests/**/*.md.  A glob, and a
# path with an all-capital word (a placeholder: tests/fuzz/corpus/TARGET,
# doc/X.md) with each such word a glob, must match something in the tree.
(cd "$top_srcdir" && find tests -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort | xargs awk '
BEGIN { q1 = sprintf("%c", 39) }
FNR == 1 { inc = 0 }
{
	line = $0; out = ""
	while (line != "") {
		if (inc) {
			e = index(line, "*/")
			if (!e) { out = out " " line; break }
			out = out " " substr(line, 1, e - 1); line = substr(line, e + 2); inc = 0; continue
		}
		c = substr(line, 1, 1); d = substr(line, 1, 2)
		if (d == "/*") { inc = 1; line = substr(line, 3); continue }
		if (d == "//") { out = out " " substr(line, 3); break }
		if (c == "\"" || c == q1) { # a string or a character constant, skipped whole
			line = substr(line, 2)
			while (line != "" && substr(line, 1, 1) != c) line = substr(line, substr(line, 1, 1) == "\\" ? 3 : 2)
			line = substr(line, 2); continue
		}
		line = substr(line, 2)
	}
	if (out != "") print FILENAME ":" FNR ":" out
}'
find tests -type f \( -name '*.sh' -o -name '*.py' -o -name '*.awk' -o -name '*.mk' \) | sort | xargs awk '
FNR == 1 && /^#!/ { next }
/^[ \t]*#/ { print FILENAME ":" FNR ":" $0; next }
match($0, /[ \t]#[ \t]/) { print FILENAME ":" FNR ":" substr($0, RSTART) }'
find tests -type f -name '*.md' | sort | xargs awk '{ print FILENAME ":" FNR ":" $0 }') >"$T/comments"
[ -s "$T/comments" ] || fail "found no comments in tests/"
# "PATH<TAB>FILE:LINE" for each path named, then each path judged once.
awk '{
	i = index($0, ":"); j = i + index(substr($0, i + 1), ":")
	where = substr($0, 1, j - 1); text = substr($0, j + 1) # FILE:LINE, the comment
	while (match(text, /(^|[^A-Za-z0-9_])(src|tests|tools|samples|doc|debian)\/[A-Za-z0-9_.\/*-]*[A-Za-z0-9_\/]/)) {
		p = substr(text, RSTART, RLENGTH); sub(/^[^a-z]/, "", p)
		print p "\t" where
		text = substr(text, RSTART + RLENGTH)
	}
}' "$T/comments" | sort -u >"$T/comment.paths"
cut -f1 "$T/comment.paths" | uniq | while read -r p; do
	g=$(echo "$p" | sed 's,\(^\|[/.-]\)[A-Z][A-Z0-9_]*\($\|[/.-]\),\1*\2,g; s,\(^\|[/.-]\)[A-Z][A-Z0-9_]*\($\|[/.-]\),\1*\2,g')
	case $g in
	*'*'*) for f in "$top_srcdir"/$g; do [ -e "$f" ] && continue 2; done ;;
	*) in_tree "$p" && continue ;;
	esac
	echo "$p ($(awk -F'\t' -v p="$p" '$1 == p { printf "%s%s", n++ ? " " : "", $2 }' "$T/comment.paths"))"
done >"$T/comment.bad"
[ -s "$T/comment.bad" ] && fail "the tests' comments and .md files name paths that are not in the tree: $(cat "$T/comment.bad")"
