# samples/common: what both suites share.  rtroute.c is the runtime route (a
# program linked to libcudart and not libcuda, every driver call through
# cudaGetDriverEntryPointByVersion); suite-checks.sh holds the checks the
# suites' scripts share, proven on crafted logs without a GPU by
# suite-checks-test.sh; suite-env.sh is the scripts' common start.
RTROUTE_SOURCES = samples/common/rtroute.c samples/common/rtroute.h samples/common/rtroute-shared.h
RTROUTE_CPPFLAGS = -DRTROUTE -I$(srcdir)/samples/common
RTROUTE_LINKFLAGS = -L$(CUDA_INCDIR)/../lib64 -Wl,-rpath,$(CUDA_INCDIR)/../lib64 -Wl,--no-as-needed
RTROUTE_LIBS = -lcudart -ldl -lpthread
TESTS += samples/common/suite-checks-test.sh
EXTRA_DIST += samples/common/suite-env.sh samples/common/suite-checks.sh samples/common/suite-checks-test.sh \
	$(RTROUTE_SOURCES)
