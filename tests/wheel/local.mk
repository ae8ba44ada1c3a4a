# tests/wheel: make check-wheel, the Python wheels (python/): the sdist, the
# x86-64 wheel built from it and repaired into a manylinux one, installed in
# a fresh virtual environment and run there; the aarch64 wheel from the cross
# toolchain, run under qemu.  It needs the network (the build tools come from
# the package index): not in make check; run through the test driver, so
# that a skip is one (77: the index cannot be reached), and its log shown.
EXTRA_DIST += tests/wheel/wheel.sh
check-wheel: all tests/demo/newer-app$(EXEEXT) $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
	@CUSHIM_VERSION='$(VERSION)' PYTHON='$(PYTHON)' $(MAKE) $(AM_MAKEFLAGS) check TESTS='tests/wheel/wheel.sh'; \
	st=$$?; cat tests/wheel/wheel.log; exit $$st
clean-local: clean-wheel
clean-wheel:
	rm -rf wheel
.PHONY: check-wheel clean-wheel
