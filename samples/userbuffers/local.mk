# samples/userbuffers: the Userbuffers-style sample (README.md here).  ub-test
# and ub-bench are plain executables linked to libcuda (the toolkit's stubs at
# link time).  ub-test-rt is ub-test on the runtime route, as TE reaches the
# driver (samples/common).  ub-test-mc is ub-test-rt with the seed's
# multicast decision compiled in, ub-test-mc-drv the same on the direct driver
# route: each asks for the multicast entry points, never calls one, and
# refuses to run unless the driver's answers prove them missing (hidden or
# emulated away by cushim).  With MPI (configure found mpicc: HAVE_MPI), ub-mpi.c is compiled
# with MPI_CFLAGS and the programs linked with MPI_LIBS, so that under mpirun
# the ranks bootstrap through MPI.  userbuffers.sh runs the cases plain and
# under the shim; without nvcc nothing is built and it skips.
EXTRA_DIST += samples/userbuffers/userbuffers.sh samples/userbuffers/ub-bench.sh samples/userbuffers/ub-mpi.c \
	samples/userbuffers/ub-rtroute.h samples/userbuffers/ub-kernels.cu samples/userbuffers/README.md
TESTS += samples/userbuffers/userbuffers.sh
if HAVE_NVCC
check_PROGRAMS += samples/userbuffers/ub-test samples/userbuffers/ub-bench samples/userbuffers/ub-test-rt \
	samples/userbuffers/ub-test-mc samples/userbuffers/ub-test-mc-drv
CLEANFILES += samples/userbuffers/ub-kernels.fatbin samples/userbuffers/ub-kernels-fatbin.c
samples/userbuffers/ub-kernels-fatbin.c: $(srcdir)/samples/userbuffers/ub-layout.h
UB_SOURCES = samples/userbuffers/ub-boot.c samples/userbuffers/ub-comm.c samples/userbuffers/ub.h \
	samples/userbuffers/ub-layout.h
UB_FATBIN = samples/userbuffers/ub-kernels-fatbin.c
UB_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
UB_LIBS = $(CUDA_STUBS_LDFLAGS) -lcuda -lpthread
if HAVE_MPI
UB_SOURCES += samples/userbuffers/ub-mpi.c
UB_CPPFLAGS += -DUB_MPI $(MPI_CFLAGS)
UB_LIBS += $(MPI_LIBS)
endif
samples_userbuffers_ub_test_SOURCES = samples/userbuffers/ub-test.c $(UB_SOURCES)
nodist_samples_userbuffers_ub_test_SOURCES = $(UB_FATBIN)
samples_userbuffers_ub_test_CPPFLAGS = $(UB_CPPFLAGS)
samples_userbuffers_ub_test_LDADD = $(UB_LIBS)
samples_userbuffers_ub_bench_SOURCES = samples/userbuffers/ub-bench.c samples/userbuffers/ub-bench-peer.c $(UB_SOURCES)
nodist_samples_userbuffers_ub_bench_SOURCES = $(UB_FATBIN)
samples_userbuffers_ub_bench_CPPFLAGS = $(UB_CPPFLAGS)
samples_userbuffers_ub_bench_LDADD = $(UB_LIBS)
# the runtime route: without MPI, as TE's own tests run it
UB_RT_SOURCES = samples/userbuffers/ub-test.c samples/userbuffers/ub-boot.c samples/userbuffers/ub-comm.c \
	samples/userbuffers/ub.h samples/userbuffers/ub-layout.h samples/userbuffers/ub-rtroute.h
UB_RT_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(RTROUTE_CPPFLAGS)
samples_userbuffers_ub_test_rt_SOURCES = $(UB_RT_SOURCES)
nodist_samples_userbuffers_ub_test_rt_SOURCES = $(UB_FATBIN)
samples_userbuffers_ub_test_rt_CPPFLAGS = $(UB_RT_CPPFLAGS)
samples_userbuffers_ub_test_rt_LDFLAGS = $(RTROUTE_LINKFLAGS)
samples_userbuffers_ub_test_rt_LDADD = $(RTROUTE_LIBS)
# The seed's multicast decision, on the runtime route and on the driver's own
# cuGetProcAddress; neither is ever run on a driver that offers multicast
# (the programs refuse).
samples_userbuffers_ub_test_mc_SOURCES = $(UB_RT_SOURCES)
nodist_samples_userbuffers_ub_test_mc_SOURCES = $(UB_FATBIN)
samples_userbuffers_ub_test_mc_CPPFLAGS = $(UB_RT_CPPFLAGS) -DUB_MULTICAST
samples_userbuffers_ub_test_mc_LDFLAGS = $(RTROUTE_LINKFLAGS)
samples_userbuffers_ub_test_mc_LDADD = $(RTROUTE_LIBS)
samples_userbuffers_ub_test_mc_drv_SOURCES = samples/userbuffers/ub-test.c samples/userbuffers/ub-boot.c \
	samples/userbuffers/ub-comm.c samples/userbuffers/ub.h samples/userbuffers/ub-layout.h
nodist_samples_userbuffers_ub_test_mc_drv_SOURCES = $(UB_FATBIN)
samples_userbuffers_ub_test_mc_drv_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -DUB_MULTICAST
samples_userbuffers_ub_test_mc_drv_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -lpthread
# The benchmark, plain and under the shim (make bench can depend on this).
bench-userbuffers: samples/userbuffers/ub-bench tests/gpu/have-gpu $(lib_LTLIBRARIES)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' $(SHELL) $(srcdir)/samples/userbuffers/ub-bench.sh
else
bench-userbuffers:
	@echo "bench-userbuffers: no nvcc, so the Userbuffers sample is not built"
endif
.PHONY: bench-userbuffers
# The multicast decision on the fake driver (no GPU needed).
TESTS += samples/userbuffers/ub-fake.sh
EXTRA_DIST += samples/userbuffers/ub-fake.sh
samples/userbuffers/ub-fake.log: $(FAKE_ALL) libcushim.la
