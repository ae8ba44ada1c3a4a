# tests/timeline: CUSHIM_TIMELINE's trace-event JSON, read back with Python's
# json module, on the fake drivers.
check_PROGRAMS += tests/timeline/tl-app
tests_timeline_tl_app_SOURCES = tests/timeline/tl-app.c
tests_timeline_tl_app_CPPFLAGS = -I$(CUDA_INCDIR)
tests_timeline_tl_app_CFLAGS = $(AM_CFLAGS) -pthread
# linked against the fake 13.0 libcuda.so.1, -z now: it loads on 11.4 only under cushim
tests_timeline_tl_app_LDFLAGS = -Ltests/fake/drv-13.0 -Wl,-z,now -pthread
tests_timeline_tl_app_LDADD = -lcuda
EXTRA_tests_timeline_tl_app_DEPENDENCIES = tests/fake/drv-13.0/libcuda.so.1
TESTS += tests/timeline/timeline.sh
EXTRA_DIST += tests/timeline/timeline.sh tests/timeline/check-timeline.py
tests/timeline/timeline.log: cushim$(EXEEXT) libcushim.la tests/timeline/tl-app$(EXEEXT) $(FAKE_DRIVERS) \
	$(FAKE_NO_RUNTIME)
