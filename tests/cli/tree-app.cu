/* The program of the tree tests/cli/check-tree-cuda.sh gives cushim check:
 * it finds libk80.so (tree-lib.cu) only through its $ORIGIN rpath; never
 * run by the tests. */
int lib_launch(float *x);

int main(void)
{
	return lib_launch(0);
}
