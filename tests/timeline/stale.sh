#!/bin/sh
# A run's first process empties an output file only when the run that wrote
# it is over.  A parent under cushim that makes no driver call forks and
# execs out-app (5 calls: the child is of the parent's run and writes
# tl.json), waits for it, then starts out-app again (7 calls) through the C
# library's posix_spawn, past cushim's exec functions: the new process
# carries no mark and begins a run of its own.  The first run's
# first process (the parent) still lives, so tl.json is not stale: the new
# process writes a derived name, and the child's 5 calls stay.  Once the
# parent has ended, a later run empties tl.json as stale, as before.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/timeline/out-app
[ -z "$EXE_WRAPPER" ] || { echo "the parent is this machine's Python: not under an emulator" >&2; exit 77; }

calls() { # FILE: its call events, or "none" where it is no valid timeline
	$PYTHON -c 'import json, sys; print(sum(e.get("ph") == "X" for e in json.load(open(sys.argv[1]))))' "$1" \
		2>/dev/null || echo none
}

# The parent: Python itself (not a launcher script that would start it, nor
# timeout, under cushim: each would begin the run and pass its mark on).
py=$($PYTHON -c 'import sys; print(sys.executable)') || exit 99
# The first child is out-app under the name "run": its timeline names its
# process "run" before the bootstrap event gives the run's mark.
mkdir "$T/bin" && ln -s "$app" "$T/bin/run" || exit 99
timeout 60 env CUSHIM_TIMELINE="$T/tl.json" LD_PRELOAD="$SHIMLIB" "$py" -c '
import os, sys
app = sys.argv[1]
if "CUSHIM_RUN" in os.environ:
    sys.exit("the parent is no run first process: CUSHIM_RUN=" + os.environ["CUSHIM_RUN"])
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], [sys.argv[2], "calls", "5"])
os.waitpid(pid, 0)
child = os.posix_spawn(app, [app, "calls", "7"], os.environ)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
' "$app" "$T/bin/run" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_rc run 0
others=$(ls "$T" | grep -c '^tl\..*\.json$')
echo "while the run lived: tl.json $(calls "$T/tl.json") call events; $others derived file(s)"
[ "$(calls "$T/tl.json")" = 5 ] || fail "tl.json lost the child's 5 calls: $(head -c 300 "$T/tl.json" 2>&1)"
[ "$others" -eq 1 ] && [ "$(calls "$T"/tl.*.json)" = 7 ] ||
	fail "the posix_spawn child's 7 calls are not in one derived file: $(ls "$T")"

rm -f "$T"/tl.*.json
timeout 30 env CUSHIM_TIMELINE="$T/tl.json" LD_PRELOAD="$SHIMLIB" "$app" calls 3 >/dev/null 2>"$T/later.err"
rc=$?
expect_rc later 0
echo "a later run: tl.json $(calls "$T/tl.json") call events"
[ "$(calls "$T/tl.json")" = 3 ] || fail "a later run did not empty the ended run's tl.json: $(ls "$T")"
finish
