#!/bin/sh
# Refused module images that cannot be read, under a seccomp filter that
# answers process_vm_readv with EPERM, one that kills the process for it
# (SECCOMP_RET_KILL_PROCESS), and none (tests/hardening/bad-memory-app.c, on
# the fake 13.0 driver, which refuses every load: FAKE_MODULE_REFUSE).  The
# images: one in a PROT_NONE page, a fatbin whose entries would lie in it,
# PTX text that runs into it, and PTX text that ends just before it.  Each
# run exits 0 (no SIGSYS) with the driver's code; each image is named once:
# the first three as ones that cannot be read, from the right offset, the
# last as the PTX it is.  Skips (77) where no seccomp filter can be set.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/hardening/bad-memory-app
for d in drv-13.0 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 99; }
done
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART
export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt FAKE_GPU_CC=9.0 FAKE_MODULE_REFUSE=209

# The filters themselves, without cushim: EPERM, and death by SIGSYS.
run_cmd filter-eperm timeout 30 $EXE_WRAPPER "$app" eperm vmreadv
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $(cat "$T/filter-eperm.out")"
	exit 77
fi
expect_rc filter-eperm 0
[ "$(sed -n 's/^vmreadv //p' "$T/filter-eperm.out")" = "-1 1" ] ||
	fail "the EPERM filter: process_vm_readv gave $(cat "$T/filter-eperm.out")"
run_cmd filter-kill timeout 30 $EXE_WRAPPER "$app" kill vmreadv
[ "$rc" -eq 77 ] && { echo "SKIP: $(cat "$T/filter-kill.out")"; exit 77; }
expect_rc filter-kill 159 # 128 + SIGSYS

said() { # NAME IMAGE TEXT...: the one cause that names IMAGE at its address says "for TEXT"
	at=$(sed -n "s/^$2 209 //p" "$T/$1.out")
	[ -n "$at" ] || { fail "$1: no result for the image '$2': $(cat "$T/$1.out")"; return; }
	want=$(printf "$3" "$at")
	n=$(grep -cF -- "for $want" "$T/$1.err")
	[ "$n" -eq 1 ] || fail "$1: '$2': $n lines say 'for $want': $(cat "$T/$1.err")"
}

for how in none eperm kill; do
	LD_PRELOAD=$SHIMLIB run_cmd "$how" timeout 30 $EXE_WRAPPER "$app" "$how" images
	expect_rc "$how" 0
	g=$(sed -n 's/^guard //p' "$T/$how.out")
	said "$how" unreadable "an image in memory at %s: it cannot be read (no byte at $g is readable memory)"
	said "$how" fatbin "an image in memory at %s: it cannot be read (its bytes from offset 16 on, at $g, are not readable memory)"
	said "$how" text "an image in memory at %s: it cannot be read (its bytes from offset 40 on, at $g, are not readable memory)"
	said "$how" whole "PTX in memory at %s: it holds no SASS; PTX ISA 8.0 for compute_100"
	grep -F "of unknown form" "$T/$how.err" && fail "$how: an image called of unknown form"
	[ "$failures" -eq 0 ] && echo "$how: $(grep -c 'cannot be read' "$T/$how.err") images cannot be read, exit $rc"
done
finish
