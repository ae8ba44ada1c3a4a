# tests/timeline: CUSHIM_TIMELINE's trace-event JSON, read back with Python's
# json module, on the fake drivers.
check_PROGRAMS += tests/timeline/tl-app
# (it loads on 11.4 only under cushim)
tests_timeline_tl_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_timeline_tl_app_CFLAGS = $(AM_CFLAGS) -pthread
tests_timeline_tl_app_LDFLAGS = $(FAKE_APP_LINK) -pthread
tests_timeline_tl_app_LDADD = -lcuda
EXTRA_tests_timeline_tl_app_DEPENDENCIES = $(FAKE_APP_DEPS)
TESTS += tests/timeline/timeline.sh
EXTRA_DIST += tests/timeline/timeline.sh tests/timeline/check-timeline.py
tests/timeline/timeline.log: cushim$(EXEEXT) libcushim.la tests/timeline/tl-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
# procs-app: eight processes started by fork, fork+exec, vfork+exec and
# posix_spawn, with every output named without %p (procs.sh); tests/gpu
# builds it again against the real driver.
check_PROGRAMS += tests/timeline/procs-app
tests_timeline_procs_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_timeline_procs_app_LDFLAGS = $(FAKE_APP_LINK)
tests_timeline_procs_app_LDADD = -lcuda
EXTRA_tests_timeline_procs_app_DEPENDENCIES = $(FAKE_APP_DEPS)
TESTS += tests/timeline/procs.sh
EXTRA_DIST += tests/timeline/procs.sh tests/timeline/check-procs.py tests/timeline/procs-pool.py
tests/timeline/procs.log: cushim$(EXEEXT) libcushim.la tests/timeline/procs-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
# out-app: driver calls for the tests of the output files: FIFOs and devices
# in their place, files of other users and modes, a full disk, an exec.
check_PROGRAMS += tests/timeline/out-app
tests_timeline_out_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_timeline_out_app_CFLAGS = $(AM_CFLAGS) -pthread
tests_timeline_out_app_LDFLAGS = $(FAKE_APP_LINK) -pthread
tests_timeline_out_app_LDADD = -lcuda
EXTRA_tests_timeline_out_app_DEPENDENCIES = $(FAKE_APP_DEPS)
OUT_TESTS = tests/timeline/fifo.sh tests/timeline/owner.sh tests/timeline/fulldisk.sh tests/timeline/exec.sh \
	tests/timeline/stale.sh
TESTS += $(OUT_TESTS)
EXTRA_DIST += $(OUT_TESTS)
$(OUT_TESTS:.sh=.log): cushim$(EXEEXT) libcushim.la tests/timeline/out-app$(EXEEXT) $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
# record-app: the flight recorder: sticky errors, a crash, a record file
# decoded, 8 threads of 100,000 calls (record.sh); linked with the C++
# runtime, whose demangler names the kernels.
check_PROGRAMS += tests/timeline/record-app
tests_timeline_record_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_timeline_record_app_CFLAGS = $(AM_CFLAGS) -pthread
tests_timeline_record_app_LDFLAGS = $(FAKE_APP_LINK) -pthread -Wl,--no-as-needed
tests_timeline_record_app_LDADD = -lcuda $(DEMANGLE_LIBS)
EXTRA_tests_timeline_record_app_DEPENDENCIES = $(FAKE_APP_DEPS)
TESTS += tests/timeline/record.sh
EXTRA_DIST += tests/timeline/record.sh
tests/timeline/record.log: cushim$(EXEEXT) libcushim.la tests/timeline/record-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
