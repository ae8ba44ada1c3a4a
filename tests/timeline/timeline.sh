#!/bin/sh
# CUSHIM_TIMELINE on the fake 11.4 driver: tl-app's events, checked one by one
# with Python's json module (check-timeline.py); its forked child's own file;
# the text trace beside it; no file for a child that only execs; a file cut short by SIGKILL, which `cushim
# timeline` calls cut and --repair makes valid; the file's mode and a symlink
# in its place; a program whose name is not text; the cause of each missing
# export, as the log says it.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/timeline/tl-app
PYTHON=${PYTHON:-python3}
check="$PYTHON $top_srcdir/tests/timeline/check-timeline.py"
for d in drv-11.4 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_CUDART \
	CUSHIM_TIMELINE
export LD_LIBRARY_PATH=$fake/drv-11.4:$fake/no-rt CUSHIM_HIDE='cuMemGetInfo*' CUSHIM_ADAPT=0

# 1. The known program through cushim run, with the text trace beside it.
run_cmd known "$CUSHIM" run --timeline="$T/tl.%p.json" --log=trace --log-file="$T/trace.log" -- $EXE_WRAPPER "$app"
expect_rc known 0
child=$(sed -n 's/^child //p' "$T/known.out")
[ -n "$child" ] || fail "tl-app printed no child pid: $(cat "$T/known.out")"
parent=$(ls "$T"/tl.*.json | grep -v "tl\.$child\.json" | head -1)
[ "$(ls "$T"/tl.*.json | wc -l)" -eq 2 ] || fail "timeline files: $(ls "$T")"
[ -f "$T/tl.$child.json" ] || fail "the forked child $child wrote no timeline of its own"
execd=$(sed -n 's/^exec child //p' "$T/known.out")
[ -n "$execd" ] && [ ! -e "$T/tl.$execd.json" ] || fail "a child that only exec'd left a timeline ($execd)"
$check known "$parent" "$T/tl.$child.json" "$child" "$T/trace.log" || fail "the known program's timeline"
for f in "$parent" "$T/tl.$child.json"; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f has mode $(stat -c %a "$f"), wanted 600"
	run_cmd complete "$CUSHIM" timeline "$f"
	expect_rc complete 0
	grep -q "complete" "$T/complete.out" || fail "cushim timeline on a whole file: $(cat "$T/complete.out")"
done

# 2. Without %p the forked child still writes its own file: NAME.PID.json.
rm -f "$T"/tl.*.json
CUSHIM_TIMELINE=$T/plain.json LD_PRELOAD=$SHIMLIB run_cmd plain $EXE_WRAPPER "$app"
expect_rc plain 0
child=$(sed -n 's/^child //p' "$T/plain.out")
[ -s "$T/plain.json" ] && [ -s "$T/plain.$child.json" ] || fail "without %p: files $(ls "$T")"
$check known "$T/plain.json" "$T/plain.$child.json" "$child" || fail "the timeline named without %p"

# 3. Killed: what the exited threads wrote is there; the file is not JSON
#    until `cushim timeline --repair`.
CUSHIM_TIMELINE=$T/killed.json LD_PRELOAD=$SHIMLIB run_cmd killed $EXE_WRAPPER "$app" kill
[ "$rc" -eq 137 ] || fail "tl-app kill: exit status $rc, wanted 137"
$PYTHON -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/killed.json" 2>/dev/null &&
	fail "the timeline of a killed process is already valid JSON: the test proves nothing"
run_cmd cut "$CUSHIM" timeline "$T/killed.json"
expect_rc cut 1
grep -q "cut short" "$T/cut.out" || fail "cushim timeline on a cut file: $(cat "$T/cut.out" "$T/cut.err")"
run_cmd repair "$CUSHIM" timeline --repair "$T/killed.json"
expect_rc repair 0
$check killed "$T/killed.json" || fail "the repaired timeline"
#    cut inside an event, too: the half event goes, the rest stays valid.
size=$(stat -c %s "$T/killed.json")
head -c $((size / 2)) "$T/killed.json" >"$T/half.json"
run_cmd half "$CUSHIM" timeline --repair "$T/half.json"
expect_rc half 0
$PYTHON -c 'import json, sys; e = json.load(open(sys.argv[1])); assert len(e) > 1000, len(e)' "$T/half.json" ||
	fail "a timeline cut in the middle of an event is not valid after --repair"
#    not a timeline: one clear message, nothing changed.
echo 'cushim: not json' >"$T/other.json"
run_cmd other "$CUSHIM" timeline --repair "$T/other.json"
expect_rc other 2
grep -q "not a timeline" "$T/other.err" || fail "cushim timeline on a text file: $(cat "$T/other.err")"
[ "$(cat "$T/other.json")" = 'cushim: not json' ] || fail "--repair changed a file that is not a timeline"

# 4. A symlink where the file would go is not followed; the program runs on.
ln -s "$T/target" "$T/link.json"
CUSHIM_TIMELINE=$T/link.json LD_PRELOAD=$SHIMLIB run_cmd link $EXE_WRAPPER "$app"
expect_rc link 0
[ -e "$T/target" ] && fail "the timeline followed a symlink"
grep -q "cannot open CUSHIM_TIMELINE file" "$T/link.err" || fail "no warning for the symlink: $(cat "$T/link.err")"

# 5. A program named with a byte that is not UTF-8, a quote, a newline, a
#    backslash and a control byte (its threads' names too): the timeline and
#    the summary are valid JSON, and name it as src/common/jsonstr.h says.
hostile=$(printf 'tl-\377"\n\\\001x')
ln -s "$(realpath "$app")" "$T/$hostile"
CUSHIM_TIMELINE=$T/named.json CUSHIM_SUMMARY=$T/named-s.json LD_PRELOAD=$SHIMLIB run_cmd named $EXE_WRAPPER "$T/$hostile"
expect_rc named 0
$PYTHON - "$T/named.json" "$T/named-s.json" "${EXE_WRAPPER:+emulated}" <<'EOF' || fail "a program named with hostile bytes"
import json, sys
want = "tl-\ufffd\"\n\\\x01x"
def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as e:
        sys.exit("%s is not valid JSON: %s" % (path, e))
tl, summary = load(sys.argv[1]), load(sys.argv[2])
procs = [e["args"]["name"] for e in tl if e.get("name") == "process_name"]
threads = {e["args"]["name"] for e in tl if e.get("name") == "thread_name"}
bad = []
if procs != [want]:
    bad.append("the timeline names the process %r, wanted %r" % (procs, want))
if not sys.argv[3] and threads != {want}:
    bad.append("the timeline names the threads %r, wanted %r" % (sorted(threads), want))
if summary.get("program") != want:
    bad.append("the summary names the program %r, wanted %r" % (summary.get("program"), want))
sys.exit("; ".join(bad) or None)
EOF

# 6. Each missing export's instant gives the cause the bootstrap found, as
#    the log's warning words it: an export both newer than the driver and
#    hidden needs a newer driver; a driver whose lookups answer cushim's own
#    exports (FAKE_GPA=self) leaves every export resolved to cushim itself,
#    a hidden one too.
CUSHIM_HIDE='cuMemGetInfo*,cuLibraryLoadData' CUSHIM_TIMELINE=$T/why.json LD_PRELOAD=$SHIMLIB \
	run_cmd why $EXE_WRAPPER "$app"
expect_rc why 0
$check why "$T/why.json" "$T/why.err" "cuLibraryLoadData=needs a newer driver" \
	"cuMemGetInfo_v2=hidden by CUSHIM_HIDE" || fail "the causes of missing exports, newer and hidden"
FAKE_GPA=self CUSHIM_TIMELINE=$T/self.json LD_PRELOAD=$SHIMLIB run_cmd self $EXE_WRAPPER "$app"
expect_rc self 0
$check why "$T/self.json" "$T/self.err" "cuInit=resolved to cushim itself, not to a driver" \
	"cuMemGetInfo_v2=resolved to cushim itself, not to a driver" || fail "the causes of exports that resolved to cushim"
finish
