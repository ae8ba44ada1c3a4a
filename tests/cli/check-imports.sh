#!/bin/sh
# cushim check on a program built against CUDA 13.0 headers: it names every
# import with the version that introduced it and the overall minimum, and
# --driver-version=11.4 lists exactly the imports an 11.4 driver lacks.  The
# expected answers come from nm and the real driver's answers in tests/oracle,
# never from cushim.
. "$top_srcdir/tests/harness/defs.sh"
prog=$top_builddir/tests/cli/cuda13-app
# Parts 1 to 6 check the plain verdict; part 7 the downgrade adapters.
export CUSHIM_ADAPT=0

imports=$(nm -D --undefined-only "$prog" | awk '$NF ~ /^cu[A-Z]/ { print $NF }' | sort)
[ "$(echo "$imports" | wc -l)" -ge 4 ] || { echo "nm found too few cu* imports in $prog" >&2; exit 99; }
: >"$T/expected"
for n in $imports; do
	v=$(oracle_version "$n")
	[ -n "$v" ] || { echo "$n is not in the oracle" >&2; exit 99; }
	echo "$n $v" >>"$T/expected"
done
# Newer than 11.4, and the overall minimum (the largest version).
newer=$(awk '{ split($2, a, "."); if (a[1] * 1000 + a[2] * 10 > 11040) print $1 }' "$T/expected" | sort)
minimum=$(awk '{ split($2, a, "."); v = a[1] * 1000 + a[2] * 10; if (v > m) { m = v; s = $2 } } END { print s }' "$T/expected")
[ "$(echo "$newer" | wc -w)" -ge 2 ] || { echo "the test program should import at least 2 functions newer than 11.4" >&2; exit 99; }

# 1. Plain check: every import with its version, and the minimum.
#    (0, or 1 if this machine has a driver older than the program needs.)
run_cmd plain "$CUSHIM" check "$prog"
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "plain check: exit status $rc"
while read -r n v; do
	grep -Eq "^  $n +$v( |\$)" "$T/plain.out" || fail "plain check does not list '$n' as CUDA $v"
done <"$T/expected"
grep -q "^$prog: needs a CUDA $minimum driver" "$T/plain.out" || fail "plain check does not state the minimum CUDA $minimum"
[ "$(grep -c '^  cu' "$T/plain.out")" -eq "$(wc -l <"$T/expected")" ] || fail "plain check lists other imports than nm finds"

# 2. Against 11.4: exit 1, and exactly the newer imports are marked missing.
run_cmd v114 "$CUSHIM" check --driver-version=11.4 "$prog"
expect_rc v114 1
got=$(awk '$1 ~ /^cu/ && $3 == "missing" { print $1 }' "$T/v114.out" | sort)
[ "$got" = "$newer" ] || fail "--driver-version=11.4 marks [$(echo $got)] missing, wanted [$(echo $newer)]"
grep -q "a CUDA 11.4 driver lacks $(echo "$newer" | wc -w) of its" "$T/v114.out" || fail "--driver-version=11.4 does not sum up what is missing"
# The CUDA_VERSION form means the same.
run_cmd v11040 "$CUSHIM" check --driver-version=11040 "$prog"
expect_rc v11040 1
cmp -s "$T/v114.out" "$T/v11040.out" || fail "--driver-version=11040 differs from 11.4"

# 3. At the minimum itself nothing is missing; just below it something is.
run_cmd vmin "$CUSHIM" check --driver-version="$minimum" "$prog"
expect_rc vmin 0
grep -q missing "$T/vmin.out" && fail "--driver-version=$minimum still reports missing imports"
run_cmd vbelow "$CUSHIM" check --driver-version=12.9 "$prog"
expect_rc vbelow 1

# 4. --json is valid JSON with the same verdict.
run_cmd json "$CUSHIM" check --json --driver-version=11.4 "$prog"
expect_rc json 1
python3 -m json.tool "$T/json.out" >/dev/null 2>&1 || fail "--json output is not valid JSON"
got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
assert d["driver_version"] == "11.4" and f["status"] == "missing"
print(f["needs"]); print("\n".join(sorted(f["missing"])))' "$T/json.out" 2>&1)
[ "$got" = "$minimum
$newer" ] || fail "--json says [$(echo $got)], wanted [$minimum $(echo $newer)]"

# 5. A bad version is a usage error.
run_cmd bad "$CUSHIM" check --driver-version=eleven "$prog"
expect_rc bad 2
grep -q -- "--driver-version=eleven" "$T/bad.err" || fail "a bad --driver-version is not named in the message"

# 6. --recursive follows DT_NEEDED: libc is reached, the driver itself is not checked.
run_cmd rec "$CUSHIM" check --recursive --driver-version=11.4 "$prog"
expect_rc rec 1
libc=$(ldd "$prog" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
if [ -n "$libc" ]; then
	grep -q "^$(realpath "$libc") (needed by $prog): imports no CUDA driver function" "$T/rec.out" ||
	grep -q "^$libc (needed by $prog): imports no CUDA driver function" "$T/rec.out" ||
		fail "--recursive does not follow DT_NEEDED to $libc"
fi
grep -q 'libcuda' "$T/rec.out" && fail "--recursive checked the driver itself"

# 7. With the adapters (the default), an import an adapter can serve is listed
#    apart from the missing ones, with the variant and the condition; together
#    they are still exactly the newer imports.
unset CUSHIM_ADAPT
run_cmd a114 "$CUSHIM" check --driver-version=11.4 "$prog"
expect_rc a114 1
grep -Eq '^  cuCtxCreate_v4 +12\.5  adapted: served by cuCtxCreate_v2 \(no parameters\)$' "$T/a114.out" ||
	fail "on 11.4, cuCtxCreate_v4 is not reported as served by cuCtxCreate_v2"
grep -Eq '^  cuMemcpyBatchAsync_v2 +13\.0  missing$' "$T/a114.out" ||
	fail "on 11.4, cuMemcpyBatchAsync_v2 (whose 12.8 variant 11.4 lacks too) is not missing"
got=$(awk '$1 ~ /^cu/ && ($3 == "missing" || $3 == "adapted:") { print $1 }' "$T/a114.out" | sort)
[ "$got" = "$newer" ] || fail "on 11.4, missing and adapted are [$(echo $got)], wanted [$(echo $newer)]"
run_cmd a128 "$CUSHIM" check --driver-version=12.8 "$prog"
expect_rc a128 0
grep -Eq '^  cuMemcpyBatchAsync_v2 +13\.0  adapted: served by cuMemcpyBatchAsync \(always; failIdx dropped\)$' \
	"$T/a128.out" || fail "on 12.8, cuMemcpyBatchAsync_v2 is not served by its 12.8 variant"
grep -q "^$prog: verdict: runs on a CUDA 12.8 driver (branch 570) under cushim, whose adapters serve" "$T/a128.out" ||
	fail "on 12.8, the file's verdict does not say under cushim: $(cat "$T/a128.out")"

# 8. A folder holding it says so too: its verdict is under cushim, and the
#    driver it needs is what it needs without cushim.
mkdir "$T/tree"
cp "$prog" "$T/tree/"
run_cmd tree128 "$CUSHIM" check --driver-version=12.8 "$T/tree"
expect_rc tree128 0
head -n 1 "$T/tree128.out" | grep -q "^environment: 1 file: verdict: runs on a CUDA 12.8 driver (branch 570) under cushim, whose adapters serve [0-9]* imports\{0,1\} the driver lacks (in 1 file)\$" ||
	fail "tree128: the folder's verdict does not say under cushim: $(cat "$T/tree128.out")"
grep -q "^environment: without cushim needs a CUDA 13.0 driver (branch 580) or newer, set by $T/tree/" "$T/tree128.out" ||
	fail "tree128: the driver needed is not said to be without cushim: $(cat "$T/tree128.out")"

# 9. One import: said in the singular.
CC=${BUILD_CC:-${CC:-cc}}
if command -v "$CC" >/dev/null 2>&1; then
	printf 'int cuMemcpyBatchAsync(void);\nint f(void) { return cuMemcpyBatchAsync(); }\n' >"$T/one.c"
	"$CC" -shared -fPIC -o "$T/one.so" "$T/one.c" || exit 99
	run_cmd one122 "$CUSHIM" check --driver-version=12.2 "$T/one.so"
	grep -q "^$T/one.so: a CUDA 12.2 driver lacks its one driver import\$" "$T/one122.out" ||
		fail "one import, lacking: $(cat "$T/one122.out")"
	run_cmd one130 "$CUSHIM" check --driver-version=13.0 "$T/one.so"
	grep -q "^$T/one.so: a CUDA 13.0 driver provides its one driver import\$" "$T/one130.out" ||
		fail "one import, provided: $(cat "$T/one130.out")"
fi
finish
