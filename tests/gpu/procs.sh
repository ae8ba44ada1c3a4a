#!/bin/sh
# One timeline, summary and log per process on a real driver: procs-app
# (tests/timeline/procs-app.c) with its GPU work, eight processes started by
# fork, fork+exec, vfork+exec and posix_spawn, each making memMapIPCDrv's
# shareable allocation (exported, mapped, set, copied back and checked),
# every output named without %p.  Each process's calls are in exactly one
# timeline file and one summary file and in the log, every file is valid
# JSON, and `cushim timeline --merge` and `cushim summary` equal the sums
# (tests/timeline/check-procs.py prints the files and the merged counts).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/procs-app"
CUSHIM="$top_builddir/cushim"
PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-procs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
mkdir -p "$out" "$tmp/rec"
fail=0
"$CUSHIM" --version >/dev/null || { echo "FAIL: $CUSHIM does not run here"; exit 1; }
unset CUSHIM_RUN CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE
PROCS_GPU=1 PROCS_DIR=$tmp/rec CUSHIM_TIMELINE=$out/tl.json CUSHIM_SUMMARY=$out/s.json CUSHIM_LOG=trace \
	CUSHIM_LOG_FILE=$out/log.txt run_shimmed "$app" || { echo "FAIL: procs-app failed"; fail=1; }
echo "== what each process did (procs-app's own count: pid role calls errors)"
cat "$tmp/rec/records"
echo "== files"
(cd "$out" && ls)
"$CUSHIM" timeline --merge "$out"/tl*.json -o "$tmp/all.json" || { echo "FAIL: cushim timeline --merge"; fail=1; }
"$CUSHIM" summary "$out"/s*.json || { echo "FAIL: cushim summary"; fail=1; }
"$CUSHIM" summary --json "$out"/s*.json >"$tmp/s-all.json" || { echo "FAIL: cushim summary --json"; fail=1; }
mv "$tmp/all.json" "$tmp/s-all.json" "$out/"
echo "== check-procs.py"
$PYTHON "$top_srcdir/tests/timeline/check-procs.py" "$out" "$tmp/rec/records" || fail=1
exit $fail
