# tests/fuzz: libFuzzer targets, built with clang
# (FUZZ_CC) by `make fuzz-targets`, run by fuzz.sh: make check replays every
# seed and past crash through each (skipped without clang's libFuzzer), and
# `make check-fuzz` fuzzes each for FUZZ_SECONDS (default 60).  The seeds are
# tests/fuzz/corpus/TARGET; inputs that once crashed, tests/fuzz/regressions/TARGET.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_TARGETS = tests/fuzz/fuzz-level tests/fuzz/fuzz-version tests/fuzz/fuzz-patterns tests/fuzz/fuzz-path \
	tests/fuzz/fuzz-elf tests/fuzz/fuzz-outputs tests/fuzz/fuzz-string tests/fuzz/fuzz-image
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DHAVE_CONFIG_H \
	-I$(top_builddir) $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli -I$(top_srcdir)/src/cli/check
FUZZ_CONF_SRC = $(top_srcdir)/tests/fuzz/fuzz-conf.c $(top_srcdir)/src/common/conf.c $(top_srcdir)/src/common/settings.c $(top_srcdir)/src/common/log.c \
	$(top_srcdir)/src/common/ownfile.c
# fuzz-elf: the command's library (src/cli/local.mk) and the common library,
# the same sources as the command is built from (all but main.c: libFuzzer
# has its own main), instrumented.
FUZZ_CLI_SRC = tests/fuzz/fuzz-elf.c $(libcushim_cli_la_SOURCES) $(libcushim_common_la_SOURCES)
FUZZ_FUZZ = $(MKDIR_P) tests/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) -o $@
tests/fuzz/fuzz-level: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_LEVEL $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-version: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_VERSION $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-patterns: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_PATTERNS $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-path: $(FUZZ_CONF_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_PATH $(FUZZ_CONF_SRC)
tests/fuzz/fuzz-elf: $(FUZZ_CLI_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DCUSHIM_LIBDIR='"$(libdir)"' $(LIBELF_CFLAGS) $(LIBZIP_CFLAGS) $(LZ4_CFLAGS) $(ZSTD_CFLAGS) $(DEFLATE_CFLAGS) \
		`for f in $(FUZZ_CLI_SRC); do case $$f in *.c) echo $(top_srcdir)/$$f;; esac; done` $(LIBELF_LIBS) $(LIBZIP_LIBS) \
		$(DEMANGLE_LIBS) $(LZ4_LIBS) $(ZSTD_LIBS) $(DEFLATE_LIBS) $(LIBS)
# fuzz-outputs: the readers of cushim timeline and cushim summary, in the same build.
FUZZ_OUT_SRC = tests/fuzz/fuzz-outputs.c $(libcushim_cli_la_SOURCES) $(libcushim_common_la_SOURCES)
tests/fuzz/fuzz-outputs: $(FUZZ_OUT_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DCUSHIM_LIBDIR='"$(libdir)"' $(LIBELF_CFLAGS) $(LIBZIP_CFLAGS) $(LZ4_CFLAGS) $(ZSTD_CFLAGS) $(DEFLATE_CFLAGS) \
		`for f in $(FUZZ_OUT_SRC); do case $$f in *.c) echo $(top_srcdir)/$$f;; esac; done` $(LIBELF_LIBS) $(LIBZIP_LIBS) \
		$(DEMANGLE_LIBS) $(LZ4_LIBS) $(ZSTD_LIBS) $(DEFLATE_LIBS) $(LIBS)
# fuzz-string: a string argument read through the checked copy and
# formatted for the trace and the timeline; fuzz-image: the copy of a refused
# module image that holds only what the reader of images looks at.
FUZZ_STRING_SRC = $(top_srcdir)/tests/fuzz/fuzz-peek.c $(top_srcdir)/src/common/callfmt.c $(top_srcdir)/src/common/peek.c \
	$(top_srcdir)/src/common/table.c $(top_srcdir)/src/common/enums.c $(top_srcdir)/src/common/errnames.c
tests/fuzz/fuzz-string: $(FUZZ_STRING_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_STRING $(FUZZ_STRING_SRC)
FUZZ_IMAGE_SRC = $(top_srcdir)/tests/fuzz/fuzz-peek.c $(top_srcdir)/src/shim/explain-image.c \
	$(top_srcdir)/src/common/peek.c $(top_srcdir)/src/common/gpucode/elfbytes.c $(top_srcdir)/src/common/gpucode/fatbin.c \
	$(top_srcdir)/src/common/gpucode/modimage.c
tests/fuzz/fuzz-image: $(FUZZ_IMAGE_SRC) $(GENERATED)
	$(AM_V_CCLD)$(FUZZ_FUZZ) -DFUZZ_IMAGE $(FUZZ_IMAGE_SRC)
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
EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/fuzz-conf.c tests/fuzz/fuzz-elf.c tests/fuzz/fuzz-outputs.c tests/fuzz/fuzz-peek.c tests/fuzz/corpus tests/fuzz/regressions
