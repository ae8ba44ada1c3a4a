/* A process that probes the driver and then forks a worker, as a launcher
 * or a fork-based pool does.  It prints what each call answered, so that the
 * runs with and without cushim can be compared line for line; and, on a
 * separate "time" line, how long its first driver call took.
 *   parent: cuDriverGetVersion cuCtxGetCurrent cuDeviceGetCount (before cuInit)
 *   child:  cuInit cuDeviceGet cuDevicePrimaryCtxRetain cuCtxSetCurrent cuMemAlloc cuMemFree
 *   parent: cuInit, and where cushim's entry points came from then (if cushim is loaded) */
#include "cushim.h"
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int worker(void)
{
	CUdevice d = -1;
	CUcontext c = NULL;
	CUdeviceptr p = 0;
	CUresult r1 = cuInit(0), r2 = cuDeviceGet(&d, 0), r3 = cuDevicePrimaryCtxRetain(&c, d);
	CUresult r4 = cuCtxSetCurrent(c), r5 = cuMemAlloc(&p, 1 << 20), r6 = cuMemFree(p);
	printf("child: cuInit=%d cuDeviceGet=%d cuDevicePrimaryCtxRetain=%d cuCtxSetCurrent=%d cuMemAlloc=%d "
	       "cuMemFree=%d\n", r1, r2, r3, r4, r5, r6);
	return r1 || r2 || r3 || r4 || r5 || r6;
}

static void origins(void)
{
	__typeof__(&cushim_origin_counts) counts = CUSHIM_FN(RTLD_DEFAULT, cushim_origin_counts);
	__typeof__(&cushim_entry_via) via = CUSHIM_FN(RTLD_DEFAULT, cushim_entry_via);
	int n[4] = { 0 };
	if (!counts || !via)
		return;
	counts(n);
	printf("cushim after cuInit: %s; exports by the driver's cuGetProcAddress %d, by name %d, by the runtime %d\n",
	       via(), n[1], n[2], n[3]);
}

int main(void)
{
	int v = 0, n = -1, st = 0;
	CUcontext c = NULL;
	double t0 = now_us();
	CUresult r1 = cuDriverGetVersion(&v);
	double t1 = now_us();
	CUresult r2 = cuCtxGetCurrent(&c), r3 = cuDeviceGetCount(&n);

	printf("parent before cuInit: cuDriverGetVersion=%d (%d) cuCtxGetCurrent=%d cuDeviceGetCount=%d\n", r1, v, r2,
	       r3);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int rc = worker();
		fflush(stdout);
		_exit(rc);
	}
	waitpid(pid, &st, 0);
	printf("child exit: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("parent: cuInit=%d\n", cuInit(0));
	fflush(stdout);
	origins();
	fprintf(stderr, "time: first call %.1f us\n", t1 - t0);
	return 0;
}
