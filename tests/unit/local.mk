# tests/unit: the library's parts alone, each against its contract (Check).
#   settings   the settings' parsers: each value kind, good and bad, the
#              defaults that apply and the warning that names the variable
#   trace      the trace's formatting of every kind of argument, and its lines
#   ldsearch   the loader search's order (RPATH, LD_LIBRARY_PATH, RUNPATH,
#              ld.so.conf and its includes, the default folders), $ORIGIN,
#              and the command's choice of files (crafted ELF files)
#   json       the JSON string escaper of every output: every byte alone,
#              UTF-8 well formed and not, quotes, the bounded buffer; and
#              the command's reader (src/cli/jsonread.c) reading it back whole
if HAVE_CHECK
UNIT_TESTS = tests/unit/settings tests/unit/trace tests/unit/ldsearch tests/unit/json
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
tests_unit_settings_SOURCES = tests/unit/settings.c
nodist_tests_unit_settings_SOURCES = $(GENERATED)
tests_unit_settings_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_settings_LDADD = libcushim_common.la $(CHECK_LIBS) $(LIBS)
tests_unit_trace_SOURCES = tests/unit/trace.c
nodist_tests_unit_trace_SOURCES = $(GENERATED)
tests_unit_trace_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
# The shim and the diagnostics need each other (the bootstrap installs the
# trace wrappers): the wrappers are pulled in before the shim is searched.
tests_unit_trace_LDFLAGS = $(AM_LDFLAGS) -Wl,--undefined=cushim_tracer
tests_unit_trace_LDADD = libcushim_diag.la libcushim_shim.la libcushim_common.la $(CHECK_LIBS) $(LIBS)
tests_unit_ldsearch_SOURCES = tests/unit/ldsearch.c
nodist_tests_unit_ldsearch_SOURCES = $(GENERATED)
tests_unit_ldsearch_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli
tests_unit_ldsearch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_ldsearch_LDADD = libcushim_cli.la libcushim_common.la $(LIBELF_LIBS) $(LIBZIP_LIBS) $(CHECK_LIBS) $(LIBS)
tests_unit_json_SOURCES = tests/unit/json.c src/cli/jsonread.c
tests_unit_json_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli
tests_unit_json_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_json_LDADD = libcushim_common.la $(CHECK_LIBS) $(LIBS)
endif
