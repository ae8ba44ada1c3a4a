# tests/userbuffers: the Userbuffers-style sample. ub-test and ub-bench are
# plain executables linked to libcuda (the toolkit's stubs at link time); their
# kernels are built by nvcc into a fatbin, embedded as a C array and loaded
# with cuModuleLoadData. ub-test-rt is ub-test on the runtime route, as TE
# reaches the driver: linked to libcudart and not libcuda, every driver call
# through cudaGetDriverEntryPointByVersion (tests/gpu/rtroute.c). ub-test-mc,
# built only with --enable-multicast, is ub-test-rt with the multicast
# decision compiled in: it refuses to run unless the multicast entry points
# are missing (hidden or emulated away by cushim). userbuffers.sh runs the
# cases plain and under the shim; without nvcc nothing is built and it skips.
# With MPI (configure found mpicc: HAVE_MPI), ub-mpi.c is compiled by $(MPICC)
# and both programs are linked by it, so that under mpirun the ranks bootstrap
# through MPI; the rest of the sample is compiled by $(CC) as without MPI.
EXTRA_DIST += tests/userbuffers/userbuffers.sh tests/userbuffers/ub-bench.sh \
	tests/userbuffers/ub-mpi.c tests/userbuffers/ub-rtroute.h \
	tests/userbuffers/ub-kernels.cu tests/userbuffers/README.md
TESTS += tests/userbuffers/userbuffers.sh
if HAVE_NVCC
check_PROGRAMS += tests/userbuffers/ub-test tests/userbuffers/ub-bench
UB_COMMON = tests/userbuffers/ub-boot.c tests/userbuffers/ub-comm.c tests/userbuffers/ub.h tests/userbuffers/ub-layout.h
UB_BASE_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/userbuffers
UB_CPPFLAGS = $(UB_BASE_CPPFLAGS)
UB_RT_CPPFLAGS = $(UB_BASE_CPPFLAGS) -DRTROUTE -I$(srcdir)/tests/gpu
UB_RT_SOURCES = tests/userbuffers/ub-test.c $(UB_COMMON) tests/userbuffers/ub-rtroute.h \
	tests/gpu/rtroute.c tests/gpu/rtroute.h
check_PROGRAMS += tests/userbuffers/ub-test-rt
tests_userbuffers_ub_test_rt_SOURCES = $(UB_RT_SOURCES)
nodist_tests_userbuffers_ub_test_rt_SOURCES = tests/userbuffers/ub-kernels-fatbin.c
tests_userbuffers_ub_test_rt_CPPFLAGS = $(UB_RT_CPPFLAGS)
tests_userbuffers_ub_test_rt_LDFLAGS = $(RTROUTE_LINKFLAGS)
tests_userbuffers_ub_test_rt_LDADD = -lcudart -ldl -lpthread
if ENABLE_MULTICAST
# The seed's multicast decision: built only here, never run on a real driver's
# multicast entry points (the program refuses).
check_PROGRAMS += tests/userbuffers/ub-test-mc
tests_userbuffers_ub_test_mc_SOURCES = $(UB_RT_SOURCES)
nodist_tests_userbuffers_ub_test_mc_SOURCES = tests/userbuffers/ub-kernels-fatbin.c
tests_userbuffers_ub_test_mc_CPPFLAGS = $(UB_RT_CPPFLAGS) -DUB_MULTICAST
tests_userbuffers_ub_test_mc_LDFLAGS = $(RTROUTE_LINKFLAGS)
tests_userbuffers_ub_test_mc_LDADD = -lcudart -ldl -lpthread
endif
UB_LIBS = -lcuda -lpthread
if HAVE_MPI
UB_CPPFLAGS += -DUB_MPI
UB_MPI_OBJ = tests/userbuffers/ub-mpi.$(OBJEXT)
$(UB_MPI_OBJ): $(srcdir)/tests/userbuffers/ub-mpi.c $(srcdir)/tests/userbuffers/ub.h $(srcdir)/tests/userbuffers/ub-layout.h $(BUILT_SOURCES)
	$(AM_V_CC)$(MKDIR_P) tests/userbuffers && \
	$(MPICC) $(DEFS) $(DEFAULT_INCLUDES) $(UB_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) -c -o $@ $(srcdir)/tests/userbuffers/ub-mpi.c
CLEANFILES += $(UB_MPI_OBJ)
UB_LIBS += $(UB_MPI_OBJ)
EXTRA_tests_userbuffers_ub_test_DEPENDENCIES = $(UB_MPI_OBJ)
EXTRA_tests_userbuffers_ub_bench_DEPENDENCIES = $(UB_MPI_OBJ)
UB_CCLD = $(MPICC)
else
UB_CCLD = $(CCLD)
endif
# Linked by mpicc with MPI, else as Automake links them (libtool, $(CCLD)).
tests_userbuffers_ub_test_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link \
	$(UB_CCLD) $(AM_CFLAGS) $(CFLAGS) $(tests_userbuffers_ub_test_LDFLAGS) $(LDFLAGS) -o $@
tests_userbuffers_ub_bench_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link \
	$(UB_CCLD) $(AM_CFLAGS) $(CFLAGS) $(tests_userbuffers_ub_bench_LDFLAGS) $(LDFLAGS) -o $@
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
