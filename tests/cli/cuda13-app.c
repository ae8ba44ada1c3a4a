/* A program built against the CUDA 13.0 headers that a CUDA 11.4 driver
 * cannot fully serve: cuCtxCreate is cuCtxCreate_v4 (12.5) and
 * cuMemcpyBatchAsync is cuMemcpyBatchAsync_v2 (13.0), next to old imports
 * (cuInit, cuMemAlloc_v2, cuDriverGetVersion) and cuMemAllocAsync (11.2).
 * Linked against the toolkit's stub libcuda.so; `cushim check` reads it and
 * never runs it.  Run on a driver, it reports what each call returned. */
#include <cuda.h>
#include <stdio.h>

int main(void)
{
	CUresult rc = cuInit(0);
	int version = 0;
	CUcontext ctx = NULL;
	CUdeviceptr p = 0;

	printf("cuInit: %d\n", (int)rc);
	cuDriverGetVersion(&version);
	printf("driver: %d\n", version);
	rc = cuCtxCreate(&ctx, NULL, 0, 0);
	printf("cuCtxCreate: %d\n", (int)rc);
	rc = cuMemAlloc(&p, 256);
	printf("cuMemAlloc: %d\n", (int)rc);
	rc = cuMemAllocAsync(&p, 256, NULL);
	printf("cuMemAllocAsync: %d\n", (int)rc);
	rc = cuMemcpyBatchAsync(NULL, NULL, NULL, 0, NULL, NULL, 0, NULL);
	printf("cuMemcpyBatchAsync: %d\n", (int)rc);
	return rc == CUDA_SUCCESS ? 0 : 1;
}
