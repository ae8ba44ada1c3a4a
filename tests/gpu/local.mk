# tests/gpu: the GPU tests; each skips (77) without a GPU (tests/gpu/gpu-env.sh).
# The programs link no libtool library, so a build folder made here runs on a
# GPU machine that has no libtool (tools/gpu-check.sh runs them there).
check_PROGRAMS += tests/gpu/have-gpu
EXTRA_DIST += tests/gpu/gpu-env.sh tests/gpu/gpu-kernels.cu tests/gpu/sticky-kernels.cu

if HAVE_NVCC
CLEANFILES += tests/gpu/gpu-kernels.fatbin tests/gpu/gpu-kernels-fatbin.c
check_PROGRAMS += tests/gpu/real-exports tests/gpu/saxpy tests/gpu/fork-probe tests/gpu/adapt-gpu \
	tests/gpu/integrity-gpu tests/gpu/explain-gpu tests/gpu/load-probe tests/gpu/start-gpu tests/gpu/sticky-gpu
tests_gpu_integrity_gpu_LDADD = libcushim_common.la $(CUDA_STUBS_LDFLAGS) -lcuda
tests_gpu_real_exports_LDADD = libcushim_common.la -ldl
tests_gpu_saxpy_SOURCES = tests/gpu/saxpy.c
nodist_tests_gpu_saxpy_SOURCES = tests/gpu/gpu-kernels-fatbin.c
tests_gpu_saxpy_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
tests_gpu_fork_probe_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -ldl
tests_gpu_load_probe_LDADD = -ldl
tests_gpu_start_gpu_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
tests_gpu_sticky_gpu_SOURCES = tests/gpu/sticky-gpu.c
nodist_tests_gpu_sticky_gpu_SOURCES = tests/gpu/sticky-kernels-fatbin.c
tests_gpu_sticky_gpu_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
CLEANFILES += tests/gpu/sticky-kernels.fatbin tests/gpu/sticky-kernels-fatbin.c
tests_gpu_adapt_gpu_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
# coexist.sh: beside HAMi-core (CUSHIM_TEST_VGPU=libvgpu.so, built elsewhere)
# and the Nsight tools and compute-sanitizer, where found.
check_PROGRAMS += tests/gpu/coexist-app
tests_gpu_coexist_app_SOURCES = tests/gpu/coexist-app.c
nodist_tests_gpu_coexist_app_SOURCES = tests/gpu/gpu-kernels-fatbin.c
tests_gpu_coexist_app_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -ldl -lpthread
# procs-app (tests/timeline) again, with its GPU work, against the real driver.
check_PROGRAMS += tests/gpu/procs-app
tests_gpu_procs_app_SOURCES = tests/timeline/procs-app.c
tests_gpu_procs_app_CPPFLAGS = $(AM_CPPFLAGS) -DPROCS_GPU_WORK
tests_gpu_procs_app_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda
# explain-gpu: against the toolkit's shared CUDA runtime, a copy of which
# travels with the build folder (tests/gpu/rt); sm100-only.fatbin: SASS for
# sm_100 alone, which no other GPU runs.
tests_gpu_explain_gpu_CPPFLAGS = $(AM_CPPFLAGS)
tests_gpu_explain_gpu_LDFLAGS = -Wl,-rpath,'$$ORIGIN/rt'
tests_gpu_explain_gpu_LDADD = $(CUDA_STUBS_LDFLAGS) -lcuda -Ltests/gpu/rt -lcudart
EXTRA_tests_gpu_explain_gpu_DEPENDENCIES = tests/gpu/rt/libcudart.so tests/gpu/sm100-only.fatbin
tests/gpu/rt/libcudart.so:
	$(AM_V_GEN)$(MKDIR_P) tests/gpu/rt && for v in 13 12 11.0; do \
		if test -f $(CUDA_DIR)/lib64/libcudart.so.$$v; then \
			cp -L $(CUDA_DIR)/lib64/libcudart.so.$$v tests/gpu/rt/ && ln -sf libcudart.so.$$v $@ && exit 0; fi; \
	done; echo "no libcudart.so in $(CUDA_DIR)/lib64" >&2; exit 1
tests/gpu/sm100-only.fatbin: $(top_srcdir)/tests/gpu/gpu-kernels.cu
	$(AM_V_GEN)$(MKDIR_P) tests/gpu && $(NVCC) -fatbin -gencode arch=compute_100,code=sm_100 -o $@ $<
CLEANFILES += tests/gpu/sm100-only.fatbin
GPU_TESTS = tests/gpu/core.sh tests/gpu/fork.sh tests/gpu/adapt.sh tests/gpu/emulation.sh tests/gpu/coexist.sh \
	tests/gpu/procs.sh tests/gpu/explain.sh tests/gpu/explain-start.sh tests/gpu/sticky.sh tests/gpu/check-env.sh tests/gpu/check-truth.sh
TESTS += $(GPU_TESTS)
EXTRA_DIST += $(GPU_TESTS)
endif
clean-local: clean-gpu-rt
clean-gpu-rt:
	rm -rf tests/gpu/rt
.PHONY: clean-gpu-rt
