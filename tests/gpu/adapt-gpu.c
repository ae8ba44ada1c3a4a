/* Downgrade adapters on a real driver: a program built with the 13.0 headers
 * creates a context with cuCtxCreate (cuCtxCreate_v4), synchronises it
 * (cuCtxSynchronize_v2), asks its device (cuCtxGetDevice_v2) and runs a batch
 * copy (cuMemcpyBatchAsync_v2).  One line per call: its exported name and
 * result, then whether the copied bytes are right.  Exit 0 when every call it
 * made succeeded and the data is right, 2 when a call failed. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

static int failed;

static void report(const char *name, CUresult rc)
{
	const char *s = "?";
	cuGetErrorName(rc, &s);
	printf("%-24s %s\n", name, s);
	failed |= rc != CUDA_SUCCESS;
}

int main(void)
{
	enum { N = 4, BYTES = 1 << 20 };
	CUdevice dev = -1, got = -1;
	CUcontext ctx = NULL;
	CUstream stream;
	CUdeviceptr src[N], dst[N];
	size_t sizes[N], attr_idx = 0;
	CUmemcpyAttributes attr;
	static unsigned char host[BYTES], back[BYTES];
	int bad = 0;

	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS)
		return 77;
	report("cuCtxCreate_v4", cuCtxCreate(&ctx, NULL, 0, dev));
	if (!ctx)
		return 2;
	report("cuCtxSynchronize_v2", cuCtxSynchronize_v2(ctx));
	report("cuCtxGetDevice_v2", cuCtxGetDevice_v2(&got, ctx));
	printf("device %s\n", got == dev ? "matches" : "differs");
	cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	for (int i = 0; i < BYTES; i++)
		host[i] = (unsigned char)(i * 7 + 3);
	for (int k = 0; k < N; k++) {
		cuMemAlloc(&src[k], BYTES);
		cuMemAlloc(&dst[k], BYTES);
		cuMemcpyHtoD(src[k], host, BYTES);
		cuMemsetD8(dst[k], 0, BYTES);
		sizes[k] = BYTES;
	}
	memset(&attr, 0, sizeof attr);
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	attr.srcLocHint.type = attr.dstLocHint.type = CU_MEM_LOCATION_TYPE_DEVICE;
	attr.srcLocHint.id = attr.dstLocHint.id = dev;
	CUresult rc = cuMemcpyBatchAsync(dst, src, sizes, N, &attr, &attr_idx, 1, stream);
	report("cuMemcpyBatchAsync_v2", rc);
	cuStreamSynchronize(stream);
	for (int k = 0; k < N && rc == CUDA_SUCCESS; k++) {
		cuMemcpyDtoH(back, dst[k], BYTES);
		bad += memcmp(back, host, BYTES) != 0;
	}
	printf("batch copy data %s\n", rc != CUDA_SUCCESS ? "not copied" : bad ? "WRONG" : "right");
	for (int k = 0; k < N; k++) {
		cuMemFree(src[k]);
		cuMemFree(dst[k]);
	}
	cuStreamDestroy(stream);
	cuCtxDestroy(ctx);
	return bad ? 1 : failed ? 2 : 0;
}
