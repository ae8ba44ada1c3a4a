# tests/whitebox: the library's insides, no driver needed.
#   adapters    the downgrade adapters (Check), with recording fakes in
#               place of the older variants in cushim_real[]
#   integrity   MD2 and the integrity check's answer under emulation (Check),
#               against RFC 1319 and answers recorded from real drivers
#   recorder    the flight recorder's rings (Check): whole records, what a
#               reader that falls behind lost, a reader beside the writer
#   trampoline  the generated stubs and their trampoline alone, with a
#               resolver that clobbers every argument register
if HAVE_CHECK
check_PROGRAMS += tests/whitebox/adapters
TESTS += tests/whitebox/adapters
tests_whitebox_adapters_SOURCES = tests/whitebox/adapters.c
nodist_tests_whitebox_adapters_SOURCES = $(GENERATED)
tests_whitebox_adapters_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_whitebox_adapters_LDADD = libcushim_shim.la libcushim_diag.la libcushim_common.la $(CHECK_LIBS) $(LIBS)
check_PROGRAMS += tests/whitebox/recorder
TESTS += tests/whitebox/recorder
tests_whitebox_recorder_SOURCES = tests/whitebox/recorder.c
nodist_tests_whitebox_recorder_SOURCES = $(GENERATED)
tests_whitebox_recorder_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
# (the trace wrappers pulled in first, as tests/unit/trace: sticky.c's
# causes reach the shim, which reaches the diagnostics)
tests_whitebox_recorder_LDFLAGS = $(AM_LDFLAGS) -Wl,--undefined=cushim_tracer
tests_whitebox_recorder_LDADD = libcushim_diag.la libcushim_shim.la libcushim_common.la $(CHECK_LIBS) $(LIBS) -lpthread
check_PROGRAMS += tests/whitebox/integrity
TESTS += tests/whitebox/integrity
tests_whitebox_integrity_SOURCES = tests/whitebox/integrity.c
nodist_tests_whitebox_integrity_SOURCES = $(GENERATED)
tests_whitebox_integrity_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_whitebox_integrity_LDADD = libcushim_common.la $(CHECK_LIBS) $(LIBS)
endif

check_PROGRAMS += tests/whitebox/trampoline
TESTS += tests/whitebox/trampoline
# (its own objects: the stubs are also in libcushim_shim, through libtool)
tests_whitebox_trampoline_SOURCES = tests/whitebox/trampoline.c src/shim/stubs.c
nodist_tests_whitebox_trampoline_SOURCES = $(GENERATED) $(GENERATED_STUBS)
tests_whitebox_trampoline_CPPFLAGS = $(AM_CPPFLAGS)
