#!/bin/sh
# cushim run: adds libcushim.so to LD_PRELOAD (never replacing, never twice),
# maps options onto CUSHIM_* variables, and passes the exit status through.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER
show_preload='printf "%s\n" "${LD_PRELOAD-unset}"'

# 1. The shim is preloaded: LD_PRELOAD says so and the child has it mapped.
run_cmd alone "$CUSHIM" run -- sh -c "$show_preload"
expect_rc alone 0
[ "$(cat "$T/alone.out")" = "$SHIMLIB" ] || fail "LD_PRELOAD is '$(cat "$T/alone.out")', wanted '$SHIMLIB'"
if [ -z "$EXE_WRAPPER" ]; then
	run_cmd maps "$CUSHIM" run -- sh -c 'cat /proc/$$/maps'
	grep -qF "$SHIMLIB" "$T/maps.out" || fail "the child does not have $SHIMLIB mapped"
else
	# Emulated, the build machine's sh cannot load this build's library: a
	# program of the build that links no libcuda.so.1 finds the driver API
	# (dlsym) only in a preloaded shim.
	run_cmd maps "$CUSHIM" run -- $EXE_WRAPPER "$top_builddir/tests/blackbox/dlsym-app"
	expect_rc maps 0
	grep -q absent "$T/maps.out" && fail "the program run does not have the shim loaded: $(cat "$T/maps.out")"
fi

# 2. An existing LD_PRELOAD is kept: cushim goes first, the rest follows.
#    (The libc the command itself loads: a library of its machine.)
other=$(LD_TRACE_LOADED_OBJECTS=1 $EXE_WRAPPER "$top_builddir/cushim" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$other" ] || { echo "cannot find libc for an LD_PRELOAD to keep" >&2; exit 99; }
LD_PRELOAD=$other run_cmd compose "$CUSHIM" run -- sh -c "$show_preload"
expect_rc compose 0
[ "$(cat "$T/compose.out")" = "$SHIMLIB:$other" ] || fail "LD_PRELOAD is '$(cat "$T/compose.out")', wanted '$SHIMLIB:$other'"
#    In masquerade cushim goes last: a preloaded library that hooks the driver
#    comes first and reaches the driver through cushim (tests/hardening/interposer.sh).
LD_PRELOAD=$other run_cmd composemasq "$CUSHIM" run --masquerade -- sh -c "$show_preload"
expect_rc composemasq 0
[ "$(cat "$T/composemasq.out")" = "$other:$SHIMLIB" ] ||
	fail "masquerade: LD_PRELOAD is '$(cat "$T/composemasq.out")', wanted '$other:$SHIMLIB'"

# 3. Nested: the shim is not stacked twice.
LD_PRELOAD=$other run_cmd nested "$CUSHIM" run -- "$CUSHIM" run -- sh -c "$show_preload"
expect_rc nested 0
[ "$(cat "$T/nested.out")" = "$SHIMLIB:$other" ] || fail "nested LD_PRELOAD is '$(cat "$T/nested.out")', wanted '$SHIMLIB:$other'"

# 4. Exit status: passed through; 128+N for a signal; 127 when it cannot start.
for s in 0 3 42; do
	run_cmd exit$s "$CUSHIM" run -- sh -c "exit $s"
	expect_rc exit$s $s
done
run_cmd term "$CUSHIM" run -- sh -c 'kill -TERM $$'
expect_rc term 143
run_cmd kill "$CUSHIM" run -- sh -c 'kill -KILL $$'
expect_rc kill 137
run_cmd nopath "$CUSHIM" run -- "$T/no-such-program" arg
expect_rc nopath 127
grep -qF "$T/no-such-program" "$T/nopath.err" || fail "127 without naming the program: $(cat "$T/nopath.err")"
run_cmd nofind "$CUSHIM" run -- cushim-no-such-program-here
expect_rc nofind 127
grep -q "cushim-no-such-program-here" "$T/nofind.err" || fail "127 without naming the program: $(cat "$T/nofind.err")"
printf 'not a program\n' >"$T/noexec"
chmod -x "$T/noexec"
run_cmd noexec "$CUSHIM" run -- "$T/noexec"
expect_rc noexec 127
# Signals sent to cushim reach the program.  Not under an emulator: there
# qemu-user delivers the signal to the emulated cushim, and in 2 of 4 runs it
# ended cushim itself (143) rather than run its handler; the native build
# tests the forwarding.
if [ -n "${EXE_WRAPPER:-}" ]; then
	echo "SKIP (this case): signal forwarding under $EXE_WRAPPER (the emulator's signal delivery)"
else
	"$CUSHIM" run -- sh -c 'trap "exit 7" TERM; echo ready; while :; do sleep 0.1; done' >"$T/fwd.out" 2>&1 &
	pid=$!
	i=0
	while [ ! -s "$T/fwd.out" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	kill -TERM $pid
	(sleep 20; kill -KILL $pid 2>/dev/null) & dog=$! # a lost signal fails the test instead of hanging it
	wait $pid
	rc=$?
	kill $dog 2>/dev/null
	[ "$rc" -eq 7 ] || fail "SIGTERM to cushim run: exit status $rc, wanted the program's 7"
fi

# 5. Options become variables; the program's own options stay its own.
run_cmd opts "$CUSHIM" run --log=trace --log-file="$T/log.%p" --summary="$T/s.json" --driver-version=12.0 \
	--hide='cuMulticast*,cuMemCreate' -- sh -c 'env; echo "args: $*"' sh --log=x -- y
expect_rc opts 0
for want in CUSHIM_LOG=trace "CUSHIM_LOG_FILE=$T/log.%p" "CUSHIM_SUMMARY=$T/s.json" CUSHIM_DRIVER_VERSION=12.0 \
	'CUSHIM_HIDE=cuMulticast*,cuMemCreate' 'args: --log=x -- y'; do
	grep -qxF "$want" "$T/opts.out" || fail "the program does not see '$want'"
done
run_cmd summary "$CUSHIM" run --summary -- sh -c 'echo "$CUSHIM_SUMMARY"'
[ "$(cat "$T/summary.out")" = 1 ] || fail "--summary gives CUSHIM_SUMMARY='$(cat "$T/summary.out")', wanted 1"
for bad in --log=loud --driver-version=twelve --hide= --hide=a,,b --summary=out.txt --log-file= --lib="$T/nothing.so"; do
	run_cmd bad "$CUSHIM" run "$bad" -- true
	expect_rc bad 125
	grep -qF -- "${bad%%=*}" "$T/bad.err" || fail "$bad: the message does not name the option: $(cat "$T/bad.err")"
done
run_cmd noprog "$CUSHIM" run --log=info
expect_rc noprog 125

# 6. --lib picks the library.
cp "$SHIMLIB" "$T/libcushim.so"
run_cmd lib "$CUSHIM" run --lib="$T/libcushim.so" -- sh -c "$show_preload"
[ "$(cat "$T/lib.out")" = "$(realpath "$T/libcushim.so")" ] || fail "--lib gives LD_PRELOAD='$(cat "$T/lib.out")'"

# 7. --masquerade: a private folder first on LD_LIBRARY_PATH whose libcuda.so.1
#    is the shim, CUSHIM_DRIVER naming the real driver; gone afterwards.
fake=$top_builddir/tests/fake
drv=$fake/drv-11.4/libcuda.so.1 # a driver (the fake one) that is not the shim
[ -e "$drv" ] || { echo "no fake driver $drv" >&2; exit 99; }
masq='d=${LD_LIBRARY_PATH%%:*}; echo "$d"; readlink -f "$d/libcuda.so.1"; echo "${CUSHIM_DRIVER-unset}"; echo "$LD_LIBRARY_PATH"'
LD_LIBRARY_PATH=/opt/keep run_cmd masq "$CUSHIM" run --masquerade --driver="$drv" -- sh -c "$masq"
expect_rc masq 0
dir=$(sed -n 1p "$T/masq.out")
[ "$(sed -n 2p "$T/masq.out")" = "$SHIMLIB" ] || fail "masquerade: $dir/libcuda.so.1 is not the shim"
[ "$(sed -n 3p "$T/masq.out")" = "$(realpath "$drv")" ] || fail "masquerade: CUSHIM_DRIVER is '$(sed -n 3p "$T/masq.out")'"
[ "$(sed -n 4p "$T/masq.out")" = "$dir:/opt/keep" ] || fail "masquerade: LD_LIBRARY_PATH is '$(sed -n 4p "$T/masq.out")'"
[ -n "$dir" ] && [ -e "$dir" ] && fail "masquerade: $dir is left behind"
# A diagnostic or emulation option means masquerade (a runtime's own calls
# are seen only there), unless --preload; both at once is a usage error.
for opt in --summary --log=trace --timeline=tl.json --record --driver-version=11.2; do
	run_cmd diagmasq "$CUSHIM" run "$opt" --driver="$drv" -- sh -c "$masq"
	expect_rc diagmasq 0
	[ "$(sed -n 2p "$T/diagmasq.out")" = "$SHIMLIB" ] || fail "$opt: not masquerade: $(cat "$T/diagmasq.out")"
	LD_LIBRARY_PATH=$fake/drv-11.4 run_cmd diagpre "$CUSHIM" run --preload "$opt" -- sh -c "$show_preload"'; echo "${LD_LIBRARY_PATH-}"'
	expect_rc diagpre 0
	[ "$(sed -n 1p "$T/diagpre.out")" = "$(realpath "$SHIMLIB")" ] && ! grep -q cushim-masquerade "$T/diagpre.out" ||
		fail "--preload $opt: $(cat "$T/diagpre.out")"
done
run_cmd bothmodes "$CUSHIM" run --preload --masquerade -- true
expect_rc bothmodes 125
LD_LIBRARY_PATH=$fake/drv-11.4 run_cmd warnonly "$CUSHIM" run --log=info -- sh -c "$masq"
grep -q cushim-masquerade "$T/warnonly.out" && fail "--log=info alone chose masquerade"
# Refused before the program starts, each in one line, exit 125: a --lib
# that is no cushim library, a bad CUSHIM_* value, an output's folder that
# cannot take it.
run_cmd notlib "$CUSHIM" run --lib=/bin/ls -- sh -c 'echo started'
expect_rc notlib 125
grep -q "/bin/ls is not a cushim library" "$T/notlib.err" && ! grep -q started "$T/notlib.out" ||
	fail "--lib=/bin/ls: $(cat "$T/notlib.out" "$T/notlib.err")"
for bad in CUSHIM_DRIVER_VERSION=abc CUSHIM_DRIVER_VERSION=99.9 CUSHIM_LOG=loud; do
	env "$bad" "$CUSHIM" run -- sh -c 'echo started' >"$T/badv.out" 2>"$T/badv.err"
	rc=$?
	[ "$rc" -eq 125 ] && [ "$(wc -l <"$T/badv.err")" -eq 1 ] && grep -q "^cushim: ${bad%%=*}=" "$T/badv.err" &&
		! grep -q started "$T/badv.out" || fail "$bad: exit $rc: $(cat "$T/badv.out" "$T/badv.err")"
done
: >"$T/plainfile"
for out in --summary="$T/plainfile/s.json" --timeline="$T/plainfile/t.json" --log-file="$T/plainfile/l.log" \
	--record="$T/plainfile/r.rec"; do
	run_cmd badout "$CUSHIM" run "$out" -- sh -c 'echo started'
	expect_rc badout 125
	grep -q "$T/plainfile is not a folder" "$T/badout.err" && ! grep -q started "$T/badout.out" ||
		fail "$out: $(cat "$T/badout.out" "$T/badout.err")"
done
# A folder the program makes itself is no reason to refuse.
run_cmd laterdir "$CUSHIM" run --summary="$T/later/s.json" -- sh -c "mkdir '$T/later' && echo started"
expect_rc laterdir 0
# Nested masquerade keeps the outer folder and adds none.
run_cmd masqnest "$CUSHIM" run --masquerade --driver="$drv" -- "$CUSHIM" run --masquerade -- sh -c 'echo "$LD_LIBRARY_PATH"'
expect_rc masqnest 0
[ "$(tr ':' '\n' <"$T/masqnest.out" | grep -c cushim-masquerade)" -eq 1 ] || fail "nested masquerade: LD_LIBRARY_PATH is $(cat "$T/masqnest.out")"
# cushim itself is no driver, nor is a library that is not one.
run_cmd masqself "$CUSHIM" run --masquerade --driver="$SHIMLIB" -- true
expect_rc masqself 125
grep -q -- "--driver=$SHIMLIB is not a usable driver" "$T/masqself.err" || fail "--driver=cushim: $(cat "$T/masqself.err")"
run_cmd masqlibc "$CUSHIM" run --masquerade --driver="$other" -- true
expect_rc masqlibc 125
# A CUSHIM_DRIVER that is no driver is passed over for the one the search
# finds, and said once.
if [ -e "$fake/drv-11.4/libcuda.so.1" ] && [ -e "$fake/bad-drv/libcuda.so.1" ]; then
	CUSHIM_DRIVER=$fake/bad-drv/libcuda.so.1 LD_LIBRARY_PATH=$fake/drv-11.4 \
		run_cmd masqbad "$CUSHIM" run --masquerade -- sh -c 'echo "$CUSHIM_DRIVER"'
	expect_rc masqbad 0
	[ "$(cat "$T/masqbad.out")" = "$(realpath "$fake/drv-11.4/libcuda.so.1")" ] ||
		fail "a bad CUSHIM_DRIVER: the program gets CUSHIM_DRIVER=$(cat "$T/masqbad.out")"
	[ "$(grep -c "CUSHIM_DRIVER=$fake/bad-drv/libcuda.so.1 is not a usable driver" "$T/masqbad.err")" -eq 1 ] ||
		fail "a bad CUSHIM_DRIVER is not said once: $(cat "$T/masqbad.err")"
fi
# Without --driver: a driver found on this machine, or one line saying there is none.
run_cmd masqauto "$CUSHIM" run --masquerade -- sh -c 'echo "${CUSHIM_DRIVER-unset}"'
expect_rc masqauto 0
drv=$(cat "$T/masqauto.out")
if [ "$drv" = unset ]; then
	grep -q "no real CUDA driver" "$T/masqauto.err" || fail "masquerade without a driver says nothing"
else
	[ "$(realpath "$drv")" != "$SHIMLIB" ] || fail "masquerade picked cushim itself as the driver"
fi
finish
