// sticky-gpu's kernels: one that works, one that writes through a wild
// pointer (CUDA_ERROR_ILLEGAL_ADDRESS) and one whose assertion fails
// (CUDA_ERROR_ASSERT).
#include <assert.h>

extern "C" __global__ void fill(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = (float)i;
}

extern "C" __global__ void write_wild(int *p)
{
	*(volatile int *)((char *)p + (1ull << 46)) = 1;
}

extern "C" __global__ void assert_fails(int v)
{
	assert(v == 0);
}
