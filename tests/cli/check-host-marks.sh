#!/bin/sh
# cushim check reads a statically linked runtime's release from the host's
# own marks first: fatbin-marks-app carries the 13.0 runtime's marks in
# .rodata and, in .nv_fatbin, PTX whose comment says "release 99.9" (as PTX
# from another toolkit does).  The compiler's line in GPU code serves only
# where the host has none (check-cuda.sh: nvcc's static programs).  The PTX
# itself is still read.
. "$top_srcdir/tests/harness/defs.sh"
prog=$top_builddir/tests/cli/fatbin-marks-app

grep -q 'release 99.9' "$prog" || { echo "$prog holds no PTX comment to be misled by" >&2; exit 99; }
run_cmd marks "$CUSHIM" check --driver-version=13.0 "$prog"
[ "$rc" -eq 0 ] || fail "exit status $rc, want 0 (a 13.0 runtime on a 13.0 driver)"
grep -q 'carries the CUDA 13.0 runtime, linked statically.*release 13\.0, V13\.0\.48' "$T/marks.out" ||
	fail "the runtime is not named from its own marks"
grep -q '99\.9' "$T/marks.out" && fail "the PTX comment was taken for the runtime's release"
grep -q 'compute_90' "$T/marks.out" || fail "the PTX in .nv_fatbin was not read"
finish
