#!/bin/sh
# In plain `make check`: the CPU suite again under ASan+UBSan, and the lazy
# bootstrap, the diagnostics and the constructor, fork, vfork and signal tests
# under TSan, each in a sub-build of the build folder (make check-asan,
# check-tsan).  Any report fails.
: "${top_builddir:?}"
cd "$top_builddir" || exit 99
unset MAKEFLAGS MFLAGS
${MAKE:-make} -j2 check-asan > sanitizers-asan.log 2>&1; a=$?
tail -n 12 sanitizers-asan.log
${MAKE:-make} -j2 check-tsan > sanitizers-tsan.log 2>&1; t=$?
tail -n 12 sanitizers-tsan.log
echo "sanitizers: ASan+UBSan exit $a, TSan exit $t"
[ $a = 0 ] && [ $t = 0 ]
