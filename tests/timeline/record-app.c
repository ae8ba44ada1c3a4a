/* record.sh's program, on the fake 13.0 driver:
 *   sticky     two kernels named, launched on two streams, then
 *              cuCtxSynchronize (FAKE_STICKY makes it fail) twice; prints
 *              "sync RC RC"
 *   crash      four calls, then a fault of its own (SIGSEGV)
 *   threads    8 threads making 100,000 cuCtxGetCurrent each
 *   plain      a few calls of each kind of argument, for the decoding */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void sticky(void)
{
	CUfunction saxpy, wild;
	CUmodule mod = (CUmodule)(uintptr_t)0x1234;
	CUstream s1 = (CUstream)(uintptr_t)0x51, s2 = (CUstream)(uintptr_t)0x52;
	cuModuleGetFunction(&saxpy, mod, "_Z5saxpyifPfS_");
	cuModuleGetFunction(&wild, mod, "write_wild");
	cuLaunchKernel(saxpy, 4, 1, 1, 256, 1, 1, 0, s1, NULL, NULL);
	cuLaunchKernel(wild, 1, 1, 1, 32, 1, 1, 64, s2, NULL, NULL);
	int r1 = cuCtxSynchronize(), r2 = cuCtxSynchronize();
	printf("sync %d %d\n", r1, r2);
}

static void *worker(void *arg)
{
	CUcontext c;
	(void)arg;
	for (int k = 0; k < 100000; k++)
		cuCtxGetCurrent(&c);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	CUcontext c;
	CUdevice d;
	CUfunction f;
	cuInit(0);
	if (strcmp(mode, "sticky") == 0) {
		sticky();
	} else if (strcmp(mode, "crash") == 0) {
		cuCtxGetCurrent(&c);
		cuDeviceGet(&d, 0);
		cuModuleGetFunction(&f, (CUmodule)(uintptr_t)0x99, "before_the_crash");
		fflush(stdout);
		*(volatile int *)(uintptr_t)8 = 1;
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t[8];
		for (int k = 0; k < 8; k++)
			pthread_create(&t[k], NULL, worker, NULL);
		for (int k = 0; k < 8; k++)
			pthread_join(t[k], NULL);
	} else {
		cuCtxGetCurrent(&c);
		cuDeviceGet(&d, 7);
		cuModuleGetFunction(&f, (CUmodule)(uintptr_t)0x99, "a \"quoted\"\tname");
		cuLaunchKernel(f, 2, 3, 4, 5, 6, 7, 8, (CUstream)(uintptr_t)0x77, NULL, NULL);
	}
	return 0;
}
