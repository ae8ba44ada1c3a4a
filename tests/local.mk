# Each part of the test tree owns one fragment.
include tests/fake/local.mk
include tests/unit/local.mk
include tests/legacy/local.mk
include tests/diag/local.mk
include tests/gpu/local.mk
include tests/cufuture/local.mk
include tests/userbuffers/local.mk
include tests/adapt/local.mk
include tests/compat/local.mk
include tests/table/local.mk
include src/cli/local.mk
include tests/hardening/local.mk
include tests/fuzz/local.mk
include tests/realdrv/local.mk
include tests/timeline/local.mk
include tests/cluster/local.mk
include tests/package/local.mk
