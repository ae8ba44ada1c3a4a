#!/bin/sh
# A vfork and an exec while another thread is inside dlopen (a slow
# constructor), in a process that has made no driver call and no fork: the
# child's exec goes through libcushim.so's own execve, which must not ask
# the loader there.  Natively, a child that asks waits until the
# constructor ends, and the app fails where vfork held it 1 s or more;
# where vfork is a fork (qemu-user: make check-aarch64), the child's copy of
# the loader's lock is never released, and asking the loader waits for
# ever.  Under timeout: a hang is a failure.
. "$top_srcdir/tests/harness/defs.sh"
app=$top_builddir/tests/hardening/vforkctor-app
lib=$top_builddir/tests/hardening/libvforkctor.so
[ -x "$app" ] && [ -f "$lib" ] || { echo "no $app or $lib" >&2; exit 99; }
unset CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_RECORD CUSHIM_DRIVER_VERSION
run_cmd plain timeout 30 $EXE_WRAPPER "$app" "$lib"
expect_rc plain 0
LD_PRELOAD=$top_builddir/.libs/libcushim.so run_cmd preload timeout 30 $EXE_WRAPPER "$app" "$lib"
[ "$rc" -ne 124 ] || fail "the vfork child's exec hung under cushim"
expect_rc preload 0
grep -qx "child exit 0" "$T/preload.out" || fail "preload: $(cat "$T/preload.out" "$T/preload.err")"
finish
