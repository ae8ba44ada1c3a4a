# src/common: libcushim_common, what the shim and the command both know: the
# table as data, the settings and their parsers, the configuration, the log,
# the enums, the adapters' data, the loader search, the real driver's rule,
# and the readers of GPU code (no stubs in it).
noinst_LTLIBRARIES += libcushim_common.la
# src/common/gpucode: the readers of GPU code (fatbins, cubins, module
# images, ELF bytes), which GPU runs which image, what runtimes and PTX ask
# of the driver, and a runtime's marks; the library and the command read
# GPU code alike through them.
GPUCODE_SOURCES = src/common/gpucode/fatbin.c src/common/gpucode/fatbin.h \
	src/common/gpucode/elfbytes.c src/common/gpucode/elfbytes.h src/common/gpucode/modimage.c src/common/gpucode/modimage.h \
	src/common/gpucode/gpufit.c src/common/gpucode/gpufit.h src/common/gpucode/requirements.c src/common/gpucode/requirements.h \
	src/common/gpucode/rtmarks.c src/common/gpucode/rtmarks.h
libcushim_common_la_SOURCES = src/common/table.c src/common/table.h src/common/hidden.h \
	src/common/ldsearch.c src/common/ldsearch.h src/common/realdriver.c src/common/realdriver.h src/common/realdlsym.c src/common/realdlsym.h src/common/lookup-rule.h \
	src/common/conf.c src/common/conf.h src/common/settings.c src/common/settings.h src/common/adapters.c src/common/adapters.h \
	src/common/log.c src/common/log.h src/common/enums.c src/common/enums.h src/common/md2.c src/common/md2.h \
	src/common/validity.c src/common/validity.h src/common/ticks.h src/common/cuda-all.h \
	src/common/peek.c src/common/peek.h src/common/nvenv.c src/common/nvenv.h src/common/ownfile.c src/common/ownfile.h \
	src/common/errnames.c src/common/errnames.h src/common/callfmt.c src/common/callfmt.h src/common/records.c src/common/records.h \
	src/common/owners.c src/common/owners.h src/common/jsonstr.c src/common/jsonstr.h $(GPUCODE_SOURCES)
nodist_libcushim_common_la_SOURCES = $(GENERATED)
libcushim_common_la_CFLAGS = $(SHIM_CFLAGS)
EXTRA_DIST += src/common/compat/GL/gl.h src/common/compat/EGL/egl.h src/common/compat/EGL/eglext.h \
	src/common/compat/vdpau/vdpau.h
