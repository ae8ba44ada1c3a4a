/* In the manner of NVIDIA's simpleDrvRuntime sample: the CUDA runtime
 * allocates, the driver API loads a fatbin file (vadd.cu, built with
 * -fatbin) and launches its kernel.  Built by make (tests/cli/local.mk) for
 * tests/cli/check-cuda.sh to give cushim check; never run by the tests. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	static char image[1 << 20];
	FILE *f = fopen(argc > 1 ? argv[1] : "vadd.fatbin", "rb");
	if (!f || fread(image, 1, sizeof image, f) == 0)
		return 2;
	fclose(f);
	int n = 1024;
	float *a, *b, *c;
	if (cudaMalloc(&a, n * sizeof *a) != cudaSuccess || cudaMalloc(&b, n * sizeof *b) != cudaSuccess ||
	    cudaMalloc(&c, n * sizeof *c) != cudaSuccess)
		return 1;
	CUmodule mod;
	CUfunction fn;
	if (cuModuleLoadData(&mod, image) != CUDA_SUCCESS || cuModuleGetFunction(&fn, mod, "vadd") != CUDA_SUCCESS)
		return 1;
	void *args[] = { &a, &b, &c, &n };
	cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, NULL);
	printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
	return 0;
}
