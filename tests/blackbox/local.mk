# tests/blackbox: libcushim.so as programs see it, against the fake drivers
# and the oracle (Check suites on tests/harness).  Each suite is named for
# what it proves:
#   export-set            exactly the driver's exports, under their ABI names
#   forwarding            every export reaches its own function with its
#                         arguments; every lookup is the oracle's
#   older-driver          a newer program runs on an older driver
#   invisible-until-used  nothing happens before the program's own cuInit;
#                         fork; threads racing to the first call; nothing
#                         runs at load (libsymaudit.so sees the lookups)
#   entry-points          where the entry points come from (driver, runtime)
#   diagnostics           tracing, summary, masquerade, hiding, CUSHIM_* values
#   explain               the causes named at run time: fork, module images,
#                         a runtime that refuses the driver
#   explain-start         the causes named when CUDA cannot start (cuInit,
#                         a device unavailable) or runs out of memory
if HAVE_CHECK
BLACKBOX_TESTS = tests/blackbox/export-set tests/blackbox/forwarding tests/blackbox/older-driver \
	tests/blackbox/invisible-until-used tests/blackbox/entry-points tests/blackbox/diagnostics \
	tests/blackbox/explain tests/blackbox/explain-start
check_PROGRAMS += $(BLACKBOX_TESTS) tests/blackbox/dlsym-app tests/blackbox/dlopen-app tests/blackbox/static-rt-app
TESTS += $(BLACKBOX_TESTS)

# (the fake driver's own counters need -lcuda; export-set and older-driver
# only run children)
tests_blackbox_export_set_LDADD = $(HARNESS_LIBS)
EXTRA_tests_blackbox_export_set_DEPENDENCIES = libcushim.la tests/blackbox/interop-decls.txt
tests_blackbox_forwarding_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_forwarding_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_forwarding_DEPENDENCIES = $(HARNESS_DEPS)
tests_blackbox_older_driver_LDADD = $(HARNESS_LIBS)
EXTRA_tests_blackbox_older_driver_DEPENDENCIES = $(HARNESS_DEPS) tests/demo/newer-app
tests_blackbox_invisible_until_used_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_invisible_until_used_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_invisible_until_used_DEPENDENCIES = $(HARNESS_DEPS) tests/blackbox/libsymaudit.so
tests_blackbox_entry_points_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_entry_points_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_entry_points_DEPENDENCIES = $(HARNESS_DEPS) tests/blackbox/dlsym-app
tests_blackbox_diagnostics_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_diagnostics_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_diagnostics_DEPENDENCIES = $(HARNESS_DEPS) tests/demo/newer-app tests/blackbox/dlopen-app
tests_blackbox_explain_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_explain_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_explain_DEPENDENCIES = $(HARNESS_DEPS) tests/blackbox/static-rt-app
tests_blackbox_explain_start_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_blackbox_explain_start_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_blackbox_explain_start_DEPENDENCIES = $(HARNESS_DEPS)
tests_blackbox_static_rt_app_LDADD = -ldl
tests_blackbox_dlopen_app_LDADD = -ldl
# What the GL, EGL and VDPAU interop headers declare, read from the library's
# own view of the toolkit's headers (src/common/cuda-all.h).
tests/blackbox/interop-decls.txt: $(top_srcdir)/src/common/cuda-all.h $(top_srcdir)/tests/blackbox/declared.py config.h
	$(AM_V_GEN)$(MKDIR_P) tests/blackbox && $(CPP) -I$(top_builddir) $(CUDA_CPPFLAGS) \
		$(top_srcdir)/src/common/cuda-all.h \
		| $(PYTHON) $(top_srcdir)/tests/blackbox/declared.py cudaGL.h cudaEGL.h cudaVDPAU.h > $@.tmp && mv $@.tmp $@
CLEANFILES += tests/blackbox/interop-decls.txt
endif
EXTRA_DIST += tests/blackbox/declared.py tests/blackbox/trace-format.golden tests/blackbox/symaudit-lib.c
# The audit library of invisible-until-used: a plain rule, without the
# sanitizers (AM_CFLAGS), whose runtime its namespace of its own lacks.
tests/blackbox/libsymaudit.so: $(top_srcdir)/tests/blackbox/symaudit-lib.c
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -shared -fPIC \
		-Wl,-soname,libsymaudit.so -o $@ $(top_srcdir)/tests/blackbox/symaudit-lib.c
CLEANFILES += tests/blackbox/libsymaudit.so
