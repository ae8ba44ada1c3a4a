/* A library with its own kernel, built by make (tests/cli/local.mk) into
 * the tree tests/cli/check-tree-cuda.sh gives cushim check: libk80.so (SASS
 * for sm_80 alone) and libkptx.so (PTX alone); never run by the tests. */
__global__ void lk(float *x)
{
	x[threadIdx.x] += 1;
}

int lib_launch(float *x)
{
	lk<<<1, 1>>>(x);
	return 0;
}
