#!/bin/sh
# cushim check on cushim's own files: libcushim.so and the command carry no
# CUDA runtime, so they set no driver an environment needs.  The runtime's
# error text that cushim looks for in other files is none of their read-only
# data (an environment holding cushim, as a pip install leaves it, would
# otherwise need a CUDA 13.0 driver because of cushim itself).  Stripped as
# an installed copy is, the same.
. "$top_srcdir/tests/harness/defs.sh"
strip=${BUILD_OBJDUMP%objdump}strip
S=$T/self # not $T itself: a cross build's $CUSHIM is $T/cushim
mkdir "$S" || exit 99
for f in "$SHIMLIB" "$top_builddir/.libs/cushim" "$top_builddir/cushim"; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	cp "$f" "$S/$b" || exit 99
	cp "$f" "$S/$b.stripped" && $strip "$S/$b.stripped" || exit 99
	for g in "$S/$b" "$S/$b.stripped"; do
		n=$(basename "$g")
		run_cmd "$n" "$CUSHIM" check --driver-version=12.0 "$g"
		expect_rc "$n" 0
		grep -q 'carries' "$T/$n.out" && fail "$n: cushim's own file is said to carry a CUDA runtime: $(grep carries "$T/$n.out" | head -1)"
	done
done
mkdir "$T/site" && cp "$SHIMLIB" "$T/site/libcushim.so" && cp "$S/cushim.stripped" "$T/site/cushim" || exit 99
run_cmd tree "$CUSHIM" check --driver-version=12.0 "$T/site"
expect_rc tree 0
head -n 1 "$T/tree.out" | grep -q 'verdict: runs on a CUDA 12.0 driver' ||
	fail "a folder holding cushim alone: $(head -n 2 "$T/tree.out")"
finish
