# samples/common: what both suites share.  rtroute.c is the runtime route (a
# program linked to libcudart and not libcuda, every driver call through
# cudaGetDriverEntryPointByVersion); suite-checks.sh holds the checks the
# suites' scripts share, proven on crafted logs without a GPU by
# suite-checks-test.sh; suite-env.sh is the scripts' common start.
# A program on the runtime route compiles with RTROUTE_CPPFLAGS and links
# RTROUTE_LIBS (the route, built once here, and the runtime).
RTROUTE_CPPFLAGS = -DRTROUTE -I$(srcdir)/samples/common
RTROUTE_LINKFLAGS = -L$(CUDA_INCDIR)/../lib64 -Wl,-rpath,$(CUDA_INCDIR)/../lib64 -Wl,--no-as-needed
RTROUTE_LIBS = samples/common/librtroute.la -lcudart -ldl -lpthread
if HAVE_NVCC
check_LTLIBRARIES += samples/common/librtroute.la
endif
samples_common_librtroute_la_SOURCES = samples/common/rtroute.c samples/common/rtroute.h samples/common/rtroute-shared.h
samples_common_librtroute_la_CPPFLAGS = $(AM_CPPFLAGS) $(RTROUTE_CPPFLAGS)
TESTS += samples/common/suite-checks-test.sh
EXTRA_DIST += samples/common/suite-env.sh samples/common/suite-checks.sh samples/common/suite-checks-test.sh \
	samples/common/suite-checks-more.sh
