/* A CUDA runtime program with one kernel, built by make (tests/cli/local.mk)
 * in several ways (runtime linked statically or dynamically, SASS or PTX,
 * fatbin compressed or not) for tests/cli/check-cuda.sh and
 * check-tree-cuda.sh to give cushim check; never run by the tests. */
#include <cstdio>

__global__ void add_one(int *x)
{
	x[threadIdx.x] += 1;
}

int main()
{
	int *d;
	if (cudaMalloc(&d, 64 * sizeof *d) != cudaSuccess)
		return 1;
	add_one<<<1, 64>>>(d);
	printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
	return 0;
}
