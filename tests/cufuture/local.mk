# tests/cufuture: a CUDA-aware future on the driver API (after PyTorch's
# CUDAFuture), its suite and its benchmark. The kernels are built by nvcc to a
# fatbin and embedded as a C array; the programs link libcuda directly (the
# toolkit's stubs at link time, the real driver at run time) and no libtool
# library, so they run on a GPU machine from the build folder as they are.
# cufuture-test-rt is the same suite on the runtime route: linked to libcudart
# and not libcuda, every driver call through cudaGetDriverEntryPointByVersion
# (tests/gpu/rtroute.c, tests/cufuture/cufuture-rtroute.h).
TESTS += tests/cufuture/cufuture.sh
EXTRA_DIST += tests/cufuture/cufuture.sh tests/cufuture/cufuture-bench.sh \
	tests/cufuture/cufuture-kernels.cu tests/cufuture/cufuture.h tests/cufuture/cufuture-kernels.h \
	tests/cufuture/cufuture.c tests/cufuture/cufuture-pool.c tests/cufuture/cufuture-kernels.c \
	tests/cufuture/cufuture-test.c tests/cufuture/cufuture-bench.c tests/cufuture/cufuture-hostfn.c \
	tests/cufuture/cufuture-rtroute.h

if HAVE_NVCC
check_PROGRAMS += tests/cufuture/cufuture-test tests/cufuture/cufuture-bench tests/cufuture/cufuture-test-rt
CUFUTURE_LIB_SOURCES = tests/cufuture/cufuture.h tests/cufuture/cufuture.c tests/cufuture/cufuture-pool.c \
	tests/cufuture/cufuture-hostfn.c tests/cufuture/cufuture-kernels.h tests/cufuture/cufuture-kernels.c
tests_cufuture_cufuture_test_SOURCES = tests/cufuture/cufuture-test.c $(CUFUTURE_LIB_SOURCES)
nodist_tests_cufuture_cufuture_test_SOURCES = tests/cufuture/cufuture-fatbin.c
tests_cufuture_cufuture_test_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cufuture_cufuture_test_LDADD = -lcuda -lpthread
tests_cufuture_cufuture_bench_SOURCES = tests/cufuture/cufuture-bench.c $(CUFUTURE_LIB_SOURCES)
nodist_tests_cufuture_cufuture_bench_SOURCES = tests/cufuture/cufuture-fatbin.c
tests_cufuture_cufuture_bench_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cufuture_cufuture_bench_LDADD = -lcuda -lpthread
tests_cufuture_cufuture_test_rt_SOURCES = tests/cufuture/cufuture-test.c $(CUFUTURE_LIB_SOURCES) \
	tests/cufuture/cufuture-rtroute.h tests/gpu/rtroute.c tests/gpu/rtroute.h
nodist_tests_cufuture_cufuture_test_rt_SOURCES = tests/cufuture/cufuture-fatbin.c
tests_cufuture_cufuture_test_rt_CPPFLAGS = $(AM_CPPFLAGS) -DRTROUTE -I$(srcdir)/tests/gpu
tests_cufuture_cufuture_test_rt_LDFLAGS = $(RTROUTE_LINKFLAGS)
tests_cufuture_cufuture_test_rt_LDADD = -lcudart -ldl -lpthread
CLEANFILES += tests/cufuture/cufuture-kernels.fatbin tests/cufuture/cufuture-fatbin.c

tests/cufuture/cufuture-kernels.fatbin: $(top_srcdir)/tests/cufuture/cufuture-kernels.cu
	$(AM_V_GEN)$(MKDIR_P) tests/cufuture && $(NVCC) $(NVCC_ARCH) -O2 -fatbin -o $@ $(top_srcdir)/tests/cufuture/cufuture-kernels.cu
tests/cufuture/cufuture-fatbin.c: tests/cufuture/cufuture-kernels.fatbin $(top_srcdir)/tools/bin2c.py
	$(AM_V_GEN)$(PYTHON) $(top_srcdir)/tools/bin2c.py cufuture_fatbin tests/cufuture/cufuture-kernels.fatbin $@
endif
