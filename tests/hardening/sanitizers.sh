#!/bin/sh
# make check-sanitizers: the CPU suite again under ASan+UBSan, and the lazy
# bootstrap, the diagnostics and the constructor, fork, vfork and signal tests
# under TSan, each in a sub-build of the build folder (make check-asan,
# check-tsan).  Any report fails.  A failure names the sub-test and shows the
# end of its log here and, through fd 9 (AM_TESTS_FD_REDIRECT), on the
# terminal of `make check`, so that a CI log says what broke.
: "${top_builddir:?}"
cd "$top_builddir" || exit 99
if [ -n "${EXE_WRAPPER:-}" ]; then
	echo "SKIP: a cross build: the sanitizer sub-builds would need the target's libasan and libtsan, and TSan's"
	echo "memory layout under $EXE_WRAPPER; the build machine's own make check runs them"
	exit 77
fi
unset MAKEFLAGS MFLAGS
if { true >&9; } 2>/dev/null; then tty_fd=9; else tty_fd=1; fi

# explain SUBDIR LOG: what failed in the sub-build: the end of each failed
# sub-test's log to stdout (the log of this test), and a few lines to fd 9
# (a Check failure, a sanitizer's verdict), short enough for a CI excerpt.
explain() {
	echo "sanitizers: make check-${1#san-} failed; the end of $2:"
	tail -n 15 "$2"
	failed=$(grep -lE '^:test-result: (FAIL|ERROR)' "$1"/tests/*/*.trs 2>/dev/null)
	[ -n "$failed" ] || [ $tty_fd != 9 ] || tail -n 6 "$2" >&9
	for trs in $failed; do
		log=${trs%.trs}.log
		echo "sanitizers: $log (the end):"
		grep -vE '^[^:]*:[0-9]+:P:' "$log" | tail -n 25
		if [ $tty_fd = 9 ]; then
			echo "sanitizers: check-${1#san-}: $log failed:"
			grep -E ':[0-9]+:[EF]:|(ERROR|WARNING|SUMMARY): [A-Za-z]*Sanitizer|runtime error|hung|Timeout' "$log" |
				cut -c1-300 | head -n 6
		fi >&$tty_fd
	done
}

${MAKE:-make} -j2 check-asan > sanitizers-asan.log 2>&1; a=$?
if [ $a = 0 ]; then tail -n 12 sanitizers-asan.log; else explain san-asan sanitizers-asan.log; fi
${MAKE:-make} -j2 check-tsan > sanitizers-tsan.log 2>&1; t=$?
if [ $t = 0 ]; then tail -n 12 sanitizers-tsan.log; else explain san-tsan sanitizers-tsan.log; fi
echo "sanitizers: ASan+UBSan exit $a, TSan exit $t"
[ $a = 0 ] && [ $t = 0 ]
