# tests: each folder owns one fragment.
#   harness    the Check harness of the black-box suites (a child per case)
#   fake       fake drivers and runtimes; oracle: what a real driver answers
#   demo       a program newer than its driver, and make demo
#   blackbox   libcushim.so as programs see it (Check)
#   whitebox   the library's insides: adapters, stubs (Check and C)
#   unit       the library's parts alone: settings, trace formatting, loader search (Check)
#   table, cli, hardening, fuzz, timeline, cluster, package, realdrv,
#   compat, cross, wheel, gpu, bench
#   layout     the structure of src/: no cycle between files (tools/depgraph.py)
# make check-slow: the tests that build the whole project again, which make
# check leaves out so that it builds the project once (each fragment adds its
# own to SLOW_TESTS; CI runs them: .ci/run).
check-slow: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SLOW_TESTS)'
.PHONY: check-slow
# README.md: which tests prove each module of src/ and each setting.
EXTRA_DIST += tests/README.md
EXTRA_DIST += tests/oracle/README.md tests/oracle/capture-procaddress.c \
	tests/oracle/cuGetProcAddress-driver-580.159.04.tsv tests/oracle/libcuda-580.159.04-exports.txt
include tests/harness/local.mk
include tests/fake/local.mk
include tests/demo/local.mk
include tests/blackbox/local.mk
include tests/whitebox/local.mk
include tests/unit/local.mk
include tests/table/local.mk
include tests/cli/local.mk
include tests/hardening/local.mk
include tests/fuzz/local.mk
include tests/timeline/local.mk
include tests/cluster/local.mk
include tests/package/local.mk
include tests/realdrv/local.mk
include tests/compat/local.mk
include tests/cross/local.mk
include tests/wheel/local.mk
include tests/gpu/local.mk
include tests/bench/local.mk
include tests/layout/local.mk
