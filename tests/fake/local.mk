# tests/fake: a fake libcuda.so.1 at four driver levels (11.2 has no
# cuGetProcAddress, as real drivers before 11.3; FAKE_DEVICES=N gives it N
# devices: fake-devices.c) and a fake libcudart of three
# versions, for the tests without a GPU.  Plain
# make rules, not libtool: each must be a file with the exact soname, in a
# folder of its own that a test puts on LD_LIBRARY_PATH.
#   tests/fake/drv-11.2/libcuda.so.1
#   tests/fake/drv-11.4/libcuda.so.1   tests/fake/rt-11.4/libcudart.so.11.0
#   tests/fake/drv-12.0/libcuda.so.1   tests/fake/rt-12.0/libcudart.so.12
#   tests/fake/drv-13.0/libcuda.so.1   tests/fake/rt-13.0/libcudart.so.13
#   tests/fake/no-rt/libcudart.so.{13,12,11.0}: see no-runtime.c
#   tests/fake/vgpu/libfakevgpu.so: an interposer, as HAMi-core's libvgpu.so
#   tests/fake/drv-lean/libcuda.so.1: the 13.0 driver, lean (FAKE_LEAN), for make bench
FAKE_DRIVERS = tests/fake/drv-11.2/libcuda.so.1 tests/fake/drv-11.4/libcuda.so.1 tests/fake/drv-12.0/libcuda.so.1 \
	tests/fake/drv-13.0/libcuda.so.1
FAKE_RUNTIMES = tests/fake/rt-11.4/libcudart.so.11.0 tests/fake/rt-12.0/libcudart.so.12 \
	tests/fake/rt-13.0/libcudart.so.13
# no-rt: the runtime sonames as libraries that never load, so that a test
# decides which runtime a child sees, whatever the machine has installed.
FAKE_NO_RUNTIME = tests/fake/no-rt/libcudart.so.13 tests/fake/no-rt/libcudart.so.12 \
	tests/fake/no-rt/libcudart.so.11.0
# vgpu: an interposer preloaded as HAMi-core's libvgpu.so is (fake-vgpu.c).
FAKE_VGPU = tests/fake/vgpu/libfakevgpu.so
# drv-lean: every export a few instructions (fake-driver.c, FAKE_LEAN).
FAKE_LEAN = tests/fake/drv-lean/libcuda.so.1
FAKE_ALL = $(FAKE_DRIVERS) $(FAKE_RUNTIMES) $(FAKE_NO_RUNTIME) $(FAKE_VGPU) $(FAKE_LEAN)
# A program built as an application is, against the CUDA headers alone and
# linked with -z now against libcuda.so.1 (every import must be found when it
# loads): the fake 13.0 driver stands in for the toolkit's stub.
FAKE_APP_INCLUDES = -I$(CUDA_INCDIR)
FAKE_APP_LINK = -Ltests/fake/drv-13.0 -Wl,-z,now
FAKE_APP_DEPS = tests/fake/drv-13.0/libcuda.so.1
FAKE_CFLAGS = $(WARN_CFLAGS) -O2 -fPIC -fvisibility=hidden \
	-Itests/fake -I$(top_srcdir)/tests/fake -I$(top_srcdir)/src/common
# -Bsymbolic as the real driver: the pointers it hands out are its own.
FAKE_LINKFLAGS = -shared -Wl,-Bsymbolic -Wl,-z,now
FAKE_DRV_DEPS = $(top_srcdir)/src/common/lookup-rule.h $(top_srcdir)/tests/fake/fake-driver.c \
	$(top_srcdir)/tests/fake/fake-devices.c $(top_srcdir)/tests/fake/fake-memory.c $(top_srcdir)/tests/fake/fake.h tests/fake/fake-table.h
FAKE_RT_DEPS = $(top_srcdir)/tests/fake/fake-cudart.c $(top_srcdir)/tests/fake/fake.h

FAKE_EXPORTS_TXT = $(top_srcdir)/tests/oracle/libcuda-580.159.04-exports.txt
FAKE_PROCADDR_TSV = $(top_srcdir)/tests/oracle/cuGetProcAddress-driver-580.159.04.tsv
tests/fake/fake-table.h: $(top_srcdir)/tests/fake/genfake.py $(FAKE_EXPORTS_TXT) $(FAKE_PROCADDR_TSV)
	$(AM_V_GEN)$(MKDIR_P) tests/fake && $(PYTHON) $(top_srcdir)/tests/fake/genfake.py \
		--exports $(FAKE_EXPORTS_TXT) --tsv $(FAKE_PROCADDR_TSV) --out $@

# One rule per level (no pattern rules: portable make).
FAKE_CC_DRV = $(CC) $(FAKE_CFLAGS) $(FAKE_LINKFLAGS) -Wl,-soname,libcuda.so.1 -o $@ $(top_srcdir)/tests/fake/fake-driver.c
FAKE_DEVLINK = rm -f $(@D)/libcuda.so && ln -s libcuda.so.1 $(@D)/libcuda.so
FAKE_CC_RT = $(CC) $(FAKE_CFLAGS) $(FAKE_LINKFLAGS) -Wl,-soname,$(@F) -o $@ $(top_srcdir)/tests/fake/fake-cudart.c $(LIBS)
tests/fake/drv-11.2/libcuda.so.1: $(FAKE_DRV_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_DRV) -DFAKE_LEVEL=11020 && $(FAKE_DEVLINK)
tests/fake/drv-11.4/libcuda.so.1: $(FAKE_DRV_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_DRV) -DFAKE_LEVEL=11040 && $(FAKE_DEVLINK)
tests/fake/drv-12.0/libcuda.so.1: $(FAKE_DRV_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_DRV) -DFAKE_LEVEL=12000 && $(FAKE_DEVLINK)
tests/fake/drv-13.0/libcuda.so.1: $(FAKE_DRV_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_DRV) -DFAKE_LEVEL=13000 && $(FAKE_DEVLINK)
tests/fake/drv-lean/libcuda.so.1: $(FAKE_DRV_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_DRV) -DFAKE_LEVEL=13000 -DFAKE_LEAN && $(FAKE_DEVLINK)
tests/fake/rt-11.4/libcudart.so.11.0: $(FAKE_RT_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_RT) -DRT_VERSION=11040
tests/fake/rt-12.0/libcudart.so.12: $(FAKE_RT_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_RT) -DRT_VERSION=12000
tests/fake/rt-13.0/libcudart.so.13: $(FAKE_RT_DEPS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(FAKE_CC_RT) -DRT_VERSION=13000
FAKE_CC_NORT = $(MKDIR_P) $(@D) && $(CC) $(FAKE_CFLAGS) $(FAKE_LINKFLAGS) -Wl,-soname,$(@F) -o $@ \
	$(top_srcdir)/tests/fake/no-runtime.c
tests/fake/no-rt/libcudart.so.13: $(top_srcdir)/tests/fake/no-runtime.c
	$(AM_V_CCLD)$(FAKE_CC_NORT)
tests/fake/no-rt/libcudart.so.12: $(top_srcdir)/tests/fake/no-runtime.c
	$(AM_V_CCLD)$(FAKE_CC_NORT)
tests/fake/no-rt/libcudart.so.11.0: $(top_srcdir)/tests/fake/no-runtime.c
	$(AM_V_CCLD)$(FAKE_CC_NORT)
# Not -Bsymbolic: as in libvgpu.so, the address of one of its own hooks is
# the global scope's definition of that name.
tests/fake/vgpu/libfakevgpu.so: $(top_srcdir)/tests/fake/fake-vgpu.c
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(CC) $(FAKE_CFLAGS) -shared -Wl,-z,now -Wl,-soname,$(@F) -o $@ \
		$(top_srcdir)/tests/fake/fake-vgpu.c $(LIBS)

# bad-rt, bad-drv (tests/hardening): the sonames as files that are not ELF,
# so that dlopen fails on them ("file too short").
FAKE_BAD = tests/fake/bad-rt/libcudart.so.13 tests/fake/bad-rt/libcudart.so.12 \
	tests/fake/bad-rt/libcudart.so.11.0 tests/fake/bad-drv/libcuda.so.1
$(FAKE_BAD):
	$(AM_V_GEN)$(MKDIR_P) $(@D) && echo 'not an ELF file' > $@

fake: $(FAKE_ALL) $(FAKE_BAD)
.PHONY: fake
CLEANFILES += tests/fake/fake-table.h $(FAKE_ALL) $(FAKE_BAD) $(FAKE_DRIVERS:.so.1=.so) $(FAKE_LEAN:.so.1=.so)
EXTRA_DIST += tests/fake/genfake.py tests/fake/fake-driver.c tests/fake/fake-devices.c tests/fake/fake-memory.c tests/fake/fake-cudart.c \
	tests/fake/fake.h tests/fake/no-runtime.c tests/fake/fake-vgpu.c
