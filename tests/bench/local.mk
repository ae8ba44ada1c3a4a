# tests/bench: make bench, every figure against a baseline measured in the
# same run.  Its kernel (the GPU rounds) only where nvcc built it; the rest
# runs on the fake driver, in a cross build through EXE_WRAPPER (figures that
# only show it works: an emulator's nanoseconds are not the hardware's).
noinst_PROGRAMS += tests/bench/bench-calls
if HAVE_NVCC
nodist_tests_bench_bench_calls_SOURCES = tests/gpu/gpu-kernels-fatbin.c
endif
tests_bench_bench_calls_SOURCES = tests/bench/bench-calls.c
tests_bench_bench_calls_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -ldl
EXTRA_tests_bench_bench_calls_DEPENDENCIES = $(CUDA_STUBS_DEPS)
bench: all $(FAKE_ALL) $(check_PROGRAMS)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' EXE_WRAPPER='$(EXE_WRAPPER)' \
		$(SHELL) $(top_srcdir)/tests/bench/bench.sh
.PHONY: bench
EXTRA_DIST += tests/bench/bench.sh tests/bench/bench-check.sh
# make bench-check: cushim check's speed on whole environments (files/s, MB/s)
# and its peak memory.
bench-check: all
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' $(SHELL) $(top_srcdir)/tests/bench/bench-check.sh
.PHONY: bench-check
