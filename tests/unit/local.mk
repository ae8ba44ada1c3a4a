# tests/unit: black-box tests of the core shim, with the Check
# framework.  Each program is its own driver: the Check cases re-run the
# program as a child (--child MODE) with LD_PRELOAD, LD_LIBRARY_PATH and
# CUSHIM_* set for that case, since AM_TESTS_ENVIRONMENT is shared by all.
# Those that call the driver API are linked as an application is, against
# libcuda.so.1: the fake 13.0 one through the run path (RUNPATH, so that a
# case's LD_LIBRARY_PATH picks another level).
if HAVE_CHECK
UNIT_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"' -DABS_TOP_SRCDIR='"$(abs_top_srcdir)"' \
	-DCUDA_INCDIR='"$(CUDA_INCDIR)"'
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LIBELF_CFLAGS)
UNIT_CUDA_LINK = -Ltests/fake/drv-13.0 -Wl,-rpath,$(abs_top_builddir)/tests/fake/drv-13.0 -Wl,--enable-new-dtags
UNIT_LIBS = $(CHECK_LIBS) $(LIBELF_LIBS) $(LIBS)
UNIT_DEPS = $(FAKE_ALL) libcushim.la
UNIT_HARNESS = tests/unit/harness.c tests/unit/harness.h

UNIT_TESTS = tests/unit/check_exports tests/unit/check_forwarding tests/unit/check_legacy \
	tests/unit/check_lazy tests/unit/check_runtime
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

# (b, c) every export forwarded with its arguments; every lookup judged by the oracle
tests_unit_check_forwarding_SOURCES = tests/unit/check_forwarding.c $(UNIT_HARNESS)
tests_unit_check_forwarding_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_forwarding_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_forwarding_LDFLAGS = $(UNIT_CUDA_LINK)
tests_unit_check_forwarding_LDADD = -lcuda $(UNIT_LIBS)
EXTRA_tests_unit_check_forwarding_DEPENDENCIES = $(UNIT_DEPS)

# (a) the export set, against the toolkit's stub and the interop headers
tests_unit_check_exports_SOURCES = tests/unit/check_exports.c $(UNIT_HARNESS)
tests_unit_check_exports_CPPFLAGS = $(UNIT_CPPFLAGS) -DCUDA_DIR='"$(CUDA_DIR)"'
tests_unit_check_exports_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_exports_LDADD = $(UNIT_LIBS)
EXTRA_tests_unit_check_exports_DEPENDENCIES = libcushim.la tests/unit/interop-decls.txt
tests/unit/interop-decls.txt: $(top_srcdir)/tests/unit/interop.h $(top_srcdir)/tests/unit/declared.py config.h
	$(AM_V_GEN)$(MKDIR_P) tests/unit && $(CPP) -I$(top_builddir) $(CUDA_CPPFLAGS) $(top_srcdir)/tests/unit/interop.h \
		| $(PYTHON) $(top_srcdir)/tests/unit/declared.py cudaGL.h cudaEGL.h cudaVDPAU.h > $@.tmp && mv $@.tmp $@
CLEANFILES += tests/unit/interop-decls.txt

# (d) the legacy program
tests_unit_check_legacy_SOURCES = tests/unit/check_legacy.c $(UNIT_HARNESS)
tests_unit_check_legacy_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_legacy_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_legacy_LDADD = $(UNIT_LIBS)
EXTRA_tests_unit_check_legacy_DEPENDENCIES = $(UNIT_DEPS) tests/legacy/legacy

# (e, f) lazy, fork, 64 threads
tests_unit_check_lazy_SOURCES = tests/unit/check_lazy.c $(UNIT_HARNESS)
tests_unit_check_lazy_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_lazy_CFLAGS = $(UNIT_CFLAGS) -pthread
tests_unit_check_lazy_LDFLAGS = $(UNIT_CUDA_LINK) -pthread
tests_unit_check_lazy_LDADD = -lcuda $(UNIT_LIBS)
EXTRA_tests_unit_check_lazy_DEPENDENCIES = $(UNIT_DEPS)

# (g, h, i) the runtime chain, error names on an old driver, never recurse
tests_unit_check_runtime_SOURCES = tests/unit/check_runtime.c $(UNIT_HARNESS)
tests_unit_check_runtime_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_check_runtime_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_runtime_LDFLAGS = $(UNIT_CUDA_LINK)
tests_unit_check_runtime_LDADD = -lcuda $(UNIT_LIBS)
EXTRA_tests_unit_check_runtime_DEPENDENCIES = $(UNIT_DEPS) tests/unit/probe-nolink
check_PROGRAMS += tests/unit/probe-nolink
tests_unit_probe_nolink_SOURCES = tests/unit/probe-nolink.c
endif
EXTRA_DIST += tests/unit/interop.h tests/unit/declared.py
