# samples: the two sample suites on the driver API, each run by make check
# (they skip without a GPU) and by tools/gpu-check.sh, plain and through
# cushim, directly linked and on the runtime route (samples/common).
include samples/common/local.mk
include samples/cufuture/local.mk
include samples/userbuffers/local.mk
