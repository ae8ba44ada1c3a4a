#!/bin/sh
# Installed, the command finds libcushim.so in lib/ beside its own bin/, as
# a prefix moved as a whole and the Python package hold them, before the
# configured libdir: no --lib is needed.  A library in neither place is one
# clear error naming where it looked.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_PRELOAD
mkdir -p "$T/prefix/bin" "$T/prefix/lib" "$T/lone" || exit 99
cp "$top_builddir/cushim" "$T/prefix/bin/cushim" && cp "$SHIMLIB" "$T/prefix/lib/libcushim.so" &&
	cp "$top_builddir/cushim" "$T/lone/cushim" || exit 99
want=$(realpath "$T/prefix/lib/libcushim.so")
run_cmd moved $EXE_WRAPPER "$T/prefix/bin/cushim" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
expect_rc moved 0
[ "$(cat "$T/moved.out")" = "$want" ] || fail "LD_PRELOAD is '$(cat "$T/moved.out")', wanted '$want'"
run_cmd doctor $EXE_WRAPPER "$T/prefix/bin/cushim" doctor
grep -q "^library: *$want (in ../lib from the command's folder)" "$T/doctor.out" ||
	fail "doctor: $(grep '^library' "$T/doctor.out")"
# (An installed copy in the configured libdir answers instead: then nothing to see.)
run_cmd lone $EXE_WRAPPER "$T/lone/cushim" run -- true
if [ "$rc" -ne 0 ]; then
	grep -q "cannot find libcushim.so (looked beside this command in .libs/ and ../lib/, and in " "$T/lone.err" ||
		fail "lone: $(cat "$T/lone.err")"
fi
finish
