/* The kernel drvrt.cu loads, built by tests/cli/check-cuda.sh into a
 * .fatbin file. */
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
