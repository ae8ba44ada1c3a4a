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
	tests/cli/symbols.sh tests/cli/docs.sh tests/cli/fake-driver.sh tests/cli/doctor-exports.sh tests/cli/check-cuda.sh tests/cli/driver-search.sh \
	tests/cli/check-tree.sh tests/cli/check-tree-cuda.sh tests/cli/check-wheel.sh tests/cli/check-host-marks.sh \
	tests/cli/check-fifo.sh tests/cli/check-demangle.sh \
	tests/cli/check-self.sh tests/cli/lib-prefix.sh tests/cli/check-code-kinds.sh tests/cli/check-loads.sh \
	tests/cli/check-compat.sh tests/cli/check-emit.sh tests/cli/check-wheel-inflate.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/kernel.cu tests/cli/drvrt.cu tests/cli/vadd.cu tests/cli/mkfatbin.py \
	tests/cli/emit-docker.expected tests/cli/emit-conda.expected tests/cli/emit-variant.expected
# What check-cuda.sh and check-tree-cuda.sh give cushim check, built once with
# the configured nvcc (without one they skip) and never run: in tests/cli/cuda,
# programs built in several ways, a fatbin and PTX; in tests/cli/cuda-tree, a
# tree as installed (bin, lib, kernels), which check-tree-cuda.sh copies, with
# cuda/vadd.ptx among its kernels.
# vadd-size.fatbin is empty where nvcc has no --compress-mode, sass100a.fatbin
# (arch-specific SASS) where nvcc is older than 12.8.
EXTRA_DIST += tests/cli/tree-lib.cu tests/cli/tree-app.cu
if HAVE_NVCC
CLI_CUDA = tests/cli/cuda/static tests/cli/cuda/shared tests/cli/cuda/sass90 tests/cli/cuda/ptx80 \
	tests/cli/cuda/drvrt tests/cli/cuda/drvonly-nvcc tests/cli/cuda/vadd.fatbin tests/cli/cuda/vadd.ptx \
	tests/cli/cuda/sass100a.fatbin
CLI_CUDA_TREE = tests/cli/cuda-tree/lib/libk80.so tests/cli/cuda-tree/lib/libkptx.so tests/cli/cuda-tree/bin/app \
	tests/cli/cuda-tree/bin/app-nocompress tests/cli/cuda-tree/kernels/vadd.cubin \
	tests/cli/cuda-tree/kernels/vadd.fatbin tests/cli/cuda-tree/kernels/vadd-size.fatbin tests/cli/cuda/vadd.ptx
else
CLI_CUDA =
CLI_CUDA_TREE =
endif
tests/cli/check-cuda.log: tests/cli/driver-only-app$(EXEEXT) $(CLI_CUDA)
tests/cli/check-tree-cuda.log: $(CLI_CUDA_TREE)
if HAVE_NVCC
CLI_NVCC = $(AM_V_GEN)$(MKDIR_P) $(@D) && $(NVCC)
CLI_KERNEL = $(top_srcdir)/tests/cli/kernel.cu
CLI_VADD = $(top_srcdir)/tests/cli/vadd.cu
CLI_TREE_LIB = $(top_srcdir)/tests/cli/tree-lib.cu
tests/cli/cuda/static: $(CLI_KERNEL)
	$(CLI_NVCC) $(CLI_KERNEL) -arch=sm_90 -o $@
tests/cli/cuda/shared: $(CLI_KERNEL)
	$(CLI_NVCC) $(CLI_KERNEL) -arch=sm_90 -cudart shared -o $@
tests/cli/cuda/sass90: $(CLI_KERNEL)
	$(CLI_NVCC) $(CLI_KERNEL) -gencode arch=compute_90,code=sm_90 -o $@
tests/cli/cuda/ptx80: $(CLI_KERNEL)
	$(CLI_NVCC) $(CLI_KERNEL) -gencode arch=compute_80,code=compute_80 -o $@
tests/cli/cuda/drvrt: $(top_srcdir)/tests/cli/drvrt.cu
	$(CLI_NVCC) $(top_srcdir)/tests/cli/drvrt.cu -lcuda -o $@
tests/cli/cuda/drvonly-nvcc: $(top_srcdir)/tests/cli/driver-only-app.c
	$(CLI_NVCC) -x cu $(top_srcdir)/tests/cli/driver-only-app.c -lcuda -o $@
tests/cli/cuda/vadd.fatbin: $(CLI_VADD)
	$(CLI_NVCC) $(CLI_VADD) -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o $@
tests/cli/cuda/vadd.ptx: $(CLI_VADD)
	$(CLI_NVCC) $(CLI_VADD) -ptx -arch=compute_80 -o $@
tests/cli/cuda/sass100a.fatbin: $(CLI_VADD)
	$(AM_V_GEN)$(MKDIR_P) $(@D) && set -- `$(NVCC) --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p'` && \
	if test "$$1" -gt 12 || { test "$$1" -eq 12 && test "$$2" -ge 8; }; then \
		$(NVCC) -fatbin $(CLI_VADD) -gencode arch=compute_100a,code=sm_100a -o $@; \
	else : >$@; fi
tests/cli/cuda-tree/lib/libk80.so: $(CLI_TREE_LIB)
	$(CLI_NVCC) $(CLI_TREE_LIB) -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -cudart shared -o $@
tests/cli/cuda-tree/lib/libkptx.so: $(CLI_TREE_LIB)
	$(CLI_NVCC) $(CLI_TREE_LIB) -shared -Xcompiler -fPIC -gencode arch=compute_80,code=compute_80 -cudart shared -o $@
tests/cli/cuda-tree/bin/app: $(top_srcdir)/tests/cli/tree-app.cu tests/cli/cuda-tree/lib/libk80.so
	$(CLI_NVCC) $(top_srcdir)/tests/cli/tree-app.cu -Ltests/cli/cuda-tree/lib -lk80 -Xlinker -rpath \
		-Xlinker '$$ORIGIN/../lib' -arch=sm_90 -o $@
tests/cli/cuda-tree/bin/app-nocompress: $(CLI_KERNEL)
	$(CLI_NVCC) $(CLI_KERNEL) -arch=sm_90 -Xfatbin -compress-all -no-compress -o $@
tests/cli/cuda-tree/kernels/vadd.cubin: $(CLI_VADD)
	$(CLI_NVCC) $(CLI_VADD) -cubin -arch=sm_90 -o $@
tests/cli/cuda-tree/kernels/vadd.fatbin: $(CLI_VADD)
	$(CLI_NVCC) $(CLI_VADD) -fatbin -gencode arch=compute_90,code=sm_90 -o $@
# nvcc's --compress-mode=size compresses with zstd (nvcc's documentation).
tests/cli/cuda-tree/kernels/vadd-size.fatbin: $(CLI_VADD)
	$(AM_V_GEN)$(MKDIR_P) $(@D) && if $(NVCC) --help 2>/dev/null | grep -q -e --compress-mode; then \
		$(NVCC) -fatbin $(CLI_VADD) -gencode arch=compute_90,code=sm_90 --compress-mode=size -o $@; \
	else : >$@; fi
endif
clean-local: clean-cli-cuda
clean-cli-cuda:
	rm -rf tests/cli/cuda tests/cli/cuda-tree
.PHONY: clean-cli-cuda
tests/cli/check-host-marks.log: tests/cli/fatbin-marks-app$(EXEEXT) tests/cli/fatbin-release-app$(EXEEXT)
# The scripts need the command and the library (both in `all`).
$(CLI_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/cli/cuda13-app$(EXEEXT)
# The fake drivers of tests/fake (the test skips when they are not there).
tests/cli/fake-driver.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
tests/cli/doctor-exports.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
tests/cli/driver-search.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME) $(FAKE_BAD)
tests/cli/check-compat.log: $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
# The parts of docs.sh, one concern each.
EXTRA_DIST += tests/cli/docs-settings.sh tests/cli/docs-layout.sh tests/cli/docs-cite.sh
