/* A CUDA runtime program with one kernel, built by tests/cli/check-cuda.sh
 * in several ways (runtime linked statically or dynamically, SASS or PTX)
 * for cushim check to judge; never run by the tests. */
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
