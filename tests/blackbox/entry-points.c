/* Where cushim finds its entry points, against the fakes (before the
 * program's cuInit the driver's own cuGetProcAddress; after it, a runtime):
 *  - an 11.4 runtime on an 11.4 driver: through its 3-argument
 *    cudaGetDriverEntryPoint, which hands back the v1 cuGetProcAddress;
 *  - a runtime too new for the driver is skipped for the next one;
 *  - no runtime at all: the driver's own cuGetProcAddress(_v2), said at info;
 *  - CUSHIM_CUDART names the runtime to use;
 *  - cuGetErrorName/String(36) on an 11.4 driver, which does not know 36;
 *  - a driver without cuGetProcAddress (before CUDA 11.3): every export is the
 *    driver's symbol of its exact name, the newer ones missing or adapted;
 *  - libcuda.so.1 is cushim itself: an error and a message, never a loop;
 *    and when a driver comes after it on the path, that driver is used.
 * What was used is read from the fakes' counters in the child. */
#include "cuda-all.h"
#include "../harness/harness.h"
#include "cushim.h"
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENV(path, ...) { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" path ":" NO_RT, "CUSHIM_LOG=info", ##__VA_ARGS__, NULL }
#define RT_FILE_11 RT("11.4") "/libcudart.so.11.0"
#define RT_FILE_12 RT("12.0") "/libcudart.so.12"
#define RT_FILE_13 RT("13.0") "/libcudart.so.13"

/* ---- child: one call, then what the fakes saw ---- */
static long rt_calls(const char *file)
{
	fake_rt_calls_fn f = (fake_rt_calls_fn)fake_rt_sym(file, "fake_rt_calls");
	return f ? f() : -1; /* -1: not loaded */
}

/* A probe before cuInit loads no runtime (-3: none of the three); the
 * program's cuInit then adopts one. */
static int child_info(const char *arg)
{
	int v = 0;
	CUresult rc = cuDriverGetVersion(&v);
	long before = rt_calls(RT_FILE_11) + rt_calls(RT_FILE_12) + rt_calls(RT_FILE_13);
	CUresult init = cuInit(0);
	int total = FAKE(fake_lookups_total)(), maxv = 0;
	struct fake_lookup l;

	for (int i = 0; i < total; i++)
		if (FAKE(fake_lookup_at)(i, &l) == 0 && l.version > maxv)
			maxv = l.version;
	printf("rc=%d driver=%d gpa1=%ld gpa2=%ld lookups=%d max_version=%d rt11=%ld rt12=%ld rt13=%ld "
	       "before=%ld init=%d\n", (int)rc, v,
	       FAKE(fake_calls)("cuGetProcAddress"), FAKE(fake_calls)("cuGetProcAddress_v2"), total, maxv,
	       rt_calls(RT_FILE_11), rt_calls(RT_FILE_12), rt_calls(RT_FILE_13), before, (int)init);
	return 0;
}

struct seen {
	int rc, driver, lookups, max_version;
	long gpa1, gpa2, rt11, rt12, rt13, before;
	int init;
	char *err;
};

static void run_info(struct seen *s, const char *const env[])
{
	struct run r;
	run_self(&r, "info", "", env, 30);
	ck_assert_msg(r.code == 0, "child exited %d:\n%s%s", r.code, r.out, r.err);
	ck_assert_msg(sscanf(r.out, "rc=%d driver=%d gpa1=%ld gpa2=%ld lookups=%d max_version=%d rt11=%ld rt12=%ld rt13=%ld "
			     "before=%ld init=%d", &s->rc, &s->driver, &s->gpa1, &s->gpa2, &s->lookups, &s->max_version,
			     &s->rt11, &s->rt12, &s->rt13, &s->before, &s->init) == 11,
		      "%s", r.out);
	ck_assert_msg(s->before == -3, "a runtime was loaded before the program's cuInit:\n%s%s", r.out, r.err);
	ck_assert_msg(s->init == 0, "cuInit returned %d", s->init);
	printf("%s%s", r.out, r.err);
	ck_assert_msg(s->rc == 0, "cuDriverGetVersion returned %d", s->rc);
	ck_assert_msg(s->max_version <= s->driver, "asked at %d on a %d driver", s->max_version, s->driver);
	s->err = r.err;
	free(r.out);
}

START_TEST(check_runtime_11_4_on_driver_11_4_uses_the_v1_cuGetProcAddress)
{
	struct seen s;
	const char *const env[] = ENV(DRV("11.4") ":" RT("11.4"));
	run_info(&s, env);
	ck_assert_int_eq(s.driver, 11040);
	ck_assert_msg(s.rt11 >= 1, "the 11.4 runtime was not used (%ld)", s.rt11);
	ck_assert_msg(s.gpa1 > 500 && s.gpa2 == 0, "v1 %ld calls, v2 %ld", s.gpa1, s.gpa2);
	ck_assert_msg(count_lines_with(s.err, RT_FILE_11) >= 1, "the info log does not name %s:\n%s", RT_FILE_11, s.err);
	free(s.err);
}
END_TEST

START_TEST(check_runtime_too_new_for_the_driver_is_skipped)
{
	struct seen s;
	const char *const env[] = ENV(DRV("12.0") ":" RT("13.0") ":" RT("12.0"));
	run_info(&s, env);
	ck_assert_int_eq(s.driver, 12000);
	ck_assert_msg(s.rt12 >= 1, "the 12.0 runtime was not used (%ld)", s.rt12);
	ck_assert_msg(s.gpa2 > 500, "%ld lookups through cuGetProcAddress_v2", s.gpa2);
	ck_assert_msg(count_lines_with(s.err, RT_FILE_13) >= 1, "the info log does not say what became of %s:\n%s",
		      RT_FILE_13, s.err);
	free(s.err);
}
END_TEST

START_TEST(check_runtimes_too_new_are_skipped_down_to_11_4)
{
	struct seen s;
	const char *const env[] = ENV(DRV("11.4") ":" RT("13.0") ":" RT("12.0") ":" RT("11.4"));
	run_info(&s, env);
	ck_assert_int_eq(s.driver, 11040);
	ck_assert_msg(s.rt11 >= 1, "the 11.4 runtime was not used (%ld)", s.rt11);
	ck_assert_msg(s.gpa1 > 500, "%ld lookups through the v1 cuGetProcAddress", s.gpa1);
	free(s.err);
}
END_TEST

START_TEST(check_no_runtime_falls_back_to_the_driver)
{
	static const char *const drivers[] = { "13.0", "11.4" };
	struct seen s;
	char ld[4096];
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/drv-%s:%s", FAKE_DIR, drivers[_i], NO_RT);
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, ld, "CUSHIM_LOG=info", NULL };
	run_info(&s, env);
	ck_assert_msg(s.rt11 < 0 && s.rt12 < 0 && s.rt13 < 0, "a runtime is loaded");
	if (_i == 0)
		ck_assert_msg(s.gpa2 > 500 && s.gpa1 == 0, "v2 %ld, v1 %ld", s.gpa2, s.gpa1);
	else
		ck_assert_msg(s.gpa1 > 500 && s.gpa2 == 0, "v1 %ld, v2 %ld", s.gpa1, s.gpa2);
	/* at info level it says it is using the driver itself, and which */
	snprintf(ld, sizeof ld, "%s/drv-%s/libcuda.so.1", FAKE_DIR, drivers[_i]);
	ck_assert_msg(count_lines_with(s.err, ld) >= 1, "the info log does not name %s:\n%s", ld, s.err);
	ck_assert_msg(strstr(s.err, _i == 0 ? "cuGetProcAddress_v2" : "cuGetProcAddress"), "%s", s.err);
	free(s.err);
}
END_TEST

START_TEST(check_cushim_cudart_names_the_runtime)
{
	struct seen s;
	const char *const env[] = ENV(DRV("13.0") ":" RT("13.0"), "CUSHIM_CUDART=" RT_FILE_12);
	run_info(&s, env);
	ck_assert_msg(s.rt12 >= 1, "CUSHIM_CUDART's runtime was not used (%ld)", s.rt12);
	ck_assert_msg(s.rt13 < 0, "libcudart.so.13 was loaded too");
	free(s.err);
}
END_TEST

/* ---- cuGetErrorName/String(36) on an 11.4 driver ---- */
#define NAME_(x) #x
#define NAME(x) NAME_(x)
_Static_assert(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER == 36, "36: the code an export the driver lacks returns");

static int child_errname(const char *arg)
{
	typedef CUresult (*err_fn)(CUresult, const char **);
	err_fn driver_name = (err_fn)fake_sym("cuGetErrorName");
	const char *s = "x";

	/* the premise: this driver itself does not know 36 */
	EXPECT(driver_name && driver_name(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, &s) != CUDA_SUCCESS && !s,
	       "the fake 11.4 driver knows code 36");
	s = NULL;
	EXPECT(cuGetErrorName(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, &s) == CUDA_SUCCESS && s &&
		       strcmp(s, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER") == 0,
	       "cuGetErrorName(36) gave %s", s ? s : "NULL");
	s = NULL;
	EXPECT(cuGetErrorString(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, &s) == CUDA_SUCCESS && s && *s,
	       "cuGetErrorString(36) gave %s", s ? s : "NULL");
	/* codes the driver knows are still the driver's answer */
	long before = FAKE(fake_calls)("cuGetErrorName");
	s = NULL;
	EXPECT(cuGetErrorName(CUDA_SUCCESS, &s) == CUDA_SUCCESS && s && strcmp(s, NAME(CUDA_SUCCESS)) == 0,
	       "cuGetErrorName(0) gave %s", s ? s : "NULL");
	EXPECT(FAKE(fake_calls)("cuGetErrorName") == before + 1, "cuGetErrorName(0) did not reach the driver");
	/* and a code nobody knows is still an error */
	s = "x";
	EXPECT(cuGetErrorName((CUresult)123456, &s) != CUDA_SUCCESS, "cuGetErrorName(123456) succeeded");
	return child_failures != 0;
}

START_TEST(check_error_name_36_on_an_11_4_driver)
{
	struct run r;
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("11.4") ":" NO_RT, NULL };
	run_self(&r, "errname", "", env, 30);
	ck_assert_msg(r.code == 0, "exit %d:\n%s%s", r.code, r.out, r.err);
	run_free(&r);
}
END_TEST

/* ---- a driver without cuGetProcAddress (CUDA 11.2) ---- */
static int child_nogpa(const char *arg)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	__typeof__(&cushim_real_pointer) real = CUSHIM_FN(RTLD_DEFAULT, cushim_real_pointer);
	__typeof__(&cushim_export_origin) origin = CUSHIM_FN(RTLD_DEFAULT, cushim_export_origin);
	int v = 0, n = 0, same = 0, present = 0;
	CUcontext c = NULL;
	void *fn = NULL;

	EXPECT(drv && real && origin && !dlsym(drv, "cuGetProcAddress"), "not an 11.2 fake under cushim");
	EXPECT(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 11020, "cuDriverGetVersion gave %d", v);
	EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit");
#define CUSHIM_SYM(i, name, ...) #name,
	static const char *const names[] = {
#include "cushim-syms.h"
	};
	for (size_t k = 0; k < sizeof names / sizeof *names; k++, n++) {
		void *mine = real(names[k]), *its = dlsym(drv, names[k]);
		present += its != NULL, same += mine == its;
		EXPECT(mine == its, "%s is %p, the driver's %p", names[k], mine, its);
	}
#undef CUSHIM_SYM
	EXPECT(strcmp(origin("cuCtxGetCurrent"), "dlsym") == 0, "cuCtxGetCurrent from %s", origin("cuCtxGetCurrent"));
	EXPECT(cuCtxCreate_v4(&c, NULL, 0, 0) == CUDA_SUCCESS, "cuCtxCreate_v4 was not adapted");
	EXPECT(cuLibraryLoadData(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0) == CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER &&
	       cuLibraryLoadData(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0) == CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
	       "cuLibraryLoadData is not missing");
	EXPECT(cuGetProcAddress("cuInit", &fn, 11020, 0) == CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
	       "cuGetProcAddress is not missing");
	printf("exports=%d present=%d same=%d\n", n, present, same);
	return child_failures != 0;
}

START_TEST(check_driver_without_cuGetProcAddress_serves_each_export_by_name)
{
	struct run r;
	const char *const env[] = ENV(DRV("11.2"));
	run_self(&r, "nogpa", "", env, 30);
	printf("%s%s", r.out, r.err);
	ck_assert_msg(r.code == 0, "exit %d:\n%s%s", r.code, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, "through the driver's own symbols (it has no cuGetProcAddress)") == 1,
		      "the log does not say which path served:\n%s", r.err);
	ck_assert_msg(count_lines_with(r.err, "cuLibraryLoadData needs a CUDA 12.0 driver; this driver is CUDA 11.2") == 1,
		      "the missing export is not logged once:\n%s", r.err);
	ck_assert_msg(count_lines_with(r.err, "cuCtxCreate_v4 served by cuCtxCreate_v2") == 1, "%s", r.err);
	int n = 0, present = 0, same = 0;
	ck_assert(sscanf(strstr(r.out, "exports="), "exports=%d present=%d same=%d", &n, &present, &same) == 3);
	ck_assert_msg(same == n && present > 400, "%d of %d exports equal dlsym, %d present", same, n, present);
	run_free(&r);
}
END_TEST

/* ---- cushim as libcuda.so.1 ---- */
#define PROBE_NOLINK ABS_TOP_BUILDDIR "/tests/blackbox/dlsym-app"


START_TEST(check_never_recurses_when_libcuda_is_cushim)
{
	/* preloaded; the program does not link libcuda.so.1, so cushim loads
	 * it, and what it gets is itself; and no runtime */
	char dir[] = "/tmp/cushim-self.XXXXXX", link[4096], ld[4200];
	struct run r;
	const char *argv[] = { PROBE_NOLINK, NULL };

	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", dir, NO_RT);
	const char *const env[] = { ld, "LD_PRELOAD=" SHIM_SO, NULL };
	run_child(&r, argv, env, 20);
	unlink(link);
	rmdir(dir);
	ck_assert_msg(r.code != -1, "it hung:\n%s%s", r.out, r.err);
	ck_assert_msg(r.code == 0, "exit %d:\n%s%s", r.code, r.out, r.err);
	ck_assert_msg(count_lines_with(r.out, "cu") == 3, "not every call returned:\n%s", r.out);
	if (strstr(r.out, " 0\n") && strstr(r.err, "masquerade")) {
		/* cushim saw it was libcuda.so.1 and found a real driver elsewhere
		 * on this machine (the loader's folders): no loop, and that is all
		 * this machine lets us check */
		printf("a real driver was found past cushim:\n%s", r.err);
	} else {
		ck_assert_msg(strstr(r.out, "cuInit 0") == NULL && strstr(r.out, "cuDriverGetVersion 0") == NULL &&
			      strstr(r.out, "cuCtxGetCurrent 0") == NULL,
			      "calls should fail with no driver:\n%s", r.out);
		/* one message says that libcuda.so.1 is cushim itself */
		ck_assert_msg(count_lines_with(r.err, "is cushim itself") == 1 &&
			      count_lines_with(r.err, "libcuda.so.1") >= 1,
			      "no message says libcuda.so.1 is cushim itself:\n%s", r.err);
	}
	printf("%s%s", r.out, r.err);
	run_free(&r);
}
END_TEST

static int child_masquerade(const char *arg)
{
	/* libcuda.so.1 is cushim; the real (fake) driver comes after it */
	typedef long (*calls_fn)(const char *);
	void *real = dlopen(DRV("13.0") "/libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int v = 0;
	CUdevice d;

	EXPECT(fake_sym("fake_level") == NULL, "libcuda.so.1 is a fake driver, not cushim");
	EXPECT(real == NULL, "the driver was loaded before the first call");
	EXPECT(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000, "cuDriverGetVersion gave %d", v);
	EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit");
	EXPECT(cuDeviceGet(&d, 0) == CUDA_SUCCESS, "cuDeviceGet");
	real = dlopen(DRV("13.0") "/libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	calls_fn calls = real ? (calls_fn)dlsym(real, "fake_calls") : NULL;
	EXPECT(calls && calls("cuDeviceGet") == 1, "cuDeviceGet did not reach the driver behind cushim");
	return child_failures != 0;
}

START_TEST(check_cushim_as_libcuda_skips_itself_for_the_driver)
{
	char dir[] = "/tmp/cushim-self.XXXXXX", link[4096], ld[4200];
	struct run r;

	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s:%s", dir, DRV("13.0"), NO_RT);
	/* as libcuda.so.1 only (_i == 0), or preloaded as well (_i == 1) */
	const char *const env[] = { ld, _i == 1 ? "LD_PRELOAD=" SHIM_SO : NULL, NULL };
	run_self(&r, "masquerade", "", env, 20);
	unlink(link);
	rmdir(dir);
	ck_assert_msg(r.code != -1, "it hung:\n%s%s", r.out, r.err);
	ck_assert_msg(r.code == 0, "exit %d:\n%s%s", r.code, r.out, r.err);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "info", child_info }, { "errname", child_errname }, { "masquerade", child_masquerade },
		{ "nogpa", child_nogpa }, { NULL },
	};
	const TTest *const tests[] = { check_runtime_11_4_on_driver_11_4_uses_the_v1_cuGetProcAddress,
				       check_runtime_too_new_for_the_driver_is_skipped,
				       check_runtimes_too_new_are_skipped_down_to_11_4,
				       check_no_runtime_falls_back_to_the_driver,
				       check_cushim_cudart_names_the_runtime,
				       check_error_name_36_on_an_11_4_driver,
				       check_driver_without_cuGetProcAddress_serves_each_export_by_name,
				       check_never_recurses_when_libcuda_is_cushim,
				       check_cushim_as_libcuda_skips_itself_for_the_driver, NULL };
	const struct harness_loop twice[] = { { check_no_runtime_falls_back_to_the_driver, 2 },
					      { check_cushim_as_libcuda_skips_itself_for_the_driver, 2 }, { NULL } };
	const struct harness_tcase tcases[] = { { "runtime", 60, tests, twice }, { NULL } };
	return harness_main(argc, argv, children, "runtime", tcases);
}
