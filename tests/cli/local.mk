# tests/cli: scripts run against the build tree's cushim and libcushim.so.
# cuda13-app: built against the 13.0 headers and the toolkit's stub libcuda.so
# (a cross build without the target's stubs: the fake 13.0 driver); read by
# `cushim check`, never run by these tests.  driver-only-app: a program on
# the driver API alone, built the same way.  fatbin-marks-app and
# fatbin-release-app: a static runtime's marks beside GPU code, its release
# in the host's data or in the GPU code alone.
check_PROGRAMS += tests/cli/cuda13-app tests/cli/driver-only-app tests/cli/fatbin-marks-app \
	tests/cli/fatbin-release-app
tests_cli_fatbin_marks_app_SOURCES = tests/cli/fatbin-marks-app.c
tests_cli_fatbin_release_app_SOURCES = tests/cli/fatbin-marks-app.c
tests_cli_fatbin_release_app_CPPFLAGS = $(AM_CPPFLAGS) -DGPU_RELEASE_ONLY
tests_cli_cuda13_app_SOURCES = tests/cli/cuda13-app.c
tests_cli_cuda13_app_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cli_cuda13_app_LDADD = -lcuda
EXTRA_tests_cli_cuda13_app_DEPENDENCIES = $(CUDA_STUBS_DEPS)
tests_cli_driver_only_app_SOURCES = tests/cli/driver-only-app.c
tests_cli_driver_only_app_LDFLAGS = $(CUDA_STUBS_LDFLAGS)
tests_cli_driver_only_app_LDADD = -lcuda
EXTRA_tests_cli_driver_only_app_DEPENDENCIES = $(CUDA_STUBS_DEPS)
CLI_TESTS = tests/cli/check-imports.sh tests/cli/check-errors.sh tests/cli/run.sh \
	tests/cli/symbols.sh tests/cli/docs.sh tests/cli/fake-driver.sh tests/cli/check-cuda.sh tests/cli/driver-search.sh \
	tests/cli/check-tree.sh tests/cli/check-tree-cuda.sh tests/cli/check-wheel.sh tests/cli/check-host-marks.sh \
	tests/cli/check-fifo.sh tests/cli/check-demangle.sh \
	tests/cli/check-self.sh tests/cli/lib-prefix.sh tests/cli/check-code-kinds.sh tests/cli/check-loads.sh \
	tests/cli/check-compat.sh tests/cli/check-emit.sh tests/cli/check-wheel-inflate.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/kernel.cu tests/cli/drvrt.cu tests/cli/vadd.cu tests/cli/mkfatbin.py \
	tests/cli/emit-docker.expected tests/cli/emit-conda.expected tests/cli/emit-variant.expected
tests/cli/check-cuda.log: tests/cli/driver-only-app$(EXEEXT)
tests/cli/check-host-marks.log: tests/cli/fatbin-marks-app$(EXEEXT) tests/cli/fatbin-release-app$(EXEEXT)
# The scripts need the command and the library (both in `all`).
$(CLI_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/cli/cuda13-app$(EXEEXT)
# The fake drivers of tests/fake (the test skips when they are not there).
tests/cli/fake-driver.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
tests/cli/driver-search.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME) $(FAKE_BAD)
tests/cli/check-compat.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
# The parts of docs.sh, one concern each.
EXTRA_DIST += tests/cli/docs-settings.sh tests/cli/docs-layout.sh tests/cli/docs-cite.sh
