# GPU tests: each skips (77) without a GPU; see tests/gpu/gpu-env.sh. The
# programs link no libtool library, so a build folder made here runs on a GPU
# machine that has no libtool.
check_PROGRAMS += tests/gpu/have-gpu
tests_gpu_have_gpu_SOURCES = tests/gpu/have-gpu.c
EXTRA_DIST += tests/gpu/gpu-env.sh tests/gpu/kernels.cu tools/bin2c.py
# The sample suites' runtime route (tests/gpu/rtroute.c, linked to libcudart)
# and the checks their scripts share, proven on crafted logs without a GPU.
RTROUTE_LINKFLAGS = -L$(CUDA_INCDIR)/../lib64 -Wl,-rpath,$(CUDA_INCDIR)/../lib64 -Wl,--no-as-needed
TESTS += tests/gpu/suite-checks-test.sh
EXTRA_DIST += tests/gpu/suite-checks.sh tests/gpu/suite-checks-test.sh tests/gpu/rtroute.c tests/gpu/rtroute.h
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(CUSHIM_TEST_PREFIX) $(SHELL)

if HAVE_NVCC
# nvcc -> fatbin (sm_90 code + PTX) -> a C array for cuModuleLoadData
tests/gpu/kernels.fatbin: $(top_srcdir)/tests/gpu/kernels.cu
	$(AM_V_GEN)$(MKDIR_P) tests/gpu && $(NVCC) -fatbin $(NVCC_ARCH) -o $@ $<
tests/gpu/kernels-fatbin.c: tests/gpu/kernels.fatbin $(top_srcdir)/tools/bin2c.py
	$(AM_V_GEN)$(PYTHON) $(top_srcdir)/tools/bin2c.py gpu_kernels $< $@
CLEANFILES += tests/gpu/kernels.fatbin tests/gpu/kernels-fatbin.c

check_PROGRAMS += tests/gpu/real-exports tests/gpu/saxpy
tests_gpu_real_exports_SOURCES = tests/gpu/real-exports.c
tests_gpu_real_exports_LDADD = libcushim_table.la -ldl
tests_gpu_saxpy_SOURCES = tests/gpu/saxpy.c
nodist_tests_gpu_saxpy_SOURCES = tests/gpu/kernels-fatbin.c
tests_gpu_saxpy_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
TESTS += tests/gpu/core.sh
EXTRA_DIST += tests/gpu/core.sh tests/gpu/real-exports.c tests/gpu/saxpy.c
check_PROGRAMS += tests/gpu/fork-probe
tests_gpu_fork_probe_SOURCES = tests/gpu/fork-probe.c
tests_gpu_fork_probe_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -ldl
TESTS += tests/gpu/fork.sh
EXTRA_DIST += tests/gpu/fork.sh
check_PROGRAMS += tests/gpu/adapt-gpu
tests_gpu_adapt_gpu_SOURCES = tests/gpu/adapt-gpu.c
tests_gpu_adapt_gpu_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
TESTS += tests/gpu/adapt.sh
EXTRA_DIST += tests/gpu/adapt.sh

# ---- make bench ----
noinst_PROGRAMS += tests/bench/bench-calls
tests_bench_bench_calls_SOURCES = tests/bench/bench-calls.c
nodist_tests_bench_bench_calls_SOURCES = tests/gpu/kernels-fatbin.c
tests_bench_bench_calls_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -ldl
endif


# make bench: every figure against a baseline measured in the same run
bench: all $(FAKE_ALL) $(check_PROGRAMS)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' $(SHELL) $(top_srcdir)/tests/bench/bench.sh
.PHONY: bench
EXTRA_DIST += tests/bench/bench.sh
