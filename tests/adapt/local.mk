# tests/adapt: the downgrade adapters, white-box: recording fakes
# stand in for the older variants in cushim_real[], no driver needed.
if HAVE_CHECK
check_PROGRAMS += tests/adapt/check_adapt
TESTS += tests/adapt/check_adapt
tests_adapt_check_adapt_SOURCES = tests/adapt/check_adapt.c
nodist_tests_adapt_check_adapt_SOURCES = $(GENERATED)
tests_adapt_check_adapt_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_adapt_check_adapt_LDADD = libcushim_core.la $(CHECK_LIBS) $(LIBS)
endif
EXTRA_DIST += doc/ADAPTERS.md
