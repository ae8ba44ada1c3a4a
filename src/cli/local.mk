# src/cli: the cushim command, its man page and its tests (tests/cli).
bin_PROGRAMS += cushim
CHECK_SOURCES = src/cli/check.c src/cli/check-read.c src/cli/check-judge.c src/cli/check-report.c \
	src/cli/check-json.c src/cli/check.h src/cli/cudart.c src/cli/cudart.h src/cli/calls.c \
	src/cli/fatbin.c src/cli/fatbin.h src/cli/gpucode.c src/cli/gpucode.h src/cli/requirements.c \
	src/cli/requirements.h src/cli/gpus.c
cushim_SOURCES = src/cli/main.c src/cli/run.c $(CHECK_SOURCES) src/cli/doctor.c src/cli/symbols.c src/cli/machine.c src/cli/timeline.c \
	src/cli/lib.c src/cli/ldsearch.c src/cli/json.c src/cli/cli.h
nodist_cushim_SOURCES = $(GENERATED)
cushim_CPPFLAGS = $(AM_CPPFLAGS) -DCUSHIM_LIBDIR='"$(libdir)"'
cushim_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
# The table without the stubs: the command must not export cu* itself.
cushim_LDADD = libcushim_table.la $(LIBELF_LIBS)
man1_MANS += doc/cushim.1
EXTRA_DIST += doc/cushim.1

# ---- tests/cli: scripts run against the build tree's cushim and libcushim.so ----
# legacy: built against the 13.0 headers and the toolkit's stub libcuda.so
# (a cross build without the target's stubs: the fake 13.0 driver);
# read by `cushim check`, never run by these tests.
check_PROGRAMS += tests/cli/legacy
tests_cli_legacy_SOURCES = tests/cli/legacy.c
tests_cli_legacy_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cli_legacy_LDADD = -lcuda
# drvonly: a program on the driver API alone, built the same way.
check_PROGRAMS += tests/cli/drvonly
tests_cli_drvonly_SOURCES = tests/cli/drvonly.c
tests_cli_drvonly_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cli_drvonly_LDADD = -lcuda
EXTRA_tests_cli_legacy_DEPENDENCIES = $(CUDA_STUBS_DEPS)
EXTRA_tests_cli_drvonly_DEPENDENCIES = $(CUDA_STUBS_DEPS)
CLI_TESTS = tests/cli/check-legacy.sh tests/cli/check-errors.sh tests/cli/run.sh \
	tests/cli/symbols.sh tests/cli/docs.sh tests/cli/fake-driver.sh tests/cli/check-cuda.sh tests/cli/driver-search.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/defs.sh tests/cli/kernel.cu tests/cli/drvrt.cu tests/cli/vadd.cu
# check-cuda.sh builds its programs with the configured nvcc (none: it skips).
AM_TESTS_ENVIRONMENT += NVCC='$(NVCC)'; export NVCC;
tests/cli/check-cuda.log: tests/cli/drvonly$(EXEEXT)
# The scripts need the command and the library (both in `all`).
$(CLI_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/cli/legacy$(EXEEXT)
# The fake drivers of tests/fake (the test skips when they are not there).
tests/cli/fake-driver.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
tests/cli/driver-search.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME) $(FAKE_BAD)

# ---- make installcheck: the installed command runs a program under the installed library ----
installcheck-local: installcheck-cushim
installcheck-cushim:
	@set -e; bin='$(bindir)/cushim$(EXEEXT)'; lib='$(libdir)/libcushim.so'; \
	test -x "$$bin" || { echo "installcheck: no $$bin" >&2; exit 1; }; \
	test -f '$(man1dir)/cushim.1' || { echo "installcheck: no $(man1dir)/cushim.1" >&2; exit 1; }; \
	real=`cd "$(libdir)" && pwd -P`/libcushim.so; \
	maps=`"$$bin" run -- sh -c 'cat /proc/$$$$/maps'`; \
	echo "$$maps" | grep -qF "$$real" || { echo "installcheck: the program run by $$bin does not map $$real" >&2; exit 1; }; \
	pre=`"$$bin" run -- sh -c 'printf %s "$$LD_PRELOAD"'`; \
	test "$$pre" = "$$real" || { echo "installcheck: LD_PRELOAD is '$$pre', wanted '$$real'" >&2; exit 1; }; \
	st=0; "$$bin" run -- sh -c 'exit 3' || st=$$?; \
	test $$st -eq 3 || { echo "installcheck: exit status $$st, wanted 3" >&2; exit 1; }; \
	n=`"$$bin" symbols | wc -l`; test $$n -gt 600 || { echo "installcheck: symbols lists $$n rows" >&2; exit 1; }; \
	echo "installcheck: $$bin runs programs under $$real"
.PHONY: installcheck-cushim
