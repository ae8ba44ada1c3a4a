#!/bin/sh
# make bench-check: how fast cushim check judges a whole environment, in
# files per second and MB of judged files per second, and its peak resident
# memory against the largest file it judged.  The tree: BENCH_TREE
# when set (a PyTorch environment, a container image's root); else the real
# wheels make check-compat caches (wheel-cache/), judged both as wheels and
# unpacked; else a tree built here from this build's own binaries (many
# copies, so that the page cache, not the disk, is measured), judged as a
# folder and packed into one synthetic wheel read in place (its members
# deflated, as pip's wheels are: inflated through libdeflate where the build
# has it, else through libzip; the line says which).  Each is run
# three times after a warm-up, and the best time counts.  A benchmark, not a
# test: it prints figures and fails only when the command does.
set -u
: "${top_builddir:?run me through make bench-check}"
CUSHIM=$top_builddir/cushim
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-bench-check.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }

# bench NAME PATH...: the best of three runs, with what was judged.
bench() {
	name=$1
	shift
	"$CUSHIM" check --json --driver-version=12.2 --gpu=sm_80,sm_90 "$@" >"$T/out.json" 2>/dev/null
	[ $? -le 2 ] || { echo "bench-check: cushim check failed on $name" >&2; return 1; }
	best=
	for i in 1 2 3; do
		t0=$(now)
		"$CUSHIM" check --json --driver-version=12.2 --gpu=sm_80,sm_90 "$@" >/dev/null 2>&1
		t1=$(now)
		best=$(echo "$t0 $t1 ${best:-1e9}" | awk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
	done
	files=$(sed -n 's/.*"environment": {"runs": [a-z]*, "files": \([0-9]*\).*/\1/p' "$T/out.json")
	sizes=$(python3 -c 'import json,sys,os,zipfile
d = json.load(open(sys.argv[1])); n = big = 0
for f in d["files"]:
    p = f["file"]
    if ".whl:" in p:
        w, m = p.split(".whl:", 1); s = zipfile.ZipFile(w + ".whl").getinfo(m).file_size
    else:
        s = os.path.getsize(p)
    n += s; big = max(big, s)
print(n, big)' "$T/out.json" 2>/dev/null || echo 0 0)
	# the peak resident memory of one more run (the kernel's count, in KB)
	rss=$(python3 -c 'import resource,subprocess,sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$CUSHIM" check --json --driver-version=12.2 \
		--gpu=sm_80,sm_90 "$@" 2>/dev/null || echo 0)
	echo "$best $files $sizes $rss" | awk -v n="$name" '{ printf "bench-check: %-28s %6d files, %8.1f MB in %.3f s: %8.0f files/s, %7.0f MB/s\n", n, $2, $3 / 1e6, $1, $2 / $1, $3 / 1e6 / $1;
		printf "bench-check: %-28s peak resident %.1f MB, %.2f times the largest file judged (%.1f MB)\n", n, $5 / 1e3, $4 ? $5 * 1e3 / $4 : 0, $4 / 1e6 }'
}

if [ -n "${BENCH_TREE:-}" ]; then
	bench "$(basename "$BENCH_TREE")" "$BENCH_TREE"
	exit
fi
C=$top_builddir/wheel-cache
if ls "$C"/*.whl >/dev/null 2>&1; then
	bench "wheel-cache (wheels)" "$C"/*.whl
	mkdir "$T/unpacked"
	for w in "$C"/*.whl; do python3 -m zipfile -e "$w" "$T/unpacked" || exit 1; done
	bench "wheel-cache (unpacked)" "$T/unpacked"
	rm -rf "$T/unpacked"
fi
mkdir -p "$T/built/lib" "$T/built/bin"
for i in $(seq 1 100); do
	cp "$top_builddir/.libs/libcushim.so" "$T/built/lib/libcushim-$i.so"
	cp "$CUSHIM" "$T/built/bin/cushim-$i"
done
bench "built (this build's ELF)" "$T/built"
python3 - "$T/built" "$T/built-1.0-py3-none-linux_x86_64.whl" <<'PY' || exit 1
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, names in os.walk(sys.argv[1]):
        for n in sorted(names):
            p = os.path.join(d, n)
            z.write(p, "built/" + os.path.relpath(p, sys.argv[1]))
    z.writestr("built-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
PY
rm -rf "$T/built"
grep -q '^#define HAVE_LIBDEFLATE 1' "$top_builddir/config.h" && how=libdeflate || how=libzip
bench "built, one wheel ($how)" "$T/built-1.0-py3-none-linux_x86_64.whl"
