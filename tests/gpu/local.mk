# GPU tests: each skips (77) without a GPU; see tests/gpu/gpu-env.sh.
check_PROGRAMS += tests/gpu/have-gpu
tests_gpu_have_gpu_SOURCES = tests/gpu/have-gpu.c
EXTRA_DIST += tests/gpu/gpu-env.sh
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(CUSHIM_TEST_PREFIX) $(SHELL)
