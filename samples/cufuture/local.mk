# samples/cufuture: a CUDA-aware future on the driver API (after PyTorch's
# CUDAFuture), its suite and its benchmark.  The programs link libcuda
# directly (the toolkit's stubs at link time, the real driver at run time)
# and no libtool library, so they run on a GPU machine from the build folder
# as they are.  cufuture-test-rt is the same suite on the runtime route
# (samples/common, cufuture-rtroute.h).
TESTS += samples/cufuture/cufuture.sh
EXTRA_DIST += samples/cufuture/cufuture.sh samples/cufuture/cufuture-bench.sh samples/cufuture/cufuture-kernels.cu \
	samples/cufuture/cufuture-rtroute.h

if HAVE_NVCC
check_PROGRAMS += samples/cufuture/cufuture-test samples/cufuture/cufuture-bench samples/cufuture/cufuture-test-rt
CLEANFILES += samples/cufuture/cufuture-kernels.fatbin samples/cufuture/cufuture-kernels-fatbin.c
CUFUTURE_SOURCES = samples/cufuture/cufuture.h samples/cufuture/cufuture.c samples/cufuture/cufuture-pool.c \
	samples/cufuture/cufuture-hostfn.c samples/cufuture/cufuture-kernels.h samples/cufuture/cufuture-kernels.c
CUFUTURE_FATBIN = samples/cufuture/cufuture-kernels-fatbin.c
samples_cufuture_cufuture_test_SOURCES = samples/cufuture/cufuture-test.c $(CUFUTURE_SOURCES)
nodist_samples_cufuture_cufuture_test_SOURCES = $(CUFUTURE_FATBIN)
samples_cufuture_cufuture_test_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -lpthread
samples_cufuture_cufuture_bench_SOURCES = samples/cufuture/cufuture-bench.c $(CUFUTURE_SOURCES)
nodist_samples_cufuture_cufuture_bench_SOURCES = $(CUFUTURE_FATBIN)
samples_cufuture_cufuture_bench_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -lpthread
samples_cufuture_cufuture_test_rt_SOURCES = samples/cufuture/cufuture-test.c $(CUFUTURE_SOURCES)
nodist_samples_cufuture_cufuture_test_rt_SOURCES = $(CUFUTURE_FATBIN)
samples_cufuture_cufuture_test_rt_CPPFLAGS = $(AM_CPPFLAGS) $(RTROUTE_CPPFLAGS)
samples_cufuture_cufuture_test_rt_LDFLAGS = $(RTROUTE_LINKFLAGS)
samples_cufuture_cufuture_test_rt_LDADD = $(RTROUTE_LIBS)
endif
# The two-device logic on the fake driver's two devices (no GPU needed).
TESTS += samples/cufuture/cufuture-fake.sh
EXTRA_DIST += samples/cufuture/cufuture-fake.sh
samples/cufuture/cufuture-fake.log: $(FAKE_ALL) libcushim.la
