/* A program on the CUDA driver API alone, every import older than CUDA 12.0:
 * built by make with gcc and with nvcc (which links its CUDA runtime in,
 * unused) for tests/cli/check-cuda.sh to give cushim check; never run by the
 * tests. */
#include <cuda.h>
#include <stdio.h>

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr p;
	int version = 0;
	if (cuInit(0) != CUDA_SUCCESS || cuDriverGetVersion(&version) != CUDA_SUCCESS ||
	    cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
		return 1;
	cuCtxSetCurrent(ctx);
	if (cuMemAlloc(&p, 64) == CUDA_SUCCESS)
		cuMemFree(p);
	cuDevicePrimaryCtxRelease(dev);
	printf("%d\n", version);
	return 0;
}
