#!/bin/sh
# Replays every input in tests/fuzz/regressions/TARGET and the seed corpus
# tests/fuzz/corpus/TARGET through each libFuzzer target of tests/fuzz (make
# check: FUZZ_SECONDS unset or 0), then fuzzes each for FUZZ_SECONDS on a copy
# of its corpus (make check-fuzz, 60 s by default).  Skips (77) when
# clang cannot build a libFuzzer program.  Fails on any crash, sanitizer
# report or broken property; the input is left in $top_builddir/tests/fuzz/crashes.
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
b=${top_builddir:?}; s=${top_srcdir:?}
cc=${FUZZ_CC:-clang}
[ -z "${EXE_WRAPPER:-}" ] || [ -n "${FUZZ_BUILT-}" ] ||
	skip "a cross build: $cc builds the fuzz targets for the build machine, whose own make check runs them"
secs=${FUZZ_SECONDS:-0}
if [ -z "${FUZZ_BUILT-}" ]; then
	command -v "$cc" >/dev/null 2>&1 || skip "no $cc: the fuzz targets need clang with libFuzzer"
	t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
	echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' > "$t/x.c"
	"$cc" -fsanitize=fuzzer,address -o "$t/x" "$t/x.c" >/dev/null 2>&1 || skip "$cc cannot link -fsanitize=fuzzer (Debian: clang, libclang-rt-dev)"
	make -s -C "$b" fuzz-targets FUZZ_CC="$cc" || fail "cannot build the fuzz targets"
fi
mkdir -p "$b/tests/fuzz/crashes"
status=0
for target in level version patterns path elf outputs string image; do
	bin=$b/tests/fuzz/fuzz-$target
	work=$b/tests/fuzz/work-$target
	seeds=$target
	[ "$target" = image ] && seeds="elf image" # the images the reader's own target starts from, too
	rm -rf "$work" && mkdir -p "$work"
	for d in $seeds; do
		cp "$s/tests/fuzz/corpus/$d/"* "$work/" 2>/dev/null
	done
	if [ -d "$s/tests/fuzz/regressions/$target" ]; then
		for f in "$s/tests/fuzz/regressions/$target/"*; do
			[ -f "$f" ] || continue
			"$bin" "$f" >"$work.log" 2>&1 || { cat "$work.log"; echo "FAIL: regression input $f"; status=1; }
		done
	fi
	if [ "$secs" = 0 ]; then # replay: each seed once, as a file of its own
		"$bin" -timeout=10 -rss_limit_mb=2048 "$work"/* >"$work.log" 2>&1
		rc=$?
		runs=$(grep -c '^Running: ' "$work.log")
	else
		"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$b/tests/fuzz/crashes/$target-" "$work" >"$work.log" 2>&1
		rc=$?
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	fi
	cov=$(grep -o 'cov: [0-9]*' "$work.log" | tail -1)
	echo "fuzz-$target: ${secs}s, ${runs:-?} inputs, $cov, corpus $(ls "$work" | wc -l), exit $rc"
	if [ $rc -ne 0 ]; then
		tail -40 "$work.log"
		echo "FAIL: fuzz-$target (inputs in $b/tests/fuzz/crashes)"
		status=1
	fi
done
exit $status
