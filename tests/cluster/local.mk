# tests/cluster: MPI launchers and a machine without a driver, on the fakes.
check_PROGRAMS += tests/cluster/rank-app
tests_cluster_rank_app_SOURCES = tests/cluster/rank-app.c
tests_cluster_rank_app_CPPFLAGS = -I$(CUDA_INCDIR)
# linked against the fake 13.0 libcuda.so.1 with -z now, as against the toolkit's stub
tests_cluster_rank_app_LDFLAGS = -Ltests/fake/drv-13.0 -Wl,-z,now
tests_cluster_rank_app_LDADD = -lcuda
EXTRA_tests_cluster_rank_app_DEPENDENCIES = tests/fake/drv-13.0/libcuda.so.1
CLUSTER_TESTS = tests/cluster/mpi.sh tests/cluster/no-driver.sh
TESTS += $(CLUSTER_TESTS)
EXTRA_DIST += $(CLUSTER_TESTS)
$(CLUSTER_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/cluster/rank-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
