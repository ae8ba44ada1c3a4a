#!/bin/sh
# An exec loses nothing: out-app makes 400 calls on each of two threads, the
# second still alive, then execs itself ("calls 1"), under CUSHIM_TIMELINE,
# CUSHIM_SUMMARY=FILE.json and CUSHIM_LOG=trace to a file.  The first image's
# timeline is whole (valid JSON, closed at the exec) with its 800 calls, its
# summary counts 800, the log has its 800 lines; the new image (the same
# pid) writes derived names.  An exec that fails (no such file) goes on:
# the timeline is still one valid file, with every call once, and so is the
# summary.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/timeline/out-app
[ -z "$EXE_WRAPPER" ] || { echo "out-app execs itself: not under an emulator" >&2; exit 77; }

# FILE: whether a timeline is whole, and its call events in $n (a cut one
# is counted after `cushim timeline --repair` of a copy).
events() {
	if $PYTHON -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; then
		whole=whole
		f=$1
	else
		whole=cut
		cp "$1" "$T/copy.json" 2>/dev/null && "$CUSHIM" timeline --repair "$T/copy.json" >/dev/null 2>&1
		f=$T/copy.json
	fi
	n=$($PYTHON -c 'import json, sys; print(sum(e.get("ph") == "X" for e in json.load(open(sys.argv[1]))))' "$f" 2>/dev/null) || n=0
}
summary_calls() { sed -n 's/.*"calls": \([0-9]*\), "functions".*/\1/p' "$1"; }

# 1. The exec.
mkdir "$T/a"
env CUSHIM_TIMELINE="$T/a/tl.json" CUSHIM_SUMMARY="$T/a/s.json" CUSHIM_LOG=trace CUSHIM_LOG_FILE="$T/a/log.txt" \
	LD_PRELOAD="$SHIMLIB" timeout 30 "$app" exec 400 >"$T/exec.out" 2>"$T/exec.err"
rc=$?
expect_rc exec 0
pid=$(sed -n 's/^exec //p' "$T/exec.out")
grep -qx done "$T/exec.out" && [ -n "$pid" ] || fail "out-app exec: $(cat "$T/exec.out" "$T/exec.err")"
events "$T/a/tl.json"
calls=$(summary_calls "$T/a/s.json")
lines=$(grep -c "^cushim: [0-9.]* $pid [0-9]* cuDriverGetVersion(" "$T/a/log.txt")
echo "before the exec: tl.json $whole, $n of 800 call events; s.json: ${calls:-no} calls of 800; the log: $lines of 801 lines"
[ "$whole" = whole ] && [ "$n" -eq 800 ] || fail "the first image's timeline: $whole, $n call events, wanted whole and 800"
[ "$calls" = 800 ] || fail "the first image's summary: $(head -c 300 "$T/a/s.json")"
[ "$lines" -eq 801 ] || fail "the log: $lines lines of pid $pid, wanted 800 before the exec and 1 after"
events "$T/a/tl.$pid.json"
[ "$whole" = whole ] && [ "$n" -eq 1 ] || fail "the new image's timeline tl.$pid.json: $whole, $n call events"
[ "$(summary_calls "$T/a/s.$pid.json")" = 1 ] || fail "the new image's summary s.$pid.json: $(cat "$T/a/s.$pid.json" 2>&1)"

# 2. An exec that fails.
mkdir "$T/b"
env CUSHIM_TIMELINE="$T/b/tl.json" CUSHIM_SUMMARY="$T/b/s.json" LD_PRELOAD="$SHIMLIB" timeout 30 \
	"$app" execfail 400 >"$T/fail.out" 2>"$T/fail.err"
rc=$?
expect_rc fail 0
events "$T/b/tl.json"
echo "a failed exec: tl.json $whole, $n of 801 call events; s.json: $(summary_calls "$T/b/s.json") calls"
[ "$whole" = whole ] && [ "$n" -eq 801 ] || fail "after a failed exec the timeline is $whole with $n call events, wanted whole and 801"
[ "$(summary_calls "$T/b/s.json")" = 801 ] || fail "after a failed exec the summary: $(head -c 300 "$T/b/s.json")"
[ "$(ls "$T/b")" = "$(printf 's.json\ntl.json')" ] || fail "files after a failed exec: $(ls "$T/b")"
finish
