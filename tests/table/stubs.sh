#!/bin/sh
# The stubs as their templates give them (src/shim/stubs.S.in, with
# stubs-x86_64.S.in and stubs-aarch64.S.in), regenerated here by
# tools/gensyms.py.  The generator adds nothing but the table: its
# cushim-stubs.S is its two-line banner, then the templates' text as
# stubs.S.in describes it (expanded here by awk: the template's comments
# left out, each @include replaced by its file, each line with a row's
# placeholder written once per row of cushim-syms.tsv), and the build's
# cushim-stubs.S is the same.  Then, assembled for each architecture with a
# compiler here (the build's own, and x86_64- or aarch64-linux-gnu-gcc),
# plain, with landing pads (CET, BTI) and for ThreadSanitizer, its object
# code holds what the table wants (tests/table/stubtest.py).
. "$top_srcdir/tests/table/defs.sh"
gen=$T/gen
tmpl=$top_srcdir/src/shim/stubs.S.in
"$PYTHON" "$top_srcdir/tools/gensyms.py" --include "$CUDA_INCDIR" --table "$TABLE" --stubs "$tmpl" --outdir "$gen" ||
	{ fail "gensyms"; finish; }

# The templates' text: the template's comments dropped, @include FILE replaced.
awk -v dir="$(dirname "$tmpl")" '
	function read(f,   line, w) {
		while ((getline line < f) > 0) {
			if (line ~ /^@#/) continue
			if (line ~ /^@include /) { split(line, w, " "); read(dir "/" w[2]); continue }
			print line
		}
		close(f)
	}
	BEGIN { read(ARGV[1]); exit }' "$tmpl" >"$T/text" || exit 99
grep -q '^@' "$T/text" && fail "a line of the templates starts with @ but is no comment and no @include"
# Each line with a row's placeholder, once per row.
{
	head -n 2 "$gen/cushim-stubs.S"
	awk -F'\t' 'BEGIN { n = 0 }
		NR == FNR { if ($0 !~ /^#/) { name[n] = $1; exported[n++] = ($7 == "yes") } next }
		/@(NAME|ROW|EXPORTED)@/ {
			for (i = 0; i < n; i++) {
				l = $0
				gsub(/@NAME@/, name[i], l); gsub(/@ROW@/, i, l); gsub(/@EXPORTED@/, exported[i], l)
				print l
			}
			next
		}
		{ print }' "$gen/cushim-syms.tsv" "$T/text"
} >"$T/want" || exit 99
grep -q '@[A-Z]*@' "$T/want" && fail "a placeholder is left: $(grep -m 3 '@[A-Z]*@' "$T/want")"
cmp "$T/want" "$gen/cushim-stubs.S" >"$T/cmp" 2>&1 ||
	fail "cushim-stubs.S is not the templates filled in: $(cat "$T/cmp")"
tail -n +3 "$gen/cushim-stubs.S" >"$T/gen.body" && tail -n +3 "$top_builddir/src/cushim-stubs.S" >"$T/build.body" ||
	exit 99
cmp -s "$T/gen.body" "$T/build.body" || fail "the build's cushim-stubs.S is not what the templates give"
[ "$failures" -eq 0 ] &&
	echo "stubs: cushim-stubs.S is the templates with the table's $(grep -vc '^#' "$gen/cushim-syms.tsv") rows filled in"

# The object code, for each architecture that can be assembled here.
for arch in x86_64 aarch64; do
	if [ "$arch" = "${HOST_CPU:-}" ]; then
		cc=${BUILD_CC:-cc} od=${BUILD_OBJDUMP:-objdump}
	elif command -v "$arch-linux-gnu-gcc" >/dev/null && command -v "$arch-linux-gnu-objdump" >/dev/null; then
		cc=$arch-linux-gnu-gcc od=$arch-linux-gnu-objdump
	else
		echo "stubs: no $arch-linux-gnu-gcc and objdump: the $arch object code is not checked"
		continue
	fi
	case $arch in x86_64) landing=-fcf-protection=full ;; *) landing=-mbranch-protection=standard ;; esac
	for variant in plain landing tsan; do
		case $variant in
		plain) flags='' opts='' ;;
		landing) flags=$landing opts=--landing ;;
		tsan) flags=-D__SANITIZE_THREAD__ opts=--tsan ;;
		esac
		o=$T/$arch-$variant.o
		# shellcheck disable=SC2086
		$cc $flags -c -o "$o" "$gen/cushim-stubs.S" 2>"$T/as.err" ||
			{ fail "cushim-stubs.S does not assemble for $arch ($variant): $(head -5 "$T/as.err")"; continue; }
		{ $od -t -r "$o" && $od -dr --no-show-raw-insn "$o"; } >"$o.dump" || exit 99
		"$PYTHON" "$top_srcdir/tests/table/stubtest.py" --tsv "$gen/cushim-syms.tsv" --dump "$o.dump" --arch $arch \
			${opts:+"$opts"} || fail "$arch ($variant): the object code is not what the table wants"
	done
done
finish
