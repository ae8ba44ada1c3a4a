/* No lock of cushim's is held across a call into the loader, the driver or
 * a runtime, and no signal handler waits on the thread it interrupted
 * (doc/DESIGN.md, "Locks").  One case per lock, each where that lock once
 * deadlocked: locks-app (locks-app.c says how each case meets it), run
 * several times where the race is one of threads, each run under a timeout:
 *  - boot_lock: a first call on one thread while the main thread's dlopen
 *    runs a constructor that makes a first call (LD_PRELOAD and masquerade);
 *    a handler that forks, interrupting the bootstrap;
 *  - the adoption of a runtime: the same race on cuInit; a handler that
 *    forks, interrupting the adoption;
 *  - record_lock (explain-fork.c): a handler that calls cuInit, or forks,
 *    interrupting the record of the first cuInit;
 *  - table_lock (integrity.c): a handler that asks for the runtime's
 *    validity table, interrupting cushim's copy of it (emulating, on the
 *    stand-in driver of tests/realdrv). */
#include "cuda-all.h"
#include "../harness/harness.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define APP ABS_TOP_BUILDDIR "/tests/hardening/locks-app"
#define HERE ABS_TOP_BUILDDIR "/tests/hardening"
#define RT_DRIVER ABS_TOP_BUILDDIR "/tests/realdrv/rt-driver"
#define PRELOAD "LD_PRELOAD=" SHIM_SO
#define RUNS 5
#define TIMEOUT_S 20

/* One run of a case; it must exit 0 before the timeout. */
static struct run run_case(const char *c, const char *const env[])
{
	struct run r;
	const char *argv[] = { APP, c, NULL };
	run_child(&r, argv, env, TIMEOUT_S);
	ck_assert_msg(r.code == 0, "%s %s (status %d):\nstdout:\n%s\nstderr:\n%s", c,
		      r.code < 0 ? "hung (killed after the timeout)" : "failed", r.code, r.out, r.err);
	return r;
}

static void runs(const char *c, const char *const env[], int n)
{
	for (int k = 0; k < n; k++) {
		struct run r = run_case(c, env);
		if (k == 0)
			printf("%s: %s", c, r.out);
		run_free(&r);
	}
}

START_TEST(boot_lock_loader_preload)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" HERE ":" NO_RT, NULL };
	runs("loader-version", env, RUNS);
}
END_TEST

START_TEST(boot_lock_loader_masquerade)
{
	char dir[] = "/tmp/cushim-locks.XXXXXX", link[4096], ld[4200];
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:" HERE ":" NO_RT, dir);
	const char *const env[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", NULL };
	runs("loader-version", env, RUNS);
	unlink(link);
	rmdir(dir);
}
END_TEST

START_TEST(boot_lock_handler_forks)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, NULL };
	runs("handler-fork-boot", env, 1);
}
END_TEST

/* Once, whichever thread's adoption is published. */
START_TEST(adoption_loader)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" HERE ":" RT("13.0") ":" NO_RT,
				    "CUSHIM_LOG=info", NULL };
	for (int k = 0; k < RUNS; k++) {
		struct run r = run_case("loader-init", env);
		ck_assert_msg(count_lines_with(r.err, "driver initialised: ") == 1, "%s", r.err);
		run_free(&r);
	}
}
END_TEST

START_TEST(adoption_handler_forks)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT, NULL };
	runs("handler-fork-adopt", env, 1);
}
END_TEST

START_TEST(record_lock_handler_calls)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, "CUSHIM_CUDART=none", NULL };
	runs("handler-init-record", env, 1);
}
END_TEST

START_TEST(record_lock_handler_forks)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, "CUSHIM_CUDART=none", NULL };
	runs("handler-fork-record", env, 1);
}
END_TEST

START_TEST(table_lock_handler_calls)
{
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" RT_DRIVER ":" NO_RT, "CUSHIM_DRIVER_VERSION=12.0",
				    "CUSHIM_LOG=info", NULL };
	struct run r = run_case("handler-table", env);
	printf("handler-table: %s", r.out);
	ck_assert_msg(count_lines_with(r.err, "validity check is answered over CUDA 12.0") == 1, "%s", r.err);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	const TTest *const tests[] = { boot_lock_loader_preload, boot_lock_loader_masquerade, boot_lock_handler_forks,
				       adoption_loader,          adoption_handler_forks,      record_lock_handler_calls,
				       record_lock_handler_forks, table_lock_handler_calls,  NULL };
	const struct harness_tcase tcases[] = { { "locks", 3 * RUNS * TIMEOUT_S, tests, NULL }, { NULL } };
	return harness_main(argc, argv, NULL, "locks", tcases);
}
