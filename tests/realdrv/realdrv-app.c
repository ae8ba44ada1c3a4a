/* A program built against the configured toolkit's cuda.h, linked -z now
 * against libcuda.so.1 and importing every export cushim has (the generated
 * import table).  Run on a real driver under LD_PRELOAD=libcushim.so it must
 * load, see the driver's own version, get 36 from every export the driver
 * lacks and the driver's own answer from what it has, and leave the driver as
 * it found it: cuDeviceGetCount answers the same before and after cushim's
 * bootstrap and its calls, until the program's own cuInit.
 *
 * It calls only what a driver answers safely without a device
 * (cuDriverGetVersion, cuGetErrorName/String, cuGetProcAddress,
 * cuDeviceGetCount, cuInit) and the missing exports (cushim answers those).
 * Prints "realdrv-row: ..." (see drivers.sh) and a FAIL line per failure;
 * exits 0, 1 on a failure, 2 in an environment that changes the answers, 77
 * without cushim.  REALDRV_DUMP=FILE writes every export's target there (at
 * exit, after cuInit); REALDRV_ORIGIN=NAME: where every export must come
 * from once cuInit succeeded ("runtime"); REALDRV_RUNTIME: see
 * use_runtime_first. */
#include "realdrv.h"
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*error_fn)(CUresult, const char **);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

static void *drv_sym(const char *name)
{
	return dlsym(realdrv_drv, name);
}

/* The driver's own cuDeviceGetCount, past cushim. */
static int drv_device_count(int *n)
{
	CUresult (*f)(int *) = (CUresult (*)(int *))drv_sym("cuDeviceGetCount");
	*n = -1;
	return f ? (int)f(n) : -1;
}

static int check_version(void)
{
	CUresult (*own)(int *) = (CUresult (*)(int *))drv_sym("cuDriverGetVersion");
	int seen = 0, real = 0;
	CUresult r = cuDriverGetVersion(&seen);

	if (!own || own(&real) != CUDA_SUCCESS)
		realdrv_fail("the driver's own cuDriverGetVersion does not answer");
	if (r != CUDA_SUCCESS || seen != real)
		realdrv_fail("cuDriverGetVersion: %d, version %d; the driver says %d", (int)r, seen, real);
	if (realdrv_shim.real_driver_version() != real || realdrv_shim.driver_version() != real)
		realdrv_fail("cushim's versions %d (real) and %d (seen), the driver's %d",
			     realdrv_shim.real_driver_version(), realdrv_shim.driver_version(), real);
	return seen;
}

/* The driver's answer where it knows the code (the same string); where it
 * does not, cushim's own name or the driver's error. */
static void compare_error(const char *fn, error_fn mine, CUresult code)
{
	error_fn theirs = (error_fn)drv_sym(fn);
	const char *a = NULL, *b = NULL;
	CUresult ra = mine(code, &a), rb = theirs ? theirs(code, &b) : CUDA_ERROR_NOT_FOUND;

	if (rb == CUDA_SUCCESS ? ra != rb || a != b : ra != rb && (ra != CUDA_SUCCESS || !a || !*a))
		realdrv_fail("%s(%d): cushim %d \"%s\", the driver %d \"%s\"", fn, (int)code, (int)ra,
			     ra ? "" : a, (int)rb, rb ? "" : b);
}

static void check_errors(void)
{
	static const CUresult codes[] = { CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED,
					  CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NOT_FOUND, CUDA_ERROR_UNKNOWN,
					  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, (CUresult)12345 };
	const char *name = NULL;

	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
		compare_error("cuGetErrorName", cuGetErrorName, codes[i]);
		compare_error("cuGetErrorString", cuGetErrorString, codes[i]);
	}
	/* the code cushim returns is named on every driver */
	if (cuGetErrorName(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, &name) != CUDA_SUCCESS || !name ||
	    strcmp(name, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER") != 0)
		realdrv_fail("cuGetErrorName(36) is \"%s\"", name ? name : "(null)");
}

/* The program's cuGetProcAddress (cuGetProcAddress_v2 in 13.0's cuda.h):
 * the driver's _v2 answer where it has one, its cuGetProcAddress's through
 * the adapter, else 36. */
static void ask_procaddress(const char *sym, int version)
{
	int state = realdrv_shim.export_state("cuGetProcAddress_v2");
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1, st2 = st;
	void *p = NULL, *q = NULL;
	CUresult r = cuGetProcAddress(sym, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &st), r2;

	if (state == 0) {
		r2 = ((gpa2_fn)drv_sym("cuGetProcAddress_v2"))(sym, &q, version, CU_GET_PROC_ADDRESS_DEFAULT, &st2);
		if (r != r2 || p != q || st != st2)
			realdrv_fail("cuGetProcAddress_v2(%s, %d): cushim %d %p %d, the driver %d %p %d", sym, version,
				     (int)r, p, (int)st, (int)r2, q, (int)st2);
	} else if (state == 1) {
		r2 = ((gpa1_fn)drv_sym("cuGetProcAddress"))(sym, &q, version, CU_GET_PROC_ADDRESS_DEFAULT);
		if (r2 == CUDA_SUCCESS && q ? r != CUDA_SUCCESS || p != q || st != CU_GET_PROC_ADDRESS_SUCCESS
					    : p != NULL || (r == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS))
			realdrv_fail("cuGetProcAddress_v2(%s, %d) adapted: %d %p %d, the driver's "
				     "cuGetProcAddress %d %p", sym, version, (int)r, p, (int)st, (int)r2, q);
	} else if (r != CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER) {
		realdrv_fail("cuGetProcAddress_v2 is missing but returned %d", (int)r);
	}
}

static void check_procaddress(void)
{
	ask_procaddress("cuInit", 2000);
	ask_procaddress("cuMemAlloc", 3020);
	ask_procaddress("cuDriverGetVersion", 2020);
	ask_procaddress("cuCtxCreate", 12050);
	ask_procaddress("cuNoSuchFunction", 2000);
}

/* cuDeviceGetCount through cushim and from the driver, against what the
 * driver said before cushim did anything; the driver's answer. */
static int check_untouched(const char *when, int before)
{
	int n = -1, m = -1;
	CUresult r = cuDeviceGetCount(&n);
	int d = drv_device_count(&m);

	if ((int)r != before || d != before)
		realdrv_fail("%s: cuDeviceGetCount answers %d through cushim and %d from the driver; it answered %d "
			     "before cushim's first call", when, (int)r, d, before);
	return d;
}

/* The program's own cuInit: the driver's answer, and after it cushim and the
 * driver agree on cuDeviceGetCount. */
static int check_init(int *driver_said)
{
	CUresult r = cuInit(0);
	int n = -1, m = -1, d;

	*driver_said = (int)((CUresult (*)(unsigned))drv_sym("cuInit"))(0);
	if ((int)r != *driver_said)
		realdrv_fail("cuInit: cushim %d, the driver %d", (int)r, *driver_said);
	CUresult c = cuDeviceGetCount(&n);
	d = drv_device_count(&m);
	if ((int)c != d || n != m)
		realdrv_fail("after cuInit, cuDeviceGetCount: cushim %d (%d), the driver %d (%d)", (int)c, n, d, m);
	return (int)r;
}

/* Settings that change the answers on purpose make the comparisons moot;
 * tracing would decode the missing exports' absent arguments. */
static int environment_ok(void)
{
	static const char *const moot[] = { "CUSHIM_HIDE", "CUSHIM_DRIVER_VERSION", "CUSHIM_SUMMARY" };
	const char *level = getenv("CUSHIM_LOG");

	for (size_t i = 0; i < sizeof moot / sizeof *moot; i++)
		if (getenv(moot[i])) {
			fprintf(stderr, "realdrv: unset %s: it changes what cushim answers\n", moot[i]);
			return 0;
		}
	if (level && (strcmp(level, "errors") == 0 || strcmp(level, "trace") == 0)) {
		fprintf(stderr, "realdrv: CUSHIM_LOG=%s would decode arguments never passed\n", level);
		return 0;
	}
	return 1;
}

/* REALDRV_RUNTIME=PATH: the program uses that CUDA runtime before anything
 * else, as a program linked with it would (cudaGetDeviceCount initialises
 * it, and the driver through it). */
static void use_runtime_first(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	int (*count)(int *) = h ? (int (*)(int *))dlsym(h, "cudaGetDeviceCount") : NULL;
	int n = -1;

	if (!count) {
		realdrv_fail("cannot use the runtime %s: %s", path, h ? "no cudaGetDeviceCount" : dlerror());
		return;
	}
	int r = count(&n);
	printf("realdrv-runtime: %s: cudaGetDeviceCount %d, %d devices\n", path, r, n);
}

static const char *origin_of_driver(void)
{
	return drv_sym("cuGetProcAddress") ? "driver" : "dlsym";
}

/* cushim asks the driver the program linked. */
static void check_driver_path(void)
{
	Dl_info info;

	if (dladdr(drv_sym("cuInit"), &info) && strcmp(info.dli_fname, realdrv_shim.driver_path()) != 0)
		realdrv_fail("cushim uses %s, the program linked %s", realdrv_shim.driver_path(), info.dli_fname);
}

/* The matrix line's fields, as drivers.sh reads them (cuInit's follow). */
static void print_row(const struct realdrv_counts *c, int seen, int called, int before, int after)
{
	const char *origin = origin_of_driver();

	printf("realdrv-row: %d %d %d %d %s:%d exact=%d/%d imports=%d/%d in-shim=%d/%d missing-36=%d count=%d/%d ",
	       seen, c->resolved, c->adapted, c->missing, origin, c->by_origin[strcmp(origin, "driver") == 0 ? 1 : 2],
	       c->exact, c->resolved, c->bound, c->imported, c->in_shim, realdrv_nimports, called, before, after);
}

int main(void)
{
	struct realdrv_counts c;
	int count_n, before, after, seen, called, init, init_drv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!environment_ok())
		return 2;
	if (!realdrv_open())
		return 77;
	if (getenv("REALDRV_RUNTIME"))
		use_runtime_first(getenv("REALDRV_RUNTIME"));
	before = drv_device_count(&count_n); /* before cushim does anything */
	seen = check_version();
	check_errors();
	check_procaddress();
	check_untouched("before any missing export is called", before);
	called = realdrv_call_missing();
	realdrv_check_exports(&c, origin_of_driver());
	check_driver_path();
	after = check_untouched("after cushim's bootstrap and calls", before);
	print_row(&c, seen, called, before, after);
	init = check_init(&init_drv);
	printf("cuInit=%d/%d via=\"%s\"\n", init, init_drv, realdrv_shim.entry_via());
	if (init == CUDA_SUCCESS) {
		realdrv_check_exports(&c, getenv("REALDRV_ORIGIN"));
		printf("realdrv-after-init: resolved %d, exact %d, origins driver %d dlsym %d runtime %d; via %s %s\n",
		       c.resolved, c.exact, c.by_origin[1], c.by_origin[2], c.by_origin[3], realdrv_shim.entry_via(),
		       realdrv_shim.driver_path());
	}
	if (getenv("REALDRV_DUMP") && !realdrv_dump(getenv("REALDRV_DUMP")))
		realdrv_fail("cannot write REALDRV_DUMP");
	return realdrv_failures ? 1 : 0;
}
