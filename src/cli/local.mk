# src/cli: the cushim command and its man page.  Everything but main() and
# its dispatch (main.c) is a convenience library, so that the fuzz targets
# (tests/fuzz) compile the same list of sources, without main.c.
# src/cli/check: what serves cushim check alone, in the same library.
noinst_LTLIBRARIES += libcushim_cli.la
CHECK_SOURCES = src/cli/check/check.c src/cli/check/check-queue.c src/cli/check/check-queue.h \
	src/cli/check/check-read.c src/cli/check/check-judge.c src/cli/check/check-report.c src/cli/check/check-json.c src/cli/check/check-steps.h src/cli/check/check-tree.c \
	src/cli/check/check-tree.h src/cli/check/check-env.c src/cli/check/check-wheel.c src/cli/check/check-wheel.h src/cli/check/check-needed.c \
	src/cli/check/check-inputs.c src/cli/check/check-loads.c src/cli/check/check-compat.c src/cli/check/check-emit.c \
	src/cli/check/check-declared.c src/cli/check/check-python.c src/cli/check/check-python.h src/cli/check/jitc.c src/cli/check/jitc.h \
	src/cli/check/cudart.c src/cli/check/cudart.h src/cli/check/unpack.c src/cli/check/unpack.h \
	src/cli/check/loads.c src/cli/check/loads.h src/cli/check/wheeltag.c src/cli/check/wheeltag.h \
	src/cli/check/calls.c src/cli/check/calls.h src/cli/check/demangle.c src/cli/check/gpucode.c src/cli/check/gpucode.h
libcushim_cli_la_SOURCES = src/cli/run.c src/cli/gpus.c src/cli/doctor.c src/cli/symbols.c \
	src/cli/machine.c src/cli/timeline-cmd.c src/cli/timeline-merge.c src/cli/timeline-merge.h src/cli/tlscan.c src/cli/tlscan.h src/cli/summary-cmd.c src/cli/trace-cmd.c src/cli/run-checks.c \
	src/cli/jsonread.c src/cli/jsonread.h src/cli/libcushim.c src/cli/findlib.c src/cli/cli.h src/cli/messages.c \
	$(CHECK_SOURCES)
nodist_libcushim_cli_la_SOURCES = $(GENERATED)
# src/cli/check's files include the command's own headers (cli.h).
CLI_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli -DCUSHIM_LIBDIR='"$(libdir)"'
libcushim_cli_la_CPPFLAGS = $(CLI_CPPFLAGS)
libcushim_cli_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBZIP_CFLAGS) $(LZ4_CFLAGS) $(ZSTD_CFLAGS) $(DEFLATE_CFLAGS)
# What links the command's library links the C++ runtime's demangler and the
# decompressors too.
libcushim_cli_la_LIBADD = $(DEMANGLE_LIBS) $(LZ4_LIBS) $(ZSTD_LIBS) $(DEFLATE_LIBS)

bin_PROGRAMS += cushim
cushim_SOURCES = src/cli/main.c
nodist_cushim_SOURCES = $(GENERATED)
cushim_CPPFLAGS = $(CLI_CPPFLAGS)
# What the shim and the command share, without the stubs: the command must not export cu* itself.
cushim_LDADD = libcushim_cli.la libcushim_common.la $(LIBELF_LIBS) $(LIBZIP_LIBS)

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
