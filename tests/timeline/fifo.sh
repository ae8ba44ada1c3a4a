#!/bin/sh
# What is not a regular file, at an output's name, is never written into:
#  1. A FIFO no one reads as CUSHIM_LOG_FILE: the program runs on at once
#     (an open without O_NONBLOCK would wait for a reader), one message
#     says so, and the log goes to stderr.
#  2. A FIFO as CUSHIM_TIMELINE: 3000 events, well over the 64 KiB a pipe
#     holds, go to a derived name; one message names both.  The same for
#     CUSHIM_SUMMARY.
#  3. A character device (made here, /dev/null's numbers) as
#     CUSHIM_TIMELINE: refused the same way (needs mknod: root).
#  4. What is read is never opened either when it is not a regular file: a
#     FIFO as CUSHIM_DRIVER in masquerade (the loader would wait on it for
#     ever): one message, and the driver is found as without it; a FIFO
#     given to cushim timeline and cushim summary: one line, exit 2.
# Each program runs under timeout: a hang is a failure.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/timeline/out-app
mkfifo "$T/log.fifo" "$T/tl.json" "$T/s.json" || { echo "mkfifo failed" >&2; exit 99; }

ended() { # NAME: the run ended in time, exit 0
	if [ "$rc" -eq 124 ]; then
		echo "$1: hung, killed after 30 s"
		fail "$1: the program blocked on a FIFO"
		return 1
	fi
	expect_rc "$1" 0
}
calls_in() { $PYTHON -c 'import json, sys; print(sum(e.get("ph") == "X" for e in json.load(open(sys.argv[1]))))' "$1"; }

# 1. The log.
run_cmd log timeout 30 "$CUSHIM" run --log=trace --log-file="$T/log.fifo" -- $EXE_WRAPPER "$app" calls 10
if ended log; then
	grep "log.fifo" "$T/log.err"
	[ "$(grep -c "CUSHIM_LOG_FILE $T/log.fifo is a FIFO, not a regular file: logging to stderr" "$T/log.err")" -eq 1 ] ||
		fail "the log FIFO: not one message: $(head -3 "$T/log.err")"
	[ "$(grep -c ' cuDriverGetVersion(' "$T/log.err")" -eq 10 ] || fail "the trace did not go to stderr"
fi

# 2. The timeline and the summary.
run_cmd tl timeout 30 "$CUSHIM" run --timeline="$T/tl.json" --summary="$T/s.json" -- $EXE_WRAPPER "$app" calls 3000
if ended tl; then
	grep "FIFO" "$T/tl.err"
	pid=$(sed -n 's|.*this process writes '"$T"'/tl\.\([0-9]*\)\.json instead$|\1|p' "$T/tl.err")
	[ "$(grep -c "CUSHIM_TIMELINE file $T/tl.json is a FIFO, not a regular file: this process writes" "$T/tl.err")" -eq 1 ] &&
		[ -n "$pid" ] || fail "the timeline FIFO: not one message: $(cat "$T/tl.err")"
	[ "$(grep -c "CUSHIM_SUMMARY file $T/s.json is a FIFO, not a regular file: this process writes $T/s.$pid.json instead" "$T/tl.err")" -eq 1 ] ||
		fail "the summary FIFO: not one message: $(cat "$T/tl.err")"
	n=$(calls_in "$T/tl.$pid.json") || n=0
	echo "tl.$pid.json: $n call events"
	[ "$n" -eq 3000 ] || fail "tl.$pid.json holds $n call events, wanted 3000"
	grep -q '"calls": 3000' "$T/s.$pid.json" || fail "s.$pid.json: $(cat "$T/s.$pid.json")"
	[ -p "$T/tl.json" ] && [ -p "$T/s.json" ] || fail "a FIFO was replaced"
fi

# 3. A device.
if mknod "$T/dev.json" c 1 3 2>/dev/null; then
	run_cmd dev timeout 30 "$CUSHIM" run --timeline="$T/dev.json" -- $EXE_WRAPPER "$app" calls 10
	if ended dev; then
		grep -q "CUSHIM_TIMELINE file $T/dev.json is a character device, not a regular file: this process writes" \
			"$T/dev.err" || fail "the device: $(cat "$T/dev.err")"
	fi
else
	echo "no device made (mknod needs root): that case is skipped"
fi

# 4. What is read.
mkfifo "$T/drv.fifo" || exit 99
mkdir -p "$T/masq" && ln -s "$top_builddir/.libs/libcushim.so" "$T/masq/libcuda.so.1" || exit 99
LD_LIBRARY_PATH=$T/masq:$fake/drv-13.0:$fake/no-rt CUSHIM_DRIVER=$T/drv.fifo run_cmd drvfifo timeout 30 \
	$EXE_WRAPPER "$app" calls 10
if ended drvfifo; then
	[ "$(grep -c "$T/drv.fifo is not a regular file: not loaded as a driver" "$T/drvfifo.err")" -eq 1 ] ||
		fail "CUSHIM_DRIVER a FIFO: not one message: $(cat "$T/drvfifo.err")"
fi
for cmd in timeline summary; do
	run_cmd "cmd-$cmd" timeout 30 "$CUSHIM" "$cmd" "$T/tl.json"
	[ "$rc" -ne 124 ] || fail "cushim $cmd FIFO: hung"
	expect_rc "cmd-$cmd" 2
	grep -qx "cushim: $T/tl.json: a FIFO" "$T/cmd-$cmd.err" || fail "cushim $cmd FIFO: $(cat "$T/cmd-$cmd.err")"
done
finish
