# src: the symbol table, generated into the build's src/, and one folder for
# each link unit: common (libcushim_common: what the shim and the command
# both know), shim (libcushim_shim: the stubs and the bootstrap), diag
# (libcushim_diag: the trace, the summary, the timeline) and cli (the cushim
# command).

# ---- the symbol table: the committed table of the newest CUDA (src/table),
# united with what the configured toolkit's headers declare ----
CUDA_TABLE = $(top_srcdir)/src/table/cuda-api.tsv
GENERATED = src/cushim-syms.h src/cushim-enums.h src/cushim-syms.tsv
GENERATED_STUBS = src/cushim-stubs.S
BUILT_SOURCES += $(GENERATED) $(GENERATED_STUBS)
CLEANFILES += $(GENERATED) $(GENERATED_STUBS) src/gen.stamp
# The stubs' assembly: a template that holds what the architectures share and
# the table's lines, and one file for each architecture (src/shim).
STUBS_TEMPLATE = $(top_srcdir)/src/shim/stubs.S.in
EXTRA_DIST += src/table/cuda-api.tsv src/shim/stubs.S.in src/shim/stubs-x86_64.S.in src/shim/stubs-aarch64.S.in
src/gen.stamp: $(top_srcdir)/tools/gensyms.py $(top_srcdir)/tools/cudaapi.py $(CUDA_TABLE) \
		$(CUDA_INCDIR)/cudaTypedefs.h $(CUDA_INCDIR)/cuda.h $(STUBS_TEMPLATE) \
		$(top_srcdir)/src/shim/stubs-x86_64.S.in $(top_srcdir)/src/shim/stubs-aarch64.S.in
	$(AM_V_GEN)$(MKDIR_P) src && $(PYTHON) $(top_srcdir)/tools/gensyms.py --include '$(CUDA_INCDIR)' \
		--table $(CUDA_TABLE) --stubs $(STUBS_TEMPLATE) --cpp '$(CPP)' --outdir src && touch $@
$(GENERATED) $(GENERATED_STUBS): src/gen.stamp
# The stubs see the sanitizer flags too: a ThreadSanitizer build loads the
# slots through C (src/shim/stubs.c), where the sanitizer sees the acquire.
AM_CCASFLAGS = $(SAN_CFLAGS)

# Refresh the committed table from NVIDIA's newest headers (doc/TABLE.md):
# from the PyPI wheels (CUDA_WHEELS), or from include folders
# (CUDA_INCLUDE="dir ...").  The default build never needs the network.
CUDA_WHEELS = nvidia-cuda-runtime nvidia-cuda-profiler-api
update-table:
	PYTHON='$(PYTHON)' CPP='$(CPP)' $(SHELL) $(top_srcdir)/tools/update-table.sh '$(CUDA_TABLE)' \
		'$(CUDA_INCLUDE)' '$(CUDA_WHEELS)'
.PHONY: update-table

SHIM_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -fno-semantic-interposition -fno-plt
include src/common/local.mk
include src/shim/local.mk
include src/diag/local.mk
include src/cli/local.mk

# libcushim.so: the shim, the diagnostics and what they share.
lib_LTLIBRARIES = libcushim.la
libcushim_la_SOURCES =
libcushim_la_LIBADD = libcushim_shim.la libcushim_diag.la libcushim_common.la $(LIBS)
libcushim_la_LDFLAGS = -avoid-version -no-undefined -Wl,-z,relro,-z,now
