/* A CUDA runtime program with one kernel, built by make (tests/cli/local.mk)
 * in several ways (runtime linked statically or dynamically, SASS or PTX,
 * fatbin compressed or not) for tests/cli/check-cuda.sh and
 * check-tree-cuda.sh to give cushim check, and on a GPU by
 * tests/gpu/check-truth.sh, which holds check's verdict to its exit status:
 * 0 only when the kernel ran (a GPU with no code it can run fails the
 * launch, and so the program). */
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
	cudaError_t launch = cudaGetLastError(), done = cudaDeviceSynchronize();
	printf("%s\n", cudaGetErrorString(launch != cudaSuccess ? launch : done));
	return launch != cudaSuccess || done != cudaSuccess;
}
