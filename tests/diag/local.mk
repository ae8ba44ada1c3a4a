# tests/diag: the diagnostic mode against the fake drivers.
if HAVE_CHECK
check_PROGRAMS += tests/diag/check_diag tests/diag/dlopen-app
TESTS += tests/diag/check_diag
tests_diag_check_diag_SOURCES = tests/diag/check_diag.c $(UNIT_HARNESS)
tests_diag_check_diag_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_diag_check_diag_CFLAGS = $(UNIT_CFLAGS) -pthread
tests_diag_check_diag_LDFLAGS = $(UNIT_CUDA_LINK) -pthread
tests_diag_check_diag_LDADD = -lcuda $(UNIT_LIBS)
EXTRA_tests_diag_check_diag_DEPENDENCIES = $(UNIT_DEPS) tests/legacy/legacy tests/diag/dlopen-app
tests_diag_dlopen_app_SOURCES = tests/diag/dlopen-app.c
tests_diag_dlopen_app_LDADD = -ldl
endif
EXTRA_DIST += tests/diag/trace-format.golden
