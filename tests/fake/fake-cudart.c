/* A fake CUDA runtime, built once per runtime version (RT_VERSION):
 *   11040  libcudart.so.11.0  cudaGetDriverEntryPoint(symbol, fn, flags)
 *   12000  libcudart.so.12    cudaGetDriverEntryPoint(symbol, fn, flags, status)
 *   13000  libcudart.so.13    the same, and cudaGetDriverEntryPointByVersion
 * Like the real one, it loads libcuda.so.1 on its first entry-point call and
 * initialises it (cuInit: the side effect that makes a runtime unfit to be
 * asked before the program initialises the driver), refuses a driver older
 * than itself (cudaErrorInsufficientDriver) or one that fails to initialise
 * (cudaErrorInitializationError), asks the driver for a private table
 * (cuGetExportTable) while it initialises, and asks
 * the driver's cuGetProcAddress at its own version (11.x: the v1 ABI, which
 * has no status). */
#include "fake.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifndef RT_VERSION
#error "build with -DRT_VERSION=<CUDA version of the fake runtime>"
#endif

#define FAKE_API __attribute__((visibility("default")))
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorInitializationError = 3, cudaErrorInsufficientDriver = 35,
       cudaErrorSymbolNotFound = 500 };
typedef int (*gpa1_fn)(const char *, void **, int, unsigned long long);
typedef int (*gpa2_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*version_fn)(int *);
typedef int (*init_fn)(unsigned int);
typedef int (*table_fn)(const void **, const void *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int driver_version, init_rc = -1;
static gpa1_fn gpa1;
static gpa2_fn gpa2;
static long ncalls, nrefusals;

static void load_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	version_fn v;
	init_fn init;
	table_fn table;

	if (!h)
		return;
	if ((v = (version_fn)dlsym(h, "cuDriverGetVersion")))
		v(&driver_version);
	if ((init = (init_fn)dlsym(h, "cuInit")))
		init_rc = init(0);
	/* As the real runtimes do once the driver is initialised: ask for a
	 * private table, by a name looked up the way every other one is. */
	if (init_rc == 0 && (table = (table_fn)dlsym(h, "cuGetExportTable"))) {
		const void *t = NULL;
		unsigned char id[16] = { 0 };
		table(&t, id);
	}
	gpa1 = (gpa1_fn)dlsym(h, "cuGetProcAddress");
	gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
}

/* 0 if the driver can serve this runtime, else the runtime's error.
 * FAKE_RT_REFUSE=1 (tests/hardening): refuse whatever the driver is. */
static int driver_ok(void)
{
	const char *refuse = getenv("FAKE_RT_REFUSE");
	pthread_once(&once, load_driver);
	__atomic_add_fetch(&ncalls, 1, __ATOMIC_RELAXED);
	if ((refuse && strcmp(refuse, "1") == 0) || driver_version < RT_VERSION || !(RT_VERSION >= 12000 ? (void *)gpa2 : (void *)gpa1)) {
		__atomic_add_fetch(&nrefusals, 1, __ATOMIC_RELAXED);
		return cudaErrorInsufficientDriver;
	}
	if (init_rc != 0)
		return cudaErrorInitializationError;
	return cudaSuccess;
}

static int ask(const char *symbol, void **fn, int version, unsigned long long flags, int *status)
{
	int rc = driver_ok(), st = -1;
	if (rc)
		return rc;
	if (!symbol || !fn)
		return cudaErrorInvalidValue;
	rc = RT_VERSION >= 12000 ? gpa2(symbol, fn, version, flags, &st) : gpa1(symbol, fn, version, flags);
	if (status)
		*status = RT_VERSION >= 12000 ? st : (rc == 0 && *fn ? 0 : 1);
	if (rc != 0)
		return cudaErrorInvalidValue;
	return *fn ? cudaSuccess : cudaErrorSymbolNotFound;
}

#define API(ret, name, args) FAKE_API ret name args; FAKE_API ret name args
#if RT_VERSION >= 12000
API(int, cudaGetDriverEntryPoint, (const char *symbol, void **fn, unsigned long long flags, int *status))
{
	return ask(symbol, fn, RT_VERSION, flags, status);
}
#else
API(int, cudaGetDriverEntryPoint, (const char *symbol, void **fn, unsigned long long flags))
{
	return ask(symbol, fn, RT_VERSION, flags, NULL);
}
#endif
#if RT_VERSION >= 12050
API(int, cudaGetDriverEntryPointByVersion,
    (const char *symbol, void **fn, unsigned int version, unsigned long long flags, int *status))
{
	return ask(symbol, fn, (int)version, flags, status);
}
#endif
API(int, cudaRuntimeGetVersion, (int *v))
{
	if (!v)
		return cudaErrorInvalidValue;
	*v = RT_VERSION;
	return cudaSuccess;
}
API(int, cudaDriverGetVersion, (int *v))
{
	if (!v)
		return cudaErrorInvalidValue;
	pthread_once(&once, load_driver);
	*v = driver_version;
	return cudaSuccess;
}
API(const char *, cudaGetErrorName, (int e))
{
	switch (e) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorInitializationError: return "cudaErrorInitializationError";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
	default: return "cudaErrorUnknown";
	}
}
API(int, fake_rt_version, (void)) { return RT_VERSION; }
API(long, fake_rt_calls, (void)) { return __atomic_load_n(&ncalls, __ATOMIC_RELAXED); }
API(long, fake_rt_refusals, (void)) { return __atomic_load_n(&nrefusals, __ATOMIC_RELAXED); }
