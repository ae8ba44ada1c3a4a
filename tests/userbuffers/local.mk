# tests/userbuffers: the Userbuffers-style sample (issue 6). ub-test and
# ub-bench are plain executables linked to libcuda (the toolkit's stubs at link
# time); their kernels are built by nvcc into a fatbin, embedded as a C array
# and loaded with cuModuleLoadData. userbuffers.sh runs the cases plain and
# under the shim; without nvcc nothing is built and it skips.
EXTRA_DIST += tests/userbuffers/userbuffers.sh tests/userbuffers/ub-bench.sh \
	tests/userbuffers/ub-kernels.cu tests/userbuffers/README.md
TESTS += tests/userbuffers/userbuffers.sh
if HAVE_NVCC
check_PROGRAMS += tests/userbuffers/ub-test tests/userbuffers/ub-bench
UB_COMMON = tests/userbuffers/ub-boot.c tests/userbuffers/ub-comm.c tests/userbuffers/ub.h tests/userbuffers/ub-layout.h
UB_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/userbuffers
if ENABLE_MULTICAST
# The NVLink multicast path: built only here, run only with --multicast.
UB_CPPFLAGS += -DUB_MULTICAST
endif
UB_LIBS = -lcuda -lpthread
tests_userbuffers_ub_test_SOURCES = tests/userbuffers/ub-test.c $(UB_COMMON)
nodist_tests_userbuffers_ub_test_SOURCES = tests/userbuffers/ub-kernels-fatbin.c
tests_userbuffers_ub_test_CPPFLAGS = $(UB_CPPFLAGS)
tests_userbuffers_ub_test_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_userbuffers_ub_test_LDADD = $(UB_LIBS)
tests_userbuffers_ub_bench_SOURCES = tests/userbuffers/ub-bench.c $(UB_COMMON)
nodist_tests_userbuffers_ub_bench_SOURCES = tests/userbuffers/ub-kernels-fatbin.c
tests_userbuffers_ub_bench_CPPFLAGS = $(UB_CPPFLAGS)
tests_userbuffers_ub_bench_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_userbuffers_ub_bench_LDADD = $(UB_LIBS)
tests/userbuffers/ub-kernels.fatbin: $(srcdir)/tests/userbuffers/ub-kernels.cu $(srcdir)/tests/userbuffers/ub-layout.h
	$(AM_V_GEN)$(MKDIR_P) tests/userbuffers && \
	$(NVCC) -fatbin $(NVCC_ARCH) -I$(srcdir)/tests/userbuffers -o $@ $(srcdir)/tests/userbuffers/ub-kernels.cu
tests/userbuffers/ub-kernels-fatbin.c: tests/userbuffers/ub-kernels.fatbin $(top_srcdir)/tools/bin2c.py
	$(AM_V_GEN)$(PYTHON) $(top_srcdir)/tools/bin2c.py ub_kernels_fatbin tests/userbuffers/ub-kernels.fatbin $@
CLEANFILES += tests/userbuffers/ub-kernels.fatbin tests/userbuffers/ub-kernels-fatbin.c
# The benchmark, plain and under the shim (the lead's `make bench` can depend on this).
bench-userbuffers: tests/userbuffers/ub-bench tests/gpu/have-gpu $(lib_LTLIBRARIES)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' $(SHELL) $(srcdir)/tests/userbuffers/ub-bench.sh
else
bench-userbuffers:
	@echo "bench-userbuffers: no nvcc, so the Userbuffers sample is not built"
endif
.PHONY: bench-userbuffers
