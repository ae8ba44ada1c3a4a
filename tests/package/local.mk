# The Debian package (debian/) and its test: build it from a copy of the
# sources, check it with lintian, unpack it and run what it holds.  The test
# builds the project again: make check-slow runs it, not make check.
DEBIAN_FILES = debian/changelog debian/control debian/copyright debian/rules debian/source/format \
	debian/cushim.docs debian/cushim.lintian-overrides debian/cushim.triggers debian/README.source
EXTRA_DIST += $(DEBIAN_FILES) tests/package/package.sh
SLOW_TESTS += tests/package/package.sh
tests/package/package.log: cushim$(EXEEXT) libcushim.la tests/demo/newer-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
