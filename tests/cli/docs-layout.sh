# Sourced by docs.sh: doc/LAYOUT.md and the paths the docs name, against the
# tree.  LAYOUT.md names every folder that has a build fragment; every folder
# it names exists; every folder of src/ is named (not the hidden ones a build
# in the source tree makes: .libs, .deps); a src/ folder's entry names every
# .c file in it and no file that is not there; every path the docs name
# exists.
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
grep '^src/[a-z]*/	' "$T/layout" | while IFS='	' read -r d txt; do
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
# (tests/hardening/faults), or what the build makes (named in a build file:
# tests/realdrv/cache, debian/build).
builds=$(cd "$top_srcdir" && find . -name local.mk -o -name Makefile.am -o -path ./debian/rules | xargs cat)
for p in $(cat $docs | grep -o '\b\(src\|tests\|tools\|samples\|doc\|debian\)/[A-Za-z0-9_./*-]*[A-Za-z0-9_/]' | sort -u); do
	case $p in *'*'*) continue ;; esac
	[ -e "$top_srcdir/$p" ] || [ -e "$top_srcdir/$p.c" ] || echo "$builds" | grep -qw -- "${p%/}" ||
		fail "the docs name $p, which is not in the tree"
done
