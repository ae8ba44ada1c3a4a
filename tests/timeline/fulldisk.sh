#!/bin/sh
# A full disk: a 64 KiB tmpfs (mounting needs root; skipped without).
#  1. The timeline and the JSON summary there, 3000 calls: the timeline is
#     cut, said once; the summary cannot be written, said once, and the
#     table goes to the log instead; cushim run's exit line names both.
#  2. The log file there, 3000 trace lines: said once, on stderr, and in
#     the exit line.
#  3. A record file there (CUSHIM_RECORD): its failed write said once, at exit.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/timeline/out-app
# the program cushim run starts: out-app, or a cross build's emulator running it
prog=out-app
[ -n "${EXE_WRAPPER:-}" ] && prog=$(basename "${EXE_WRAPPER%% *}")
mkdir "$T/full" "$T/full2" || exit 99
mount -t tmpfs -o size=64k cushim-full "$T/full" 2>/dev/null || { echo "cannot mount a tmpfs here (not root?)" >&2; exit 77; }
trap 'umount "$T/full" "$T/full2" 2>/dev/null; rm -rf "$T"' EXIT
mount -t tmpfs -o size=64k cushim-full "$T/full2" || exit 99
one() { # NAME PATTERN
	[ "$(grep -c -- "$2" "$T/$1.err")" -eq 1 ] || fail "$1: not one line '$2': $(cat "$T/$1.err")"
}

# 1.
run_cmd tl timeout 30 "$CUSHIM" run --timeline="$T/full/tl.json" --summary="$T/full/s.json" -- $EXE_WRAPPER "$app" calls 3000
expect_rc tl 0
cat "$T/tl.err"
one tl "^cushim: cannot write CUSHIM_TIMELINE file $T/full/tl.json: No space left on device; the timeline is cut there"
one tl "^cushim: cannot write CUSHIM_SUMMARY file $T/full/s.json: No space left on device; summary on the log instead"
one tl "^cushim:       3000        0 .* cuDriverGetVersion$"
one tl "^cushim: .*$prog ended, but writes to its outputs failed (said on its log): pid [0-9]*: cannot write CUSHIM_TIMELINE file $T/full/tl.json: No space left on device; .*; pid [0-9]*: cannot write CUSHIM_SUMMARY file $T/full/s.json: No space left on device"
cp "$T/full/tl.json" "$T/cut.json"
run_cmd repair "$CUSHIM" timeline --repair "$T/cut.json"
grep -q "repaired" "$T/repair.out" || fail "the cut timeline: $(cat "$T/repair.out" "$T/repair.err")"

# 2.
run_cmd log timeout 30 "$CUSHIM" run --log=trace --log-file="$T/full2/log" -- $EXE_WRAPPER "$app" calls 3000
expect_rc log 0
cat "$T/log.err"
one log "^cushim: cannot write CUSHIM_LOG_FILE $T/full2/log: No space left on device; what follows in it is lost$"
one log "^cushim: .*$prog ended, but writes to its outputs failed (said on its log): pid [0-9]*: cannot write CUSHIM_LOG_FILE $T/full2/log: No space left on device"

# 3. The record file (a ring is a MiB) on the full disk: said once, at exit.
rm -f "$T/full2/log"
run_cmd rec timeout 30 "$CUSHIM" run --record="$T/full2/r.rec" -- $EXE_WRAPPER "$app" calls 3000
expect_rc rec 0
one rec "^cushim: cannot write CUSHIM_RECORD file $T/full2/r.rec: No space left on device; it holds only part of the records$"
finish
