/* The runtime route of the sample suites; see rtroute.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "rtroute.h"
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef RTROUTE_PIN
#define RTROUTE_PIN 12010
#endif

static struct {
	__typeof__(cudaGetDriverEntryPointByVersion) *byversion;
	__typeof__(cudaGetErrorName) *errname;
	int pin;
	char line[512];
} rt;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;

static void rt_init(void)
{
	__typeof__(cudaDriverGetVersion) *drv = (void *)dlsym(RTLD_DEFAULT, "cudaDriverGetVersion");
	__typeof__(cudaRuntimeGetVersion) *rtv = (void *)dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
	int dv = 0, rv = 0, rc = -1;
	Dl_info di;

	/* TE: "We link to the libcudart.so already, so can search for it in the current context". */
	rt.byversion = (void *)dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPointByVersion");
	rt.errname = (void *)dlsym(RTLD_DEFAULT, "cudaGetErrorName");
	if (!rt.byversion || !drv || !rtv) {
		fprintf(stderr, "rtroute: no cudaGetDriverEntryPointByVersion in the process: a CUDA runtime "
				"12.5 or later must be linked\n");
		exit(1);
	}
	rtv(&rv);
	rc = drv(&dv);
	rt.pin = RTROUTE_PIN; /* as TE: whatever the driver's version */
	snprintf(rt.line, sizeof rt.line, "cudaGetDriverEntryPointByVersion of %s (CUDA runtime %d.%d), "
		 "driver %d.%d%s, pinned version %d", dladdr((void *)rt.byversion, &di) && di.dli_fname ?
		 di.dli_fname : "?", rv / 1000, rv % 1000 / 10, dv / 1000, dv % 1000 / 10,
		 rc == 0 ? "" : " (cudaDriverGetVersion failed)", rt.pin);
}

const char *rtroute_error_name(int result)
{
	const char *s;

	pthread_once(&rt_once, rt_init);
	s = rt.errname ? rt.errname((cudaError_t)result) : NULL;
	return s ? s : "?";
}

void *rtroute_probe(const char *name, int *result, int *status)
{
	enum cudaDriverEntryPointQueryResult q = (enum cudaDriverEntryPointQueryResult)-1;
	void *fn = NULL;

	pthread_once(&rt_once, rt_init);
	*result = (int)rt.byversion(name, &fn, (unsigned)rt.pin, cudaEnableDefault, &q);
	*status = (int)q;
	/* Judged by result, status and pointer together, never by the result alone. */
	return *result == 0 && q == cudaDriverEntryPointSuccess ? fn : NULL;
}

void *rtroute_entry(const char *name, void **slot)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	int result, status;

	if (fn)
		return fn;
	/* One lookup per call site, so that the calls a run makes are the same every run. */
	pthread_mutex_lock(&rt_lock);
	if (!(fn = *slot) && (fn = rtroute_probe(name, &result, &status)) != NULL)
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rt_lock);
	if (fn)
		return fn;
	fprintf(stderr, "rtroute: cannot find the driver entry point %s: cudaGetDriverEntryPointByVersion(%s, "
		"%d) returned %s (%d), status %d [%s]\n", name, name, rt.pin, rtroute_error_name(result), result,
		status, rt.line);
	exit(1);
}

int rtroute_pin(void)
{
	pthread_once(&rt_once, rt_init);
	return rt.pin;
}

const char *rtroute_describe(void)
{
	pthread_once(&rt_once, rt_init);
	return rt.line;
}
