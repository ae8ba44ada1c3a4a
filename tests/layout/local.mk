# tests/layout: the structure of src/ (tools/depgraph.py): no cycle between
# files but the generated stubs and their slots, one header per module, and
# the arrows between the folders down the order common < shim < diag < cli.
# The nm of the build (a cross build's, which may not read these objects:
# then it skips).
LAYOUT_TESTS = tests/layout/cycles.sh tests/layout/headers.sh tests/layout/floors.sh
TESTS += $(LAYOUT_TESTS)
EXTRA_DIST += $(LAYOUT_TESTS) tests/layout/depgraph.sh
AM_TESTS_ENVIRONMENT += NM='$(NM)'; PYTHON='$(PYTHON)'; export NM PYTHON;
$(LAYOUT_TESTS:.sh=.log): libcushim.la cushim$(EXEEXT)
