# tests/harness: the shell harness the scripts source (defs.sh), and what
# every black-box Check suite links, compiled once: a
# suite program is its own driver, each case re-running the program as a
# child (--child MODE) with LD_PRELOAD, LD_LIBRARY_PATH and CUSHIM_* set for
# that case, since AM_TESTS_ENVIRONMENT is shared by all.  A suite links
# HARNESS_LIBS (the paths it needs are in config.h); one that calls the
# driver API is linked as an application is, against libcuda.so.1, the fake
# 13.0 one through the run path (RUNPATH, so that a case's LD_LIBRARY_PATH
# picks another level): HARNESS_CUDA_LINK.
if HAVE_CHECK
check_LTLIBRARIES += tests/harness/libharness.la
tests_harness_libharness_la_SOURCES = tests/harness/harness.c tests/harness/harness.h
tests_harness_libharness_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LIBELF_CFLAGS)
tests_harness_libharness_la_LIBADD = $(CHECK_LIBS) $(LIBELF_LIBS) $(LIBS)
endif
HARNESS_CUDA_LINK = -Ltests/fake/drv-13.0 -Wl,-rpath,$(abs_top_builddir)/tests/fake/drv-13.0 \
	-Wl,--enable-new-dtags -pthread
HARNESS_LIBS = tests/harness/libharness.la
HARNESS_DEPS = $(FAKE_ALL) libcushim.la
EXTRA_DIST += tests/harness/defs.sh tests/harness/check-run.h
