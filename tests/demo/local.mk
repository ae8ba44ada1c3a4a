# tests/demo: newer-app, a program built against the CUDA 13.0 headers with
# -z now, importing symbols an 11.4 driver lacks; make demo runs it on the
# fake 11.4 driver without and with cushim.
check_PROGRAMS += tests/demo/newer-app
tests_demo_newer_app_CPPFLAGS = $(FAKE_APP_INCLUDES)
tests_demo_newer_app_LDFLAGS = $(FAKE_APP_LINK)
tests_demo_newer_app_LDADD = -lcuda
EXTRA_tests_demo_newer_app_DEPENDENCIES = $(FAKE_APP_DEPS)

# make demo: what cushim is for, on a machine without a GPU.  tests/fake/no-rt
# keeps this machine's own libcudart (if any) out of the way: the fake driver
# is all the demo talks to.
DEMO_PATH = tests/fake/drv-11.4:tests/fake/no-rt
demo: libcushim.la tests/demo/newer-app $(FAKE_ALL)
	@echo "cushim demo: tests/demo/newer-app was built against CUDA 13.0 (linked -z now); it is run"
	@echo "on tests/fake/drv-11.4/libcuda.so.1, a fake driver that exports what a CUDA 11.4 driver does."
	@echo
	@echo "=== before: without cushim ==="
	@echo "\$$ LD_LIBRARY_PATH=$(DEMO_PATH) tests/demo/newer-app"
	@if LD_LIBRARY_PATH=$(DEMO_PATH) $(EXE_WRAPPER) ./tests/demo/newer-app; then \
		echo "demo: the program loaded without cushim: the fake 11.4 driver is wrong" >&2; exit 1; \
	else \
		echo "(it does not even start: the loader cannot find the CUDA 12/13 symbols in an 11.4 driver)"; \
	fi
	@echo
	@echo "=== after: with cushim ==="
	@echo "\$$ LD_PRELOAD=.libs/libcushim.so LD_LIBRARY_PATH=$(DEMO_PATH) tests/demo/newer-app"
	@LD_PRELOAD=$(abs_top_builddir)/.libs/libcushim.so LD_LIBRARY_PATH=$(DEMO_PATH) $(EXE_WRAPPER) ./tests/demo/newer-app 2>&1
	@echo "(it runs: what the driver has works, what it lacks returns CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"
	@echo " and is named once on stderr)"
.PHONY: demo
EXTRA_DIST += tests/demo/newer-app.c
