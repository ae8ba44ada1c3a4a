# tests/hardening: fault injection, constructors and fork, signals, secure
# execution, sanitizers and valgrind.  See doc/HARDENING.md.
if HAVE_CHECK
HARD_CHECKS = tests/hardening/faults tests/hardening/threads tests/hardening/gate
check_PROGRAMS += $(HARD_CHECKS) tests/hardening/fault-app tests/hardening/guard-app
TESTS += $(HARD_CHECKS)
tests_hardening_faults_LDADD = $(HARNESS_LIBS) libcushim_common.la
EXTRA_tests_hardening_faults_DEPENDENCIES = $(HARNESS_DEPS) $(FAKE_BAD) tests/hardening/fault-app
tests_hardening_threads_LDFLAGS = $(HARNESS_CUDA_LINK)
tests_hardening_threads_LDADD = -lcuda $(HARNESS_LIBS)
EXTRA_tests_hardening_threads_DEPENDENCIES = $(HARNESS_DEPS) tests/hardening/ctor-app
# locks: each of cushim's locks where it once deadlocked (locks-app.c, a
# program that defines backtrace and write, and libslowctor.so, a library
# whose constructor calls the driver while the loader's lock is held).
check_PROGRAMS += tests/hardening/locks tests/hardening/locks-app
TESTS += tests/hardening/locks
tests_hardening_locks_LDADD = $(HARNESS_LIBS)
EXTRA_tests_hardening_locks_DEPENDENCIES = $(HARNESS_DEPS) tests/hardening/locks-app tests/hardening/libslowctor.so \
	$(RT_DRIVER)
tests_hardening_locks_app_LDFLAGS = $(HARNESS_CUDA_LINK) -rdynamic
tests_hardening_locks_app_LDADD = -lcuda $(LIBS)
# gate exports its realpath, which counts cushim's calls.
tests_hardening_gate_LDFLAGS = $(HARNESS_CUDA_LINK) -rdynamic
tests_hardening_gate_LDADD = -lcuda -ldl $(HARNESS_LIBS)
EXTRA_tests_hardening_gate_DEPENDENCIES = $(HARNESS_DEPS) tests/hardening/libasker.so tests/hardening/guard-app
tests_hardening_guard_app_LDADD = -ldl
endif

# The constructor libraries and ctor-app: plain rules (a library with the
# exact name, linked as an application links libcuda.so.1: the fake 13.0).
HARD_CC = $(CC) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS)
tests/hardening/libctor.so: $(top_srcdir)/tests/hardening/ctor-lib.c $(FAKE_DRIVERS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(HARD_CC) -shared -fPIC -Wl,-soname,libctor.so -o $@ \
		$(top_srcdir)/tests/hardening/ctor-lib.c $(HARNESS_CUDA_LINK) -lcuda $(LIBS)
tests/hardening/ctor-app: $(top_srcdir)/tests/hardening/ctor-app.c tests/hardening/libctor.so
	$(AM_V_CCLD)$(HARD_CC) -o $@ $(top_srcdir)/tests/hardening/ctor-app.c -Ltests/hardening -lctor \
		-Wl,-rpath,$(abs_top_builddir)/tests/hardening $(HARNESS_CUDA_LINK) -lcuda $(LIBS)
CLEANFILES += tests/hardening/libctor.so tests/hardening/ctor-app
EXTRA_DIST += tests/hardening/ctor-lib.c tests/hardening/ctor-app.c
tests/hardening/libslowctor.so: $(top_srcdir)/tests/hardening/slowctor-lib.c $(FAKE_DRIVERS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(HARD_CC) -shared -fPIC -Wl,-soname,libslowctor.so -o $@ \
		$(top_srcdir)/tests/hardening/slowctor-lib.c $(HARNESS_CUDA_LINK) -lcuda $(LIBS)
CLEANFILES += tests/hardening/libslowctor.so
EXTRA_DIST += tests/hardening/slowctor-lib.c
# A library with a slow constructor, and the program that vforks and execs
# while a thread dlopens it (vforkctor.sh).
tests/hardening/libvforkctor.so: $(top_srcdir)/tests/hardening/vforkctor-lib.c
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(HARD_CC) -shared -fPIC -Wl,-soname,libvforkctor.so -o $@ \
		$(top_srcdir)/tests/hardening/vforkctor-lib.c $(LIBS)
tests/hardening/vforkctor-app: $(top_srcdir)/tests/hardening/vforkctor-app.c
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(HARD_CC) -rdynamic -o $@ $(top_srcdir)/tests/hardening/vforkctor-app.c -ldl -lpthread $(LIBS)
CLEANFILES += tests/hardening/libvforkctor.so tests/hardening/vforkctor-app
EXTRA_DIST += tests/hardening/vforkctor-lib.c tests/hardening/vforkctor-app.c tests/hardening/vforkctor.sh
TESTS += tests/hardening/vforkctor.sh
tests/hardening/vforkctor.log: libcushim.la tests/hardening/libvforkctor.so tests/hardening/vforkctor-app
# The library whose constructor asks while gate's thread asks (gate.c).
tests/hardening/libasker.so: $(top_srcdir)/tests/hardening/asker-lib.c $(FAKE_DRIVERS)
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && $(HARD_CC) -shared -fPIC -Wl,-soname,libasker.so -o $@ \
		$(top_srcdir)/tests/hardening/asker-lib.c $(HARNESS_CUDA_LINK) -lcuda $(LIBS)
CLEANFILES += tests/hardening/libasker.so
EXTRA_DIST += tests/hardening/asker-lib.c

# Stacking with an interposer that hooks the driver (tests/fake/fake-vgpu.c):
# both orders of LD_PRELOAD and masquerade, and a fork storm.
check_PROGRAMS += tests/hardening/interposer-app
tests_hardening_interposer_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_hardening_interposer_app_LDFLAGS = $(FAKE_APP_LINK) -pthread
tests_hardening_interposer_app_LDADD = -lcuda $(LIBS)
EXTRA_tests_hardening_interposer_app_DEPENDENCIES = $(FAKE_APP_DEPS) $(FAKE_VGPU)
TESTS += tests/hardening/interposer.sh
EXTRA_DIST += tests/hardening/interposer.sh

# Secure execution: a capability-bearing copy of secure-app (needs root).
check_PROGRAMS += tests/hardening/secure-app
tests_hardening_secure_app_SOURCES = tests/hardening/secure-app.c
TESTS += tests/hardening/secure.sh
EXTRA_DIST += tests/hardening/secure.sh

# ---- make check-sanitizers: two sub-builds of this source tree in the build
# tree, configured --enable-sanitizers=address,undefined and =thread; the CPU
# suite (the Check programs and the shell tests that preload nothing) under
# ASan+UBSan, the threading tests under TSan.  A report stops the program
# (-fno-sanitize-recover, halt_on_error), so the test fails.  Leaks are
# valgrind's job (check-valgrind): the harness itself does not free.  TSan's
# second of sleep at exit is off: each child forked by a threaded test paid it
# (25 s of each fork-storm run, against its 60 s timeout), and finds nothing
# there, where no other thread runs.
SAN_CONFIGURE = $(abs_top_builddir)/sub-src/configure --with-cuda='$(CUDA_DIR)' CC='$(CC)' --disable-silent-rules
SAN_ASAN_TESTS = $(BLACKBOX_TESTS) $(HARD_CHECKS) tests/cli/check-errors.sh tests/cli/symbols.sh
SAN_TSAN_TESTS = tests/blackbox/invisible-until-used tests/blackbox/diagnostics tests/hardening/threads tests/hardening/gate
check-sanitizers: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/hardening/sanitizers.sh
check-asan: sub-src/configure
	$(MKDIR_P) san-asan && cd san-asan && \
	{ test -f Makefile || $(SAN_CONFIGURE) --enable-sanitizers=address,undefined > configure.log; } && \
	$(MAKE) $(AM_MAKEFLAGS) && \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SAN_ASAN_TESTS)' \
		CK_TIMEOUT_MULTIPLIER=4 CUSHIM_TEST_PRELOAD_FIRST="`$(CC) -print-file-name=libasan.so`" \
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
check-tsan: sub-src/configure
	$(MKDIR_P) san-tsan && cd san-tsan && \
	{ test -f Makefile || $(SAN_CONFIGURE) --enable-sanitizers=thread > configure.log; } && \
	$(MAKE) $(AM_MAKEFLAGS) && \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SAN_TSAN_TESTS)' \
		CK_TIMEOUT_MULTIPLIER=4 CUSHIM_TEST_PRELOAD_FIRST="`$(CC) -print-file-name=libtsan.so`" \
		TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:atexit_sleep_ms=0
clean-local: clean-sanitizers
clean-sanitizers:
	rm -rf san-asan san-tsan vg-logs
.PHONY: check-sanitizers check-asan check-tsan clean-sanitizers

# ---- make check-valgrind: every child the Check suites start runs under
# valgrind (tests/harness/harness.c); an invalid access or a definite leak makes
# it exit 97 and its test fail.  The reports are kept in vg-logs/.
VALGRIND_TESTS = $(BLACKBOX_TESTS) tests/hardening/faults
check-valgrind: all $(check_PROGRAMS) $(FAKE_ALL)
	rm -rf vg-logs && $(MKDIR_P) vg-logs && \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(VALGRIND_TESTS)' CUSHIM_TEST_VALGRIND='$(abs_top_builddir)/vg-logs/vg'

# ---- make check-reliability: every hardening run, its duration and its
# result, as the table in doc/HARDENING.md (written to reliability.txt).
check-reliability:
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' MAKE='$(MAKE)' FUZZ_SECONDS='$(FUZZ_SECONDS)' \
		$(SHELL) $(top_srcdir)/tests/hardening/reliability.sh > reliability.txt; st=$$?; cat reliability.txt; exit $$st
EXTRA_DIST += tests/hardening/reliability.sh
CLEANFILES += reliability.txt
.PHONY: check-valgrind check-reliability

# sanitizers.sh drives check-asan and check-tsan and says which sub-test
# failed: make check-sanitizers runs it (several minutes; not in make check).
EXTRA_DIST += tests/hardening/sanitizers.sh
CLEANFILES += sanitizers-asan.log sanitizers-tsan.log

# What cannot be read, handed to the driver (bad-memory-app.c, on the fake
# 13.0): string and path arguments in a PROT_NONE page, FIFOs, a fatbin
# header that claims 200 MB (bad-pointers.sh); module images that run into
# such a page, under seccomp filters on process_vm_readv (sandbox.sh).
check_PROGRAMS += tests/hardening/bad-memory-app
tests_hardening_bad_memory_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_hardening_bad_memory_app_LDFLAGS = $(FAKE_APP_LINK)
tests_hardening_bad_memory_app_LDADD = -lcuda $(LIBS)
EXTRA_tests_hardening_bad_memory_app_DEPENDENCIES = $(FAKE_APP_DEPS) $(FAKE_NO_RUNTIME)
TESTS += tests/hardening/bad-pointers.sh tests/hardening/sandbox.sh
EXTRA_DIST += tests/hardening/bad-pointers.sh tests/hardening/sandbox.sh
# A fork from a signal handler while its thread is inside a traced call.
check_PROGRAMS += tests/hardening/sigfork-app
tests_hardening_sigfork_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_hardening_sigfork_app_LDFLAGS = $(FAKE_APP_LINK)
tests_hardening_sigfork_app_LDADD = -lcuda
EXTRA_tests_hardening_sigfork_app_DEPENDENCIES = $(FAKE_APP_DEPS)
TESTS += tests/hardening/sigfork.sh
EXTRA_DIST += tests/hardening/sigfork.sh
tests/hardening/sigfork.log: libcushim.la tests/hardening/sigfork-app$(EXEEXT) $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
