/* A small real program on the driver API: context, allocation, a kernel from
 * a module built with nvcc, copy back, compare.  It prints a checksum so that
 * runs with and without the shim can be compared.  Exit 0 pass, 1 fail. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

extern const unsigned char gpu_kernels_fatbin[];

#define CHECK(call)                                                                          \
	do {                                                                                 \
		CUresult r_ = (call);                                                        \
		if (r_ != CUDA_SUCCESS) {                                                    \
			const char *s_ = "?";                                                \
			cuGetErrorName(r_, &s_);                                             \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);   \
			return 1;                                                            \
		}                                                                            \
	} while (0)

int main(void)
{
	enum { N = 1 << 20 };
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr dx, dy;
	float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), a = 3.0f;
	int n = N, bad = 0;
	double sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)(i % 1000), y[i] = (float)(i % 7);
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
	CHECK(cuModuleLoadData(&mod, gpu_kernels_fatbin));
	CHECK(cuModuleGetFunction(&fn, mod, "saxpy"));
	CHECK(cuMemAlloc(&dx, N * sizeof(float)));
	CHECK(cuMemAlloc(&dy, N * sizeof(float)));
	CHECK(cuMemcpyHtoD(dx, x, N * sizeof(float)));
	CHECK(cuMemcpyHtoD(dy, y, N * sizeof(float)));
	void *args[] = { &n, &a, &dx, &dy };
	CHECK(cuLaunchKernel(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	CHECK(cuCtxSynchronize());
	CHECK(cuMemcpyDtoH(y, dy, N * sizeof(float)));
	for (int i = 0; i < N; i++) {
		float want = a * (float)(i % 1000) + (float)(i % 7);
		bad += y[i] != want;
		sum += y[i];
	}
	CHECK(cuMemFree(dx));
	CHECK(cuMemFree(dy));
	CHECK(cuModuleUnload(mod));
	CHECK(cuCtxDestroy(ctx));
	printf("saxpy: n=%d checksum=%.1f mismatches=%d\n", N, sum, bad);
	free(x);
	free(y);
	return bad ? 1 : 0;
}
