# tests/cross: make check-aarch64, the AArch64 build (Grace Hopper, Grace
# Blackwell) from an x86-64 one.  It configures a pristine copy of the sources
# (sub-src, shared with the sanitizer builds and made once by this make) for
# --host=aarch64-linux-gnu in cross-aarch64/ of the build folder, builds the
# library, the command, the fakes and every test program that needs no GPU,
# and runs make check there: configure finds qemu-aarch64-static, and the
# tests run each program through it (EXE_WRAPPER).  tools/setup-debian.sh
# installs the cross toolchain, the arm64 libraries and qemu.
CROSS_AARCH64 = aarch64-linux-gnu
CROSS_AARCH64_CONFIGURE = $(abs_top_builddir)/sub-src/configure --host=$(CROSS_AARCH64) \
	--with-cuda='$(CUDA_DIR)' --disable-silent-rules
check-aarch64: sub-src/configure
	@if test '$(host_cpu)' = aarch64; then \
		echo "check-aarch64: this build is AArch64's own: make check runs its tests"; exit 0; fi; \
	command -v $(CROSS_AARCH64)-gcc >/dev/null || { \
		echo "check-aarch64: no $(CROSS_AARCH64)-gcc (tools/setup-debian.sh installs the cross toolchain)" >&2; \
		exit 1; }; \
	$(MKDIR_P) cross-aarch64 && cd cross-aarch64 && \
	{ test -f Makefile || $(CROSS_AARCH64_CONFIGURE) > configure.log 2>&1 || \
		{ tail -n 20 configure.log; echo "check-aarch64: configure failed (cross-aarch64/configure.log)" >&2; \
		  exit 1; }; } && \
	$(MAKE) $(AM_MAKEFLAGS) && $(MAKE) $(AM_MAKEFLAGS) check
clean-local: clean-cross
clean-cross:
	rm -rf cross-aarch64
.PHONY: check-aarch64 clean-cross
