# tests/cluster: MPI launchers and a machine without a driver, on the fakes.
check_PROGRAMS += tests/cluster/rank-app
tests_cluster_rank_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_cluster_rank_app_LDFLAGS = $(FAKE_APP_LINK)
tests_cluster_rank_app_LDADD = -lcuda
EXTRA_tests_cluster_rank_app_DEPENDENCIES = $(FAKE_APP_DEPS)
CLUSTER_TESTS = tests/cluster/mpi.sh tests/cluster/no-driver.sh
TESTS += $(CLUSTER_TESTS)
EXTRA_DIST += $(CLUSTER_TESTS)
$(CLUSTER_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/cluster/rank-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
