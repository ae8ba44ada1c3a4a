/* A driver-API program for tests/gpu/coexist.sh: its allocations and kernel
 * launches the three ways a program reaches the driver (by name, through its
 * own cuGetProcAddress, and as a runtime does: dlopen and dlsym of
 * cuGetProcAddress_v2), one key=value a line, results as CUresult numbers
 * (2 is CUDA_ERROR_OUT_OF_MEMORY, 36 CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER).
 *   coexist-app MIB [fork]
 * allocates 1 MiB, then 2*MIB MiB each way (above a memory limit of MIB MiB:
 * refused under HAMi-core with CUDA_DEVICE_MEMORY_LIMIT=MIBm), launches the
 * nop kernel 100 times; it also prints cuDriverGetVersion's answer and the
 * results of cuMemGetInfo and cuFuncGetName (what CUSHIM_HIDE can hide); with fork, 4 threads then fork 8 times each while
 * the main thread keeps calling, and each child exits 0 when
 * cuDriverGetVersion answers. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern const unsigned char gpu_kernels_fatbin[];
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

/* Results as numbers: a shim's cuGetErrorName may know codes the driver's
 * does not, and the runs are compared line by line. */
static const char *name(CUresult r)
{
	static __thread char buf[16];
	snprintf(buf, sizeof buf, "%d", (int)r);
	return buf;
}

static const char *alloc_via(gpa2_fn gpa, size_t size)
{
	void *p = NULL;
	CUdeviceptr d = 0;
	CUresult r;

	if (!gpa || gpa("cuMemAlloc", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS || !p)
		return "no cuMemAlloc";
	r = ((alloc_fn)p)(&d, size);
	cuMemFree(d); /* whatever the result: the same calls in every run */
	return name(r);
}

static void *forker(void *arg)
{
	long bad = 0;
	for (int i = 0; i < 8; i++) {
		int st, v;
		pid_t pid = fork();
		if (pid == 0)
			_exit(cuDriverGetVersion(&v) == CUDA_SUCCESS ? 0 : 1);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	return (void *)bad;
}

static void storm(void)
{
	pthread_t t[4];
	long bad = 0;
	CUcontext c;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, forker, NULL);
	for (int i = 0; i < 2000; i++)
		cuCtxGetCurrent(&c);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("fork_children_failed=%ld\n", bad);
}

int main(int argc, char **argv)
{
	size_t over = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1024) * 2 << 20;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction nop;
	CUdeviceptr d;
	CUresult r;
	size_t free_b = 0, total = 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if ((r = cuInit(0)) || (r = cuDeviceGet(&dev, 0)) || (r = cuCtxCreate(&ctx, NULL, 0, dev)) ||
	    (r = cuModuleLoadData(&mod, gpu_kernels_fatbin)) || (r = cuModuleGetFunction(&nop, mod, "nop"))) {
		printf("setup=%s\n", name(r));
		return 1;
	}
	const char *fname = NULL;
	int v = 0;
	r = cuDriverGetVersion(&v);
	printf("version=%s %d\n", name(r), v);
	printf("meminfo=%s\n", name(cuMemGetInfo(&free_b, &total)));
	printf("funcname=%s\n", name(cuFuncGetName(&fname, nop))); /* no interposer hooks it */
	d = 0;
	printf("alloc_small=%s\n", name(cuMemAlloc(&d, 1 << 20)));
	cuMemFree(d);
	d = 0;
	printf("alloc_over=%s\n", name(cuMemAlloc(&d, over)));
	cuMemFree(d);
	printf("gpa_over=%s\n", alloc_via((gpa2_fn)cuGetProcAddress, over));
	printf("runtime_over=%s\n", alloc_via(h ? (gpa2_fn)dlsym(h, "cuGetProcAddress_v2") : NULL, over));
	r = CUDA_SUCCESS;
	for (int i = 0; i < 100 && r == CUDA_SUCCESS; i++)
		r = cuLaunchKernel(nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
	printf("launch=%s sync=%s\n", name(r), name(cuCtxSynchronize()));
	if (argc > 2 && strcmp(argv[2], "fork") == 0)
		storm();
	cuModuleUnload(mod);
	cuCtxDestroy(ctx);
	return 0;
}
