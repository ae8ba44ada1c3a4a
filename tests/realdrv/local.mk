# tests/realdrv: cushim on real NVIDIA driver libraries (390 to 555, CUDA 9.1
# to 12.5) and real CUDA runtimes (11.8, 12.4, 12.9), fetched from Debian's
# non-free archive and PyPI into tests/realdrv/cache (make fetch-drivers,
# make fetch-runtimes; under make check-compat the tests fetch what is not
# there yet, under make check they test what is cached, and both skip where
# there is nothing).  No GPU is needed: the drivers load and answer
# without one.  runtimes-gpu.sh is the GPU half (exits 77 without a GPU).
REALDRV_CACHE = tests/realdrv/cache
# (the libraries built for this build's host CPU)
REALDRV_FETCH = REALDRV_HOST_CPU='$(host_cpu)' $(SHELL) $(top_srcdir)/tests/realdrv/fetch.sh

check_PROGRAMS += tests/realdrv/realdrv-app tests/realdrv/gpa-probe tests/realdrv/rt-count
tests_realdrv_gpa_probe_SOURCES = tests/realdrv/gpa-probe.c
tests_realdrv_gpa_probe_LDADD = -ldl
tests_realdrv_rt_count_SOURCES = tests/realdrv/rt-count.c
tests_realdrv_rt_count_LDADD = -ldl
EXTRA_tests_realdrv_rt_count_DEPENDENCIES = $(RT_DRIVER)

# The stand-in driver a real runtime initialises against (validity.sh): a
# file with the exact soname in a folder of its own, as the fakes.
RT_DRIVER = tests/realdrv/rt-driver/libcuda.so.1
RT_DRIVER_SRC = $(top_srcdir)/tests/realdrv/rt-driver.c $(top_srcdir)/src/common/validity.c $(top_srcdir)/src/common/md2.c
$(RT_DRIVER): $(RT_DRIVER_SRC) $(top_srcdir)/src/common/validity.h $(top_srcdir)/src/common/md2.h
	$(AM_V_CC)$(MKDIR_P) tests/realdrv/rt-driver && $(CC) $(FAKE_CFLAGS) $(FAKE_LINKFLAGS) \
		-Wl,-soname,libcuda.so.1 -o $@ $(RT_DRIVER_SRC) -ldl -lpthread
CLEANFILES += $(RT_DRIVER)
tests_realdrv_realdrv_app_SOURCES = tests/realdrv/realdrv-app.c tests/realdrv/realdrv-exports.c \
	tests/realdrv/realdrv.h
nodist_tests_realdrv_realdrv_app_SOURCES = tests/realdrv/imports.c
tests_realdrv_realdrv_app_CPPFLAGS = -D_GNU_SOURCE -I$(CUDA_INCDIR) -I$(top_srcdir)/src/shim -I$(top_srcdir)/tests/realdrv
# -z now against the toolkit's stub libcuda.so (the fake 13.0 driver where a
# toolkit has no stub): every import must be found when the program loads.
REALDRV_LINK = $(CUDA_STUBS_LDFLAGS) -Ltests/fake/drv-13.0
tests_realdrv_realdrv_app_LDFLAGS = $(REALDRV_LINK) -Wl,-z,now
tests_realdrv_realdrv_app_LDADD = -lcuda -ldl
EXTRA_tests_realdrv_realdrv_app_DEPENDENCIES = tests/fake/drv-13.0/libcuda.so.1

# the import table: every export, strong where the stub defines it (the stub
# the link takes: the first -L folder of REALDRV_LINK with a libcuda.so)
tests/realdrv/imports.c: src/cushim-syms.tsv $(top_srcdir)/tests/realdrv/imports.awk tests/fake/drv-13.0/libcuda.so.1
	$(AM_V_GEN)$(MKDIR_P) tests/realdrv && stub= && \
	for f in $(REALDRV_LINK); do case $$f in -L*) \
		test -n "$$stub" || test ! -e "$${f#-L}/libcuda.so" || stub=$${f#-L}/libcuda.so;; esac; done && \
	{ test -n "$$stub" || { echo "$@: no libcuda.so in $(REALDRV_LINK)" >&2; exit 1; }; } && \
	$(NM) -D --defined-only "$$stub" | $(AWK) '{ print $$NF }' > $@.names && \
	$(AWK) -f $(top_srcdir)/tests/realdrv/imports.awk $@.names src/cushim-syms.tsv > $@ && rm -f $@.names
CLEANFILES += tests/realdrv/imports.c

TESTS += tests/realdrv/drivers.sh tests/realdrv/lookups.sh tests/realdrv/validity.sh tests/realdrv/runtimes.sh tests/realdrv/runtimes-gpu.sh
# make check tests what is cached; make check-compat fetches first
COMPAT_TESTS += tests/realdrv/drivers.sh tests/realdrv/lookups.sh tests/realdrv/validity.sh tests/realdrv/runtimes.sh
EXTRA_DIST += tests/realdrv/fetch.sh tests/realdrv/imports.awk tests/realdrv/realdrv-env.sh tests/realdrv/drivers.sh \
	tests/realdrv/lookups.sh tests/realdrv/validity.sh tests/realdrv/rt-driver.c \
	tests/realdrv/runtimes.sh tests/realdrv/runtimes-gpu.sh

fetch-drivers:
	$(REALDRV_FETCH) drivers $(REALDRV_CACHE)
fetch-runtimes:
	$(REALDRV_FETCH) runtimes $(REALDRV_CACHE)
clean-local: clean-realdrv
clean-realdrv:
	rm -rf $(REALDRV_CACHE) tests/realdrv/answers
.PHONY: fetch-drivers fetch-runtimes clean-realdrv
