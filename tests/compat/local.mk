# tests/compat: builds against another toolkit's headers, and the other runs
# that need the network (each fragment adds its own to COMPAT_TESTS): not in
# make check, which stays offline; make check-compat runs them, fetching
# what they need (CUSHIM_TEST_FETCH=1), and skips those that cannot fetch.
COMPAT_TESTS += tests/compat/toolkit-12.sh tests/compat/wheels-check.sh
EXTRA_DIST += tests/compat/toolkit-12.sh tests/compat/wheels-check.sh
tests/compat/wheels-check.log: cushim$(EXEEXT)
check-compat: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(COMPAT_TESTS)' CUSHIM_TEST_FETCH=1
.PHONY: check-compat
