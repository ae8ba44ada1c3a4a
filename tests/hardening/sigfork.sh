#!/bin/sh
# A fork from a signal handler while the thread it interrupted is inside a
# traced driver call (sigfork-app: a SIGALRM every 200 us forks, 200 times):
# plain, under CUSHIM_LOG=trace and under CUSHIM_TIMELINE, each under
# timeout.  Tracing, a fork must never wait for the buffer of the very
# thread its handler interrupted.  Each child goes back into the interrupted
# call and makes 3 calls more: its timeline is valid and holds those 3 calls,
# under its own pid, and nothing of its parent's.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/hardening/sigfork-app

for mode in plain trace timeline; do
	case $mode in
	plain) set -- ;;
	trace) set -- CUSHIM_LOG=trace CUSHIM_LOG_FILE="$T/trace.log" ;;
	timeline) set -- CUSHIM_TIMELINE="$T/tl.json" ;;
	esac
	run_cmd "$mode" env LD_PRELOAD="$SHIMLIB" "$@" timeout 30 $EXE_WRAPPER "$app" 200
	if [ "$rc" -eq 124 ]; then
		echo "$mode: hung, killed after 30 s"
		fail "$mode: 200 forks from a signal handler did not end in 30 s"
		continue
	fi
	echo "$mode: $(cat "$T/$mode.out")"
	expect_rc "$mode" 0
	grep -q '^forks 200 ' "$T/$mode.out" || fail "$mode: $(cat "$T/$mode.out" "$T/$mode.err")"
done

$PYTHON - "$T" <<'PY' || fail "the children's timelines"
import glob, json, os, sys
files = [f for f in glob.glob(os.path.join(sys.argv[1], "tl.*.json"))]
bad = []
for f in files:
    try:
        ev = json.load(open(f))
    except ValueError as e:
        bad.append("%s: not JSON: %s" % (f, e))
        continue
    pids = {e["pid"] for e in ev}
    calls = [e for e in ev if e.get("ph") == "X"]
    if len(pids) != 1 or len(calls) not in (3, 4):
        bad.append("%s: pids %s, %d calls" % (f, sorted(pids), len(calls)))
print("%d children's timelines, %d wrong" % (len(files), len(bad)))
for b in bad[:5]:
    print(b)
sys.exit(1 if bad or len(files) != 200 else 0)
PY
finish
