/* The kernel drvrt.cu loads, built by make (tests/cli/local.mk) into .fatbin,
 * .cubin and PTX files for tests/cli/check-cuda.sh and check-tree-cuda.sh. */
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
