/* Fault injection: every failure a driver or a runtime can
 * return, injected with the fakes' FAKE_* knobs (tests/fake), into a program
 * that is not linked against libcuda.so.1 (fault-app.c).  Each case proves:
 * the program keeps running (exit 0 within the timeout: no crash, no hang),
 * the driver calls return the error the case calls for, and stderr says what
 * happened, once, naming the cause. */
#include "cuda-all.h"
#include "../harness/harness.h"
#include "ldsearch.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define APP ABS_TOP_BUILDDIR "/tests/hardening/fault-app"
#define BAD_RT FAKE_DIR "/bad-rt"
#define BAD_DRV FAKE_DIR "/bad-drv"
#define PRELOAD "LD_PRELOAD=" SHIM_SO
#define ONLY_DRIVER "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT
#define WITH_RUNTIME "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT

struct rcs {
	int init, version, v, device, ctx;
};

/* Run the app; it must exit 0 and print its results. */
static struct run run_app(const char *const env[], const char *arg, struct rcs *rc)
{
	struct run r;
	const char *argv[] = { APP, arg, NULL };
	const char *line;
	run_child(&r, argv, env, 30);
	ck_assert_msg(r.code == 0, "the program %s (status %d):\nstdout:\n%s\nstderr:\n%s",
		      r.code < 0 ? "hung" : "did not exit 0", r.code, r.out, r.err);
	ck_assert_msg((line = strstr(r.out, "rc ")) &&
			      sscanf(line, "rc init=%d version=%d v=%d device=%d ctx=%d", &rc->init, &rc->version,
				     &rc->v, &rc->device, &rc->ctx) == 5,
		      "no results:\n%s\n%s", r.out, r.err);
	return r;
}

static void expect_all(const struct rcs *rc, int code, const struct run *r)
{
	ck_assert_msg(rc->init == code && rc->version == code && rc->device == code && rc->ctx == code,
		      "expected every call to return %d: %s\n%s", code, r->out, r->err);
}

static void expect_works(const struct rcs *rc, const struct run *r)
{
	expect_all(rc, CUDA_SUCCESS, r);
	ck_assert_msg(rc->v == 13000, "version %d: %s", rc->v, r->err);
}

/* Exactly `n` lines of stderr contain `needle`. */
static void expect_lines(const struct run *r, const char *needle, int n)
{
	int got = count_lines_with(r->err, needle);
	ck_assert_msg(got == n, "%d lines (not %d) say \"%s\":\n%s", got, n, needle, r->err);
}

/* ---- cuGetProcAddress(_v2) answering wrongly, through the driver and through a runtime ---- */
static void gpa_fault(const char *fault, const char *libpath)
{
	char knob[64];
	struct rcs rc;
	snprintf(knob, sizeof knob, "FAKE_GPA=%s", fault);
	const char *const env[] = { PRELOAD, libpath, knob, NULL };
	struct run r = run_app(env, NULL, &rc);
	printf("FAKE_GPA=%s %s: %s", fault, libpath, r.out);
	/* nothing resolved: every call answers the shim's "missing" code, and
	 * the driver's fake functions never run (they would return 0) */
	expect_all(&rc, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, &r);
	ck_assert_msg(rc.v == -1, "cuDriverGetVersion wrote %d", rc.v);
	if (strcmp(fault, "self") == 0) {
		/* the bootstrap saw the pointer is its own and refused it, said so
		 * in one line for all the exports, and the call names the cause once */
		expect_lines(&r, "point into cushim itself (first: ", 1);
		expect_lines(&r, "cannot find cuDriverGetVersion through", 1);
		expect_lines(&r, "cuDeviceGet resolved to cushim itself, not to a driver", 1);
	} else {
		expect_lines(&r, "cannot find cuDriverGetVersion through", 1);
		/* and each call the program made is named once */
		expect_lines(&r, "cuDeviceGet (CUDA 2.0) is not provided by this driver", 1);
	}
	run_free(&r);
}

START_TEST(gpa_invalid_value)
{
	gpa_fault("invalid", ONLY_DRIVER);
	gpa_fault("invalid", WITH_RUNTIME);
}
END_TEST

START_TEST(gpa_null_with_each_status)
{
	gpa_fault("null0", ONLY_DRIVER);
	gpa_fault("null1", ONLY_DRIVER);
	gpa_fault("null2", ONLY_DRIVER);
	gpa_fault("null0", WITH_RUNTIME);
	gpa_fault("null1", WITH_RUNTIME);
	gpa_fault("null2", WITH_RUNTIME);
}
END_TEST

START_TEST(gpa_pointer_into_the_shim)
{
	/* were it taken, cuInit would call itself (through the slot) forever, or
	 * cuDeviceGet would run cuInit: the calls return 36 only if refused */
	gpa_fault("self", ONLY_DRIVER);
	gpa_fault("self", WITH_RUNTIME);
}
END_TEST

/* ---- cuDriverGetVersion failing ---- */
START_TEST(driver_version_fails)
{
	struct rcs rc;
	const char *const env[] = { PRELOAD, WITH_RUNTIME, "FAKE_VERSION_FAIL=3", NULL };
	struct run r = run_app(env, NULL, &rc);
	printf("FAKE_VERSION_FAIL=3: %s%s", r.out, r.err);
	/* the runtime refuses the driver whose version it cannot read; cushim
	 * uses the driver, forwards everything, and the program sees the
	 * driver's own error for cuDriverGetVersion */
	ck_assert_msg(rc.init == 0 && rc.device == 0 && rc.ctx == 0, "%s", r.out);
	ck_assert_msg(rc.version == CUDA_ERROR_NOT_INITIALIZED && rc.v == -1, "%s", r.out);
	expect_lines(&r, "cuDriverGetVersion failed (3); the driver's version is unknown", 1);
	expect_lines(&r, "cushim:", 1);
	run_free(&r);
}
END_TEST

/* A fault that leaves the program working: with env, every call works and
 * cushim says nothing; with said, every call works too, and what cushim says
 * (printed after what) is returned. */
static struct run works_silently(const char *const env[], const char *const said[], const char *what)
{
	struct rcs rc;
	struct run r = run_app(env, NULL, &rc);
	expect_works(&rc, &r);
	expect_lines(&r, "cushim:", 0);
	run_free(&r);
	r = run_app(said, NULL, &rc);
	printf("%s: %s", what, r.err);
	expect_works(&rc, &r);
	return r;
}

/* ---- a runtime that refuses the driver ---- */
START_TEST(runtime_refuses_the_driver)
{
	/* it works through the driver's own cuGetProcAddress; nothing is
	 * wrong for the user: silent unless asked */
	const char *const quiet[] = { PRELOAD, WITH_RUNTIME, "FAKE_RT_REFUSE=1", NULL };
	const char *const info[] = { PRELOAD, WITH_RUNTIME, "FAKE_RT_REFUSE=1", "CUSHIM_LOG=info", NULL };
	struct run r = works_silently(quiet, info, "FAKE_RT_REFUSE=1");
	expect_lines(&r, "rt-13.0/libcudart.so.13 (CUDA 13.0) refuses this driver (cudaErrorInsufficientDriver)", 1);
	expect_lines(&r, "driver " FAKE_DIR "/drv-13.0/libcuda.so.1, through the driver's cuGetProcAddress_v2", 1);
	expect_lines(&r, "no CUDA runtime gave entry points: keeping the driver's cuGetProcAddress_v2", 1);
	run_free(&r);
}
END_TEST

/* ---- dlopen failing: runtimes and a driver that are not ELF files ---- */
START_TEST(runtime_dlopen_fails)
{
	const char *const found[] = { PRELOAD, "LD_LIBRARY_PATH=" DRV("13.0") ":" BAD_RT, NULL };
	const char *const named[] = { PRELOAD, ONLY_DRIVER, "CUSHIM_CUDART=" BAD_RT "/libcudart.so.13", NULL };
	struct run r = works_silently(found, named, "CUSHIM_CUDART=<not ELF>");
	expect_lines(&r, "cannot load CUSHIM_CUDART=" BAD_RT "/libcudart.so.13: ", 1);
	expect_lines(&r, "cushim:", 1);
	run_free(&r);
}
END_TEST

START_TEST(driver_dlopen_fails)
{
	struct rcs rc;
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" BAD_DRV ":" NO_RT, NULL };
	struct run r = run_app(env, NULL, &rc);
	printf("libcuda.so.1 not ELF: %s%s", r.out, r.err);
	expect_all(&rc, CUDA_ERROR_NO_DEVICE, &r);
	expect_lines(&r, "no driver (libcuda.so.1) could be used: every driver call returns CUDA_ERROR_NO_DEVICE", 1);
	expect_lines(&r, "cushim:", 1);
	run_free(&r);
}
END_TEST

/* With no driver, every code cushim returns is still named and described
 * (NVIDIA's samples print cuGetErrorString's text). */
static void expect_error_texts(const struct run *r)
{
	static const int codes[] = { 0, 1, 3, 36, 100, 500, 999 };
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
		char want[32];
		const char *line;
		snprintf(want, sizeof want, "err %d 0 CUDA_", codes[i]);
		ck_assert_msg((line = strstr(r->out, want)) != NULL, "code %d is not named:\n%s", codes[i], r->out);
		ck_assert_msg(strstr(line, " 0 (null)") == NULL && strchr(line, '\n') && strstr(line, " 0 ") != NULL,
			      "code %d has no text:\n%s", codes[i], r->out);
	}
	ck_assert_msg(strstr(r->out, "err 100 0 CUDA_ERROR_NO_DEVICE 0 This indicates that no CUDA-capable devices"),
		      "cuGetErrorString(100):\n%s", r->out);
}

START_TEST(errors_answer_without_a_driver)
{
	struct rcs rc;
	const char *const env[] = { PRELOAD, "LD_LIBRARY_PATH=" BAD_DRV ":" NO_RT, NULL };
	struct run r = run_app(env, "errors", &rc);
	expect_all(&rc, CUDA_ERROR_NO_DEVICE, &r);
	expect_error_texts(&r);
	run_free(&r);
}
END_TEST

/* ---- masquerade with no driver anywhere ---- */
static int exists(const char *path, void *ctx)
{
	(void)ctx;
	return access(path, F_OK) == 0;
}

/* Whether the library's own search, as the child below runs it (its
 * LD_LIBRARY_PATH holds no driver), would find a libcuda.so.1 here. */
static int a_real_driver_is_installed(void)
{
	unsetenv("LD_LIBRARY_PATH");
	return cushim_ld_search("libcuda.so.1", NULL, NULL, exists, NULL);
}

START_TEST(masquerade_without_a_driver)
{
	char dir[] = "/tmp/cushim-masq-XXXXXX", link[4096], ldpath[256];
	struct rcs rc;
	if (a_real_driver_is_installed()) {
		printf("SKIP masquerade_without_a_driver: this machine has a real libcuda.so.1\n");
		return;
	}
	shim_as_libcuda(dir, link);
	snprintf(ldpath, sizeof ldpath, "LD_LIBRARY_PATH=%s:" NO_RT, dir);
	const char *const env[] = { ldpath, "CUSHIM_DRIVER=" BAD_DRV "/libcuda.so.1", NULL };
	struct run r = run_app(env, "dlopen-errors", &rc);
	printf("masquerade, no driver: %s%s", r.out, r.err);
	unlink(link);
	rmdir(dir);
	expect_all(&rc, CUDA_ERROR_NO_DEVICE, &r);
	expect_error_texts(&r);
	expect_lines(&r, "is cushim itself, and no real libcuda.so.1 was found", 1);
	expect_lines(&r, "CUSHIM_DRIVER=" BAD_DRV "/libcuda.so.1 is not a usable driver", 1);
	expect_lines(&r, "cushim:", 2);
	run_free(&r);
}
END_TEST

/* ---- a real CUDA runtime against the fake (cuGetExportTable: NOT_SUPPORTED) ---- */
START_TEST(real_runtime_fails_cleanly)
{
	const char *rt = CUDA_DIR "/lib64/libcudart.so.13";
	char cudart[512];
	struct rcs rc;
	if (access(rt, R_OK) != 0) {
		printf("SKIP real_runtime_fails_cleanly: no %s\n", rt);
		return;
	}
	if (!elf_for_this_machine(rt)) {
		printf("SKIP real_runtime_fails_cleanly: %s is another machine's (a cross build)\n", rt);
		return;
	}
	snprintf(cudart, sizeof cudart, "CUSHIM_CUDART=%s", rt);
	const char *const env[] = { PRELOAD, ONLY_DRIVER, cudart, "CUSHIM_LOG=info", NULL };
	struct run r = run_app(env, NULL, &rc);
	printf("real runtime: %s", r.err);
	expect_works(&rc, &r);
	ck_assert_msg(count_lines_with(r.err, "gave no entry points (error ") +
				      count_lines_with(r.err, "refuses this driver") == 1,
		      "%s", r.err);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	const TTest *const tests[] = { gpa_invalid_value, gpa_null_with_each_status, gpa_pointer_into_the_shim,
				       driver_version_fails, runtime_refuses_the_driver, runtime_dlopen_fails,
				       driver_dlopen_fails, errors_answer_without_a_driver, masquerade_without_a_driver,
				       real_runtime_fails_cleanly, NULL };
	const struct harness_tcase tcases[] = { { "faults", 300, tests, NULL }, { NULL } };
	return harness_main(argc, argv, NULL, "faults", tcases);
}
