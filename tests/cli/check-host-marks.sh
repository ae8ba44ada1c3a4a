#!/bin/sh
# cushim check reads a statically linked runtime's release from the host's
# own marks first, and from GPU code only where the host has none, and then
# from images stored uncompressed (a compressed image's bytes are not its
# text).  fatbin-marks-app: a 13.0 runtime's marks in .rodata, and PTX in
# .nv_fatbin whose comment says "release 99.9" (as PTX from another toolkit
# does).  fatbin-release-app: the runtime's error text alone, PTX that says
# 13.0, and an image marked compressed whose bytes say 99.9.  Both carry the
# compressed image, and their PTX is still read.  The release is quoted as
# one line (PTX ends it with a newline, not a NUL).
. "$top_srcdir/tests/harness/defs.sh"
for app in fatbin-marks-app fatbin-release-app; do
	prog=$top_builddir/tests/cli/$app
	grep -q 'release 99.9' "$prog" || { echo "$prog holds no text to be misled by" >&2; exit 99; }
	run_cmd $app "$CUSHIM" check --driver-version=13.0 "$prog"
	[ "$rc" -eq 0 ] || fail "$app: exit status $rc, want 0 (a 13.0 runtime on a 13.0 driver)"
	grep -q 'carries the CUDA 13.0 runtime, linked statically.*"Cuda compilation tools, release 13\.0, V13\.0\.48"):' "$T/$app.out" ||
		fail "$app: the runtime is not named from the right marks"
	grep -q '99\.9' "$T/$app.out" && fail "$app: a release of 99.9 was read where it is not the runtime's"
	grep -q 'compute_90' "$T/$app.out" || fail "$app: the PTX in .nv_fatbin was not read"
done
finish
