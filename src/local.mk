# src: the symbol table, the shim library and the table library it shares
# with the command (src/cli).

# ---- the symbol table: the committed table of the newest CUDA (src/table),
# united with what the configured toolkit's headers declare ----
CUDA_TABLE = $(top_srcdir)/src/table/cuda-api.tsv
GENERATED = src/cushim-syms.h src/cushim-enums.h src/cushim-syms.tsv
GENERATED_STUBS = src/cushim-stubs.S
BUILT_SOURCES += $(GENERATED) $(GENERATED_STUBS)
CLEANFILES += $(GENERATED) $(GENERATED_STUBS) src/gen.stamp
EXTRA_DIST += src/table/cuda-api.tsv
src/gen.stamp: $(top_srcdir)/tools/gensyms.py $(top_srcdir)/tools/cudaapi.py $(CUDA_TABLE) \
		$(CUDA_INCDIR)/cudaTypedefs.h $(CUDA_INCDIR)/cuda.h
	$(AM_V_GEN)$(MKDIR_P) src && $(PYTHON) $(top_srcdir)/tools/gensyms.py --include '$(CUDA_INCDIR)' \
		--table $(CUDA_TABLE) --cpp '$(CPP)' --outdir src && touch $@
$(GENERATED) $(GENERATED_STUBS): src/gen.stamp
# The stubs see the sanitizer flags too: a ThreadSanitizer build loads the
# slots through C (src/stubs.c), where the sanitizer sees the acquire.
AM_CCASFLAGS = $(SAN_CFLAGS)

# Refresh the committed table from NVIDIA's newest headers (doc/TABLE.md):
# from the PyPI wheels (CUDA_WHEELS), or from include folders
# (CUDA_INCLUDE="dir ...").  The default build never needs the network.
CUDA_WHEELS = nvidia-cuda-runtime nvidia-cuda-profiler-api
update-table:
	PYTHON='$(PYTHON)' CPP='$(CPP)' $(SHELL) $(top_srcdir)/tools/update-table.sh '$(CUDA_TABLE)' \
		'$(CUDA_INCLUDE)' '$(CUDA_WHEELS)'
.PHONY: update-table

# ---- the shim ----
# libcushim_table: the table as data, the settings, the log and the enums,
# and the readers of GPU code (fatbins, cubins, PTX) with the driver's
# requirements; what the command-line tool shares with the library (no stubs
# in it).
noinst_LTLIBRARIES += libcushim_table.la libcushim_core.la
SHIM_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -fno-semantic-interposition -fno-plt
libcushim_table_la_SOURCES = src/table.c src/ldsearch.c src/ldsearch.h src/realdriver.c src/realdlsym.c src/conf.c src/settings.c src/settings.h src/adapters.c src/adapters.h src/log.c src/enums.c \
	src/md2.c src/md2.h src/validity.c src/validity.h \
	src/cushim-internal.h src/ticks.h src/cuda-all.h src/enums.h src/elfbytes.c src/elfbytes.h src/fatbin.c src/fatbin.h \
	src/gpufit.c src/gpufit.h src/modimage.c src/modimage.h src/requirements.c src/requirements.h \
	src/rtmarks.c src/rtmarks.h
nodist_libcushim_table_la_SOURCES = $(GENERATED)
libcushim_table_la_CFLAGS = $(SHIM_CFLAGS)
# libcushim_core: the stubs and the bootstrap, linked into libcushim.so and
# into the white-box tests.
libcushim_core_la_SOURCES = src/boot.c src/boot.h src/source.c src/masquerade.c src/interpose.c src/answer.c src/lookup-rule.h src/integrity.c src/errors.c src/stubs.c src/trace.c \
	src/timeline.c src/outputs.c src/summary.c src/wrappers.c src/introspect.c src/cushim.h src/adapt.c src/adapt.h \
	src/explain.c src/explain.h src/explain-fork.c src/explain-module.c src/explain-runtime.c
nodist_libcushim_core_la_SOURCES = $(GENERATED) $(GENERATED_STUBS)
libcushim_core_la_CFLAGS = $(SHIM_CFLAGS)
libcushim_core_la_LIBADD = libcushim_table.la
lib_LTLIBRARIES = libcushim.la
libcushim_la_SOURCES =
libcushim_la_LIBADD = libcushim_core.la $(LIBS)
libcushim_la_LDFLAGS = -avoid-version -no-undefined -Wl,-z,relro,-z,now
EXTRA_DIST += src/compat/GL/gl.h src/compat/EGL/egl.h src/compat/EGL/eglext.h src/compat/vdpau/vdpau.h

