# tests/fuzz: libFuzzer targets, built with clang
# (FUZZ_CC) by `make fuzz-targets`, run by fuzz.sh: make check replays every
# seed and past crash through each (skipped without clang's libFuzzer), and
# `make check-fuzz` fuzzes each for FUZZ_SECONDS (default 60).  The seeds are
# tests/fuzz/corpus/TARGET; inputs that once crashed, tests/fuzz/regressions/TARGET.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_TARGETS = tests/fuzz/fuzz-level tests/fuzz/fuzz-version tests/fuzz/fuzz-patterns tests/fuzz/fuzz-path \
	tests/fuzz/fuzz-elf
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DHAVE_CONFIG_H \
	-I$(top_builddir) $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli
FUZZ_CONF_SRC = $(top_srcdir)/tests/fuzz/fuzz-conf.c $(top_srcdir)/src/conf.c $(top_srcdir)/src/settings.c $(top_srcdir)/src/log.c
FUZZ_CLI_SRC = $(top_srcdir)/tests/fuzz/fuzz-elf.c $(top_srcdir)/src/cli/check.c $(top_srcdir)/src/cli/check-read.c \
	$(top_srcdir)/src/cli/check-judge.c $(top_srcdir)/src/cli/check-report.c $(top_srcdir)/src/cli/check-json.c \
	$(top_srcdir)/src/cli/cudart.c $(top_srcdir)/src/cli/calls.c $(top_srcdir)/src/cli/fatbin.c \
	$(top_srcdir)/src/cli/gpucode.c $(top_srcdir)/src/cli/requirements.c $(top_srcdir)/src/cli/gpus.c \
	$(top_srcdir)/src/cli/run.c \
	$(top_srcdir)/src/cli/doctor.c $(top_srcdir)/src/cli/symbols.c $(top_srcdir)/src/cli/lib.c \
	$(top_srcdir)/src/cli/ldsearch.c $(top_srcdir)/src/cli/machine.c $(top_srcdir)/src/cli/json.c $(top_srcdir)/src/cli/main.c \
	$(top_srcdir)/src/cli/timeline.c \
	$(top_srcdir)/src/table.c $(top_srcdir)/src/adapters.c $(top_srcdir)/src/conf.c $(top_srcdir)/src/settings.c $(top_srcdir)/src/log.c $(top_srcdir)/src/enums.c \
	$(top_srcdir)/src/ldsearch.c
FUZZ_FUZZ = $(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) -o $@
tests/fuzz/fuzz-level: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_LEVEL $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-version: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_VERSION $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-patterns: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_PATTERNS $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-path: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_PATH $(FUZZ_CONF_SRC)
# main.c's main is renamed: libFuzzer has its own.
tests/fuzz/fuzz-elf: $(FUZZ_CLI_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -Dmain=cushim_cli_main -DCUSHIM_LIBDIR='"$(libdir)"' $(LIBELF_CFLAGS) \
		$(FUZZ_CLI_SRC) $(LIBELF_LIBS) $(LIBS)
fuzz-targets: $(FUZZ_TARGETS)
check-fuzz: fuzz-targets
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' FUZZ_SECONDS='$(FUZZ_SECONDS)' \
		FUZZ_CC='$(FUZZ_CC)' FUZZ_BUILT=1 $(SHELL) $(top_srcdir)/tests/fuzz/fuzz.sh
.PHONY: fuzz-targets check-fuzz
TESTS += tests/fuzz/fuzz.sh
CLEANFILES += $(FUZZ_TARGETS)
clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/work-* tests/fuzz/crashes
.PHONY: clean-fuzz
EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/fuzz-conf.c tests/fuzz/fuzz-elf.c tests/fuzz/corpus tests/fuzz/regressions
