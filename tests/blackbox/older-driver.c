/* newer-app (tests/demo/newer-app: built against CUDA 13.0, linked
 * -z now) on the fake 11.4 driver: without cushim it does not load; with it,
 * it runs, each call the driver lacks returns 36 and each such symbol is
 * logged exactly once, naming the version that introduced it (taken from the
 * oracle here) and the driver's.  What it imports and what an 11.4 driver has
 * are read from its ELF file and the oracle, not from cushim. */
#include <config.h>
#include "../harness/harness.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEGACY ABS_TOP_BUILDDIR "/tests/demo/newer-app"
#define CALL_REQUIRES_NEWER_DRIVER 36 /* CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER */

static char **imports;
static int nimports;

static void load_imports(void)
{
	char **all;
	int n = elf_dynamic_symbols(LEGACY, 0, &all);
	ck_assert_msg(n > 0, "cannot read the imports of %s", LEGACY);
	imports = calloc((size_t)n + 1, sizeof *imports);
	nimports = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(all[i], "cu", 2) == 0)
			imports[nimports++] = all[i];
}

/* In the driver of that level, by the oracle. */
static int driver_has(const char *name, int level)
{
	int first = oracle_first_version(name);
	return first > 0 && first <= level;
}

/* The code the program printed for name's first call, -1 if none. */
static int printed_code(const char *out, const char *name)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char n[128];
		int code;
		if (sscanf(l, "%127s %d", n, &code) == 2 && strcmp(n, name) == 0)
			return code;
	}
	return -1;
}

/* newer-app run with env. */
static struct run run_newer_app(const char *const env[])
{
	struct run r;
	const char *argv[] = { LEGACY, NULL };
	run_child(&r, argv, env, 30);
	return r;
}

/* newer-app run with cushim preloaded, libpath its LD_LIBRARY_PATH and
 * adapt its CUSHIM_ADAPT (NULL: unset); it must exit 0. */
static struct run run_newer_app_with_cushim(const char *libpath, const char *adapt)
{
	const char *env[] = { "LD_PRELOAD=" SHIM_SO, libpath, adapt, NULL };
	struct run r = run_newer_app(env);
	ck_assert_msg(r.code == 0, "with cushim it should run; exit %d:\n%s%s", r.code, r.out, r.err);
	return r;
}

START_TEST(newer_app_imports_what_11_4_lacks)
{
	int lacking = 0, having = 0;
	load_imports();
	for (int i = 0; i < nimports; i++) {
		ck_assert_msg(oracle_first_version(imports[i]) > 0, "%s is unknown to the oracle", imports[i]);
		if (driver_has(imports[i], 11040))
			having++;
		else
			lacking++;
	}
	ck_assert_msg(lacking >= 4 && having >= 4, "newer-app imports %d symbols an 11.4 driver lacks "
		      "and %d it has: not a fair test", lacking, having);
}
END_TEST

START_TEST(newer_app_fails_to_load_without_the_shim)
{
	const char *env[] = { "LD_LIBRARY_PATH=" DRV("11.4") ":" NO_RT, NULL };
	struct run r = run_newer_app(env);
	ck_assert_msg(r.code != 0 && strstr(r.err, "undefined symbol"),
		      "without cushim on the 11.4 driver it should not load; exit %d:\n%s%s", r.code, r.out, r.err);
	ck_assert_msg(strstr(r.out, "cuInit") == NULL, "it ran code: %s", r.out);
	run_free(&r);
}
END_TEST

START_TEST(newer_app_runs_with_the_shim_missing_calls_return_36_logged_once)
{
	char need[16], line[512];
	int missing = 0;

	load_imports();
	/* the missing-symbol path itself: the downgrade adapters, which
	 * serve some of these calls, are off here and tested below */
	struct run r = run_newer_app_with_cushim("LD_LIBRARY_PATH=" DRV("11.4") ":" NO_RT, "CUSHIM_ADAPT=0");
	for (int i = 0; i < nimports; i++) {
		const char *name = imports[i];
		int code = printed_code(r.out, name);
		if (strcmp(name, "cuGetErrorName") == 0)
			continue; /* used to print, not reported */
		ck_assert_msg(code >= 0, "no line for %s in:\n%s", name, r.out);
		if (driver_has(name, 11040)) {
			ck_assert_msg(code == 0, "%s, which 11.4 has, returned %d", name, code);
			snprintf(line, sizeof line, "cushim: %s ", name);
			ck_assert_msg(count_lines_with(r.err, line) == 0, "%s was logged:\n%s", name, r.err);
		} else {
			ck_assert_msg(code == CALL_REQUIRES_NEWER_DRIVER, "%s, which 11.4 lacks, returned %d", name,
				      code);
			ck_assert_msg(count_lines_with(r.out, name) >= 1, "%s", name);
			snprintf(line, sizeof line,
				 "cushim: %s needs a CUDA %s driver; this driver is CUDA 11.4 "
				 "(returning CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)",
				 name, version_text(oracle_first_version(name), need));
			ck_assert_msg(count_lines_with(r.err, line) == 1, "'%s' should be logged once:\n%s", line, r.err);
			missing++;
		}
	}
	/* the program calls some of them twice: still one line each */
	ck_assert_msg(count_lines_with(r.out, "cuCtxCreate_v4") == 2, "%s", r.out);
	ck_assert_int_eq(count_lines_with(r.err, "cushim: "), missing);
	run_free(&r);
}
END_TEST

START_TEST(newer_app_runs_clean_on_a_13_0_driver)
{
	load_imports();
	struct run r = run_newer_app_with_cushim("LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, NULL);
	for (int i = 0; i < nimports; i++)
		if (strcmp(imports[i], "cuGetErrorName"))
			ck_assert_msg(printed_code(r.out, imports[i]) == 0, "%s failed on 13.0:\n%s", imports[i], r.out);
	ck_assert_msg(count_lines_with(r.err, "cushim: ") == 0, "%s", r.err);
	run_free(&r);
}
END_TEST

/* The downgrade adapters (on by default), black box on the fake 11.4
 * driver: cuCtxCreate_v4 with no parameters is served by cuCtxCreate_v2 (it
 * succeeds instead of returning 36), logged once at warn; cuMemcpyBatchAsync_v2, whose 12.8
 * variant 11.4 lacks too, stays missing. */
START_TEST(newer_app_adapters_serve_cuCtxCreate_v4_on_11_4)
{
	struct run r = run_newer_app_with_cushim("LD_LIBRARY_PATH=" DRV("11.4") ":" NO_RT, NULL);
	ck_assert_int_eq(printed_code(r.out, "cuCtxCreate_v4"), 0);
	ck_assert_int_eq(printed_code(r.out, "cuMemcpyBatchAsync_v2"), CALL_REQUIRES_NEWER_DRIVER);
	ck_assert_msg(count_lines_with(r.err, "cushim: cuCtxCreate_v4 served by cuCtxCreate_v2 (no parameters); "
					      "this driver is CUDA 11.4") == 1,
		      "%s", r.err);
	ck_assert_msg(count_lines_with(r.err, "cuCtxCreate_v4 needs") == 0, "%s", r.err);
	ck_assert_msg(count_lines_with(r.err, "cushim: cuMemcpyBatchAsync_v2 needs a CUDA 13.0 driver") == 1, "%s",
		      r.err);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	const TTest *const tests[] = { newer_app_imports_what_11_4_lacks,
				       newer_app_fails_to_load_without_the_shim,
				       newer_app_runs_with_the_shim_missing_calls_return_36_logged_once,
				       newer_app_runs_clean_on_a_13_0_driver,
				       newer_app_adapters_serve_cuCtxCreate_v4_on_11_4, NULL };
	const struct harness_tcase tcases[] = { { "older-driver", 60, tests, NULL }, { NULL } };
	return harness_main(argc, argv, NULL, "older-driver", tcases);
}
