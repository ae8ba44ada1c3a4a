#!/bin/sh
# The output files are the user's own.  In a shared folder (mode 1777) the
# test makes, as the files another user could make there:
#   tl.json  mode 0666 (another user's, uid 65534, where the test is root)
#   s.json   this user's, mode 0644, not empty
#   log.txt  this user's, mode 0644 (CUSHIM_LOG_FILE)
#   two.json this user's, mode 0600, with a second name (a hard link)
# None is written into, emptied or read: each is said once, the timeline and
# the summary go to derived names (mode 0600), the log to stderr.  With
# setpriv, as root, a file another user really made (uid 65534) is refused
# too.  `cushim timeline --merge` writes its output mode 0600, as its
# inputs are.
. "$top_srcdir/tests/harness/defs.sh"
on_fake_driver tests/timeline/out-app
umask 022
d=$T/shared
mkdir "$d" && chmod 1777 "$d" && chmod 755 "$T" || exit 99
printf 'theirs\n' >"$d/tl.json" && chmod 666 "$d/tl.json"
chown 65534 "$d/tl.json" 2>/dev/null && other=1 || other=0
printf 'mine\n' >"$d/s.json" && chmod 644 "$d/s.json"
printf 'old\n' >"$d/log.txt" && chmod 644 "$d/log.txt"
printf 'two\n' >"$d/two.json" && chmod 600 "$d/two.json" && ln "$d/two.json" "$d/two-link"

same() { # FILE CONTENT MODE
	[ "$(cat "$1")" = "$2" ] && [ "$(stat -c %a "$1")" = "$3" ] || fail "$1 was changed: mode $(stat -c %a "$1"): $(head -c 200 "$1")"
}
one() { # NAME PATTERN
	[ "$(grep -c -- "$2" "$T/$1.err")" -eq 1 ] || fail "$1: not one message '$2': $(cat "$T/$1.err")"
}

# 1. The timeline and the summary.
run_cmd run timeout 30 "$CUSHIM" run --timeline="$d/tl.json" --summary="$d/s.json" -- $EXE_WRAPPER "$app" calls 5
expect_rc run 0
grep "$d" "$T/run.err"
if [ "$other" = 1 ]; then
	one run "CUSHIM_TIMELINE file $d/tl.json is owned by uid 65534, not by this user (uid $(id -u)): this process writes $d/tl\.[0-9]*\.json instead"
else
	one run "CUSHIM_TIMELINE file $d/tl.json has mode 0666: group or others may read or write it (cushim's files are 0600): this process writes"
fi
one run "CUSHIM_SUMMARY file $d/s.json has mode 0644: group or others may read or write it (cushim's files are 0600): this process writes $d/s\.[0-9]*\.json instead"
same "$d/tl.json" theirs 666
same "$d/s.json" mine 644
for f in "$d"/tl.[0-9]*.json "$d"/s.[0-9]*.json; do
	[ -s "$f" ] && [ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f" 2>&1), size $(stat -c %s "$f" 2>&1)"
done

# 2. The log.
run_cmd log timeout 30 "$CUSHIM" run --log=trace --log-file="$d/log.txt" -- $EXE_WRAPPER "$app" calls 5
expect_rc log 0
one log "CUSHIM_LOG_FILE $d/log.txt has mode 0644: group or others may read or write it (cushim's files are 0600): logging to stderr"
[ "$(grep -c ' cuDriverGetVersion(' "$T/log.err")" -eq 5 ] || fail "the trace did not go to stderr"
same "$d/log.txt" old 644

# 3. Two names.
run_cmd two timeout 30 "$CUSHIM" run --timeline="$d/two.json" -- $EXE_WRAPPER "$app" calls 5
expect_rc two 0
one two "CUSHIM_TIMELINE file $d/two.json has 2 names (hard links): this process writes"
same "$d/two.json" two 600

# 4. Another user's file, made by that user.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "umask 0; : >'$d/their.json'" 2>/dev/null; then
	run_cmd their timeout 30 "$CUSHIM" run --summary="$d/their.json" -- $EXE_WRAPPER "$app" calls 5
	expect_rc their 0
	one their "CUSHIM_SUMMARY file $d/their.json is owned by uid 65534, not by this user"
	[ ! -s "$d/their.json" ] || fail "another user's summary file was written into: $(cat "$d/their.json")"
else
	echo "no second user (needs root and setpriv): that case is skipped"
fi

# 5. The merged timeline keeps its inputs' mode.
mkdir "$T/m" || exit 99
run_cmd one "$CUSHIM" run --timeline="$T/m/tl.%p.json" -- $EXE_WRAPPER "$app" calls 5
run_cmd two "$CUSHIM" run --timeline="$T/m/tl.%p.json" -- $EXE_WRAPPER "$app" calls 5
run_cmd merge "$CUSHIM" timeline --merge "$T"/m/tl.*.json -o "$T/m/all.json"
expect_rc merge 0
echo "inputs: mode $(stat -c %a "$T"/m/tl.*.json | sort -u | tr '\n' ' ')-> all.json: mode $(stat -c %a "$T/m/all.json")"
[ "$(stat -c %a "$T/m/all.json")" = 600 ] || fail "the merged timeline has mode $(stat -c %a "$T/m/all.json"), its inputs 600"
finish
