/* explain-start.sh's program on a real GPU: "init" calls cuInit twice and
 * prints both results; "oom" allocates 64 MiB, then twice as much device
 * memory as the device has, twice, and prints the results. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr small, big;
	size_t free_b = 0, total = 0;

	if (argc > 1 && strcmp(argv[1], "init") == 0) {
		int r1 = cuInit(0), r2 = cuInit(0);
		printf("init %d %d\n", r1, r2);
		return 0;
	}
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx) ||
	    cuMemGetInfo(&free_b, &total))
		return 1;
	int a = cuMemAlloc(&small, 64u << 20), o1 = cuMemAlloc(&big, 2 * total), o2 = cuMemAlloc(&big, 2 * total);
	printf("alloc %d oom %d %d total %zu\n", a, o1, o2, total);
	cuMemFree(small);
	return 0;
}
