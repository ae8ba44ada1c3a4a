#!/bin/sh
# Secure execution: under AT_SECURE cushim reads no CUSHIM_*
# variable and opens no log file.  A copy of secure-app with a file capability
# (cap_net_bind_service+ep), run as an unprivileged user (65534), must not
# create CUSHIM_LOG_FILE and must not apply CUSHIM_HIDE=cuDeviceGet; the same
# copy without the capability, same user, same environment, must do both
# (so the test fails if the variables were never honoured at all).
# Needs root, setcap (libcap2-bin) and setpriv (util-linux); skips (77) with
# the reason otherwise, or when the kernel does not grant AT_SECURE here.
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
b=${top_builddir:?}
[ -z "${EXE_WRAPPER:-}" ] || skip "emulated ($EXE_WRAPPER): the kernel runs the emulator, not the copy, so its file capability never sets AT_SECURE"
[ "$(id -u)" = 0 ] || skip "not root: cannot give a file capability to a copy"
command -v setcap >/dev/null 2>&1 || skip "no setcap (Debian: libcap2-bin)"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
tmp=$(mktemp -d /tmp/cushim-secure.XXXXXX) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/logs" && chmod 1777 "$tmp/logs"
cp "$b/tests/hardening/secure-app" "$tmp/plain-app"
cp "$b/tests/hardening/secure-app" "$tmp/cap-app"
cp "$b/.libs/libcushim.so" "$tmp/libcushim.so"
cp "$b/tests/fake/drv-13.0/libcuda.so.1" "$tmp/libcuda.so.1"
chmod 755 "$tmp"/*-app "$tmp"/*.so*
setcap cap_net_bind_service+ep "$tmp/cap-app" 2>/dev/null || skip "setcap failed here (no xattrs on $tmp?)"

run() { # app log
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH=/usr/bin:/bin CUSHIM_LOG=info CUSHIM_HIDE=cuDeviceGet CUSHIM_LOG_FILE="$2" \
		"$1" "$tmp/libcushim.so" "$tmp/libcuda.so.1"
}
plain=$(run "$tmp/plain-app" "$tmp/logs/plain.log") || fail "the plain copy failed: $plain"
echo "without the capability: $plain"
[ "$plain" = "secure=0 device=36" ] || fail "unprivileged copy: expected secure=0 device=36 (hidden), got: $plain"
[ -f "$tmp/logs/plain.log" ] || fail "unprivileged copy: CUSHIM_LOG_FILE was not created"
grep -q "cuDeviceGet is hidden by CUSHIM_HIDE" "$tmp/logs/plain.log" || fail "plain.log: $(cat "$tmp/logs/plain.log")"

secure=$(run "$tmp/cap-app" "$tmp/logs/secure.log" 2>"$tmp/stderr") || fail "the capable copy failed: $secure"
echo "with cap_net_bind_service+ep: $secure"
case $secure in
secure=0*) skip "the kernel did not set AT_SECURE for a file capability here (nosuid mount, or no capabilities in this container)" ;;
esac
[ "$secure" = "secure=1 device=0" ] || fail "under AT_SECURE: expected secure=1 device=0 (CUSHIM_HIDE ignored), got: $secure"
[ ! -e "$tmp/logs/secure.log" ] || fail "under AT_SECURE CUSHIM_LOG_FILE was opened"
[ ! -s "$tmp/stderr" ] || fail "under AT_SECURE cushim logged (CUSHIM_LOG=info was read): $(cat "$tmp/stderr")"
echo "PASS: under AT_SECURE no CUSHIM_* variable was read and no log file opened"
