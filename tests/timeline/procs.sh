#!/bin/sh
# One timeline, summary and log per process, whatever starts it: procs-app's
# eight processes (fork, fork+exec, vfork+exec, posix_spawn, four levels
# below the first) on the fake 11.4 driver, every output named without %p.
#  1. An earlier run leaves tl.json and s.json behind.
#  2. Two unrelated runs at once with the same settings (16 processes): each
#     process's calls are in exactly one timeline and one summary file, and
#     in the shared log, whole lines; the earlier run's stale files were
#     replaced by one of the new runs' first processes; `cushim timeline
#     --merge` and `cushim summary` add up to the sums (check-procs.py).
#  3. The same through a launcher: cushim run of sh -c.
#  4. A process that is not a run's first keeps a file it did not create.
#  5. A file two processes wrote into (an older cushim's): cushim timeline
#     says so, and --repair keeps every whole event as one valid trace.
#  6. Merged files of two runs are called so; a summary file left empty and
#     one that is not a summary are called so.
#  7. A Python multiprocessing pool, spawn and forkserver: eight workers, the
#     parent under cushim too but making no driver call (procs-pool.py).
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$(realpath "$top_builddir/tests/timeline/procs-app")
PYTHON=${PYTHON:-python3}
check="$PYTHON $top_srcdir/tests/timeline/check-procs.py"
for d in drv-11.4 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
[ -z "$EXE_WRAPPER" ] || { echo "procs-app execs itself: not under an emulator" >&2; exit 77; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_CUDART \
	CUSHIM_TIMELINE CUSHIM_HIDE CUSHIM_RUN PROCS_GPU
export LD_LIBRARY_PATH=$fake/drv-11.4:$fake/no-rt CUSHIM_ADAPT=0

tree() { # OUTDIR RECDIR [launcher...]: one run of procs-app, every output in OUTDIR
	o=$1 r=$2
	shift 2
	mkdir -p "$o" "$r"
	env PROCS_DIR="$r" CUSHIM_TIMELINE="$o/tl.json" CUSHIM_SUMMARY="$o/s.json" CUSHIM_LOG=trace \
		CUSHIM_LOG_FILE="$o/log.txt" LD_PRELOAD="$SHIMLIB" "$@" "$app"
}
root_of() { sed -n 's/^\([0-9]*\) root .*/\1/p' "$1/records"; }
pid_in() { $PYTHON -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' "$1"; }

# 1. An earlier run.
tree "$T/out" "$T/old" || fail "the earlier run failed: $(cat "$T/out/log.txt" | head -5)"
[ "$(pid_in "$T/out/s.json")" = "$(root_of "$T/old")" ] || fail "the earlier run's s.json is not its first process's"
cp "$T/out/tl.json" "$T/stale.json"
rm -f "$T"/out/tl.*.json "$T"/out/s.*.json "$T/out/log.txt"

# 2. Two runs at once, the stale files there.
tree "$T/out" "$T/a" & a=$!
tree "$T/out" "$T/b" & b=$!
wait $a || fail "run a failed"
wait $b || fail "run b failed"
owner=$(pid_in "$T/out/s.json")
[ "$owner" = "$(root_of "$T/a")" ] || [ "$owner" = "$(root_of "$T/b")" ] ||
	fail "s.json holds pid $owner, not the first process of a new run: the stale file was kept"
run_cmd merge "$CUSHIM" timeline --merge "$T"/out/tl*.json -o "$T/out/all.json"
expect_rc merge 0
grep -q "of 16 processes" "$T/merge.out" || fail "cushim timeline --merge: $(cat "$T/merge.out" "$T/merge.err")"
run_cmd table "$CUSHIM" summary "$T"/out/s*.json
expect_rc table 0
grep -q "^16 processes (pids " "$T/table.out" || fail "cushim summary's table: $(head -3 "$T/table.out")"
"$CUSHIM" summary --json "$T"/out/s*.json >"$T/s-all.json" || fail "cushim summary --json failed"
mv "$T/s-all.json" "$T/out/"
echo "== two runs of 8 processes at once, every output without %p:"
ls "$T/out"
$check "$T/out" "$T/a/records" "$T/b/records" || fail "two runs at once"

# 3. Through a launcher.
mkdir -p "$T/lr" "$T/kr"
"$CUSHIM" run --timeline="$T/launch/tl.json" --summary="$T/launch/s.json" --log=trace \
	--log-file="$T/launch/log.txt" -- sh -c "mkdir -p '$T/launch' && PROCS_DIR='$T/lr' exec '$app'" ||
	fail "the run through sh -c failed"
run_cmd lmerge "$CUSHIM" timeline --merge "$T"/launch/tl*.json -o "$T/launch/all.json"
expect_rc lmerge 0
"$CUSHIM" summary --json "$T"/launch/s*.json >"$T/s-all.json" || fail "cushim summary --json failed"
mv "$T/s-all.json" "$T/launch/"
echo "== cushim run -- sh -c procs-app:"
$check "$T/launch" "$T/lr/records" || fail "through a launcher"

# 4. Not a run's first process: a file there is kept.
mkdir -p "$T/keep"
echo kept >"$T/keep/s.json"
CUSHIM_RUN=1-1 CUSHIM_SUMMARY=$T/keep/s.json PROCS_DIR=$T/kr LD_PRELOAD=$SHIMLIB "$app" || fail "the kept run failed"
[ "$(cat "$T/keep/s.json")" = kept ] || fail "a process of a run that had begun replaced s.json"
[ "$(ls "$T"/keep/s.*.json | wc -l)" -eq 8 ] || fail "beside a kept file: $(ls "$T/keep")"

# 5. Two processes in one file, as an older cushim wrote them: the second
#    truncated the first's and both appended.
first=$(ls "$T"/out/tl.*.json | head -1)
$PYTHON - "$T/out/tl.json" "$first" "$T/mixed.json" <<'EOF'
import sys
a, b = open(sys.argv[1]).read(), open(sys.argv[2]).read()
a_events = a.strip()[1:-1].split(",\n")[3:]   # its name and first events lost
out = b.rstrip()[:-1].rstrip() + "".join(",\n" + e for e in a_events[:-2]) + "\n]\n"
out += "".join(",\n" + e for e in a_events[-2:]) + "\n]\n"
open(sys.argv[3], "w").write(out)
EOF
run_cmd mixed "$CUSHIM" timeline "$T/mixed.json"
expect_rc mixed 1
grep -q "written by 2 processes" "$T/mixed.out" || fail "cushim timeline on a file two wrote: $(cat "$T/mixed.out")"
run_cmd fix "$CUSHIM" timeline --repair "$T/mixed.json"
expect_rc fix 0
want=$($PYTHON -c 'import json, sys
print(len(json.load(open(sys.argv[1]))) + len(json.load(open(sys.argv[2]))) - 3 + 1)' "$T/out/tl.json" "$first")
got=$($PYTHON -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$T/mixed.json") ||
	fail "the repaired file is not valid JSON"
[ "$got" = "$want" ] || fail "the repaired file has $got events, wanted $want (every whole one, one name added)"

# 6. Two runs merged; summaries that are no summaries.
run_cmd runs "$CUSHIM" timeline --merge "$T/stale.json" "$T/out/tl.json" -o "$T/two.json"
expect_rc runs 0
grep -q "come from 2 runs" "$T/runs.err" || fail "merging two runs' files: $(cat "$T/runs.err")"
: >"$T/empty.json"
run_cmd empty "$CUSHIM" summary "$T/empty.json" "$T/out/s.json"
expect_rc empty 1
grep -q "is empty" "$T/empty.err" || fail "cushim summary on an empty file: $(cat "$T/empty.err")"
run_cmd notsum "$CUSHIM" summary "$T/out/tl.json"
expect_rc notsum 2
grep -q "not a summary" "$T/notsum.err" || fail "cushim summary on a timeline: $(cat "$T/notsum.err")"

# 7. Python's multiprocessing: spawn's workers end normally, and all holds.
o=$T/py-spawn
mkdir -p "$o"
CUSHIM_TIMELINE=$o/tl.json CUSHIM_SUMMARY=$o/s.json CUSHIM_LOG=trace CUSHIM_LOG_FILE=$o/log.txt \
	LD_PRELOAD=$SHIMLIB $PYTHON "$top_srcdir/tests/timeline/procs-pool.py" spawn "$T/py-spawn.rec" ||
	fail "the spawn pool failed"
"$CUSHIM" timeline --merge "$o"/tl*.json -o "$T/all.json" >/dev/null || fail "merging the spawn pool's"
"$CUSHIM" summary --json "$o"/s*.json >"$T/s-all.json" || fail "adding up the spawn pool's"
mv "$T/all.json" "$T/s-all.json" "$o/"
echo "== a multiprocessing pool, spawn:"
$check "$o" "$T/py-spawn.rec" || fail "a spawn pool"
#    forkserver's end with os._exit, which runs no exit handler: still one
#    timeline per worker, holding its pid alone, cut where _exit cut it, and
#    merged as one valid trace of all eight.
o=$T/py-fs
mkdir -p "$o"
CUSHIM_TIMELINE=$o/tl.json LD_PRELOAD=$SHIMLIB $PYTHON "$top_srcdir/tests/timeline/procs-pool.py" forkserver \
	"$T/py-fs.rec" || fail "the forkserver pool failed"
run_cmd fs "$CUSHIM" timeline --merge "$o"/tl*.json -o "$T/fs-all.json"
expect_rc fs 0
for pid in $(cut -d' ' -f1 "$T/py-fs.rec"); do
	n=$(grep -l "\"pid\":$pid," "$o"/tl*.json | wc -l)
	[ "$n" -eq 1 ] || fail "forkserver worker $pid is in $n timeline files"
done
$PYTHON -c 'import json, sys
procs = {e["pid"] for e in json.load(open(sys.argv[1])) if e.get("name") == "process_name"}
want = {int(l.split()[0]) for l in open(sys.argv[2])}
sys.exit(0 if procs == want else "merged: %r, wanted %r" % (sorted(procs), sorted(want)))' "$T/fs-all.json" "$T/py-fs.rec" ||
	fail "the forkserver pool's merged timeline"
finish
