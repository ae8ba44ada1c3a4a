/* sticky.sh's program on a real GPU: a kernel that works, launched and
 * synchronised; then, on two streams, fill (64 blocks), the faulty kernel
 * ("wild": a write through a wild pointer; "assert": a failed assertion),
 * and fill again (32 blocks); then cuCtxSynchronize, whose result it
 * prints ("sync RC"). */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

extern const unsigned char sticky_kernels_fatbin[];

#define CHECK(x)                                                            \
	do {                                                                \
		CUresult r_ = (x);                                          \
		if (r_ != CUDA_SUCCESS) {                                   \
			fprintf(stderr, "%s: %d\n", #x, (int)r_);           \
			return 1;                                           \
		}                                                           \
	} while (0)

int main(int argc, char **argv)
{
	int assert_mode = argc > 1 && strcmp(argv[1], "assert") == 0, n = 1 << 14, one = 1;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fill, bad;
	CUstream s1, s2;
	CUdeviceptr buf;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, sticky_kernels_fatbin));
	CHECK(cuModuleGetFunction(&fill, mod, "fill"));
	CHECK(cuModuleGetFunction(&bad, mod, assert_mode ? "assert_fails" : "write_wild"));
	CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CHECK(cuMemAlloc(&buf, (size_t)n * 4));
	void *fargs[] = { &buf, &n }, *bargs[] = { assert_mode ? (void *)&one : (void *)&buf };
	CHECK(cuLaunchKernel(fill, 16, 1, 1, 256, 1, 1, 0, s1, fargs, NULL));
	CHECK(cuCtxSynchronize()); /* completed without error: not in flight after this */
	CHECK(cuLaunchKernel(fill, 64, 1, 1, 256, 1, 1, 0, s1, fargs, NULL));
	CHECK(cuLaunchKernel(bad, 1, 1, 1, 32, 1, 1, 0, s2, bargs, NULL));
	cuLaunchKernel(fill, 32, 1, 1, 256, 1, 1, 0, s1, fargs, NULL);
	printf("sync %d\n", (int)cuCtxSynchronize());
	fflush(stdout);
	return 0;
}
