/* A program that carries a CUDA 13.0 runtime linked statically, as far as
 * its marks go (the runtime's error text and nvcc's release line, which
 * cushim check reads too), and asks libcuda.so.1 for the driver's version as
 * that runtime does.  Prints the version answered. */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((used)) static const char runtime_marks[] =
	"CUDA driver version is insufficient for CUDA runtime version\0"
	"Cuda compilation tools, release 13.0, V13.0.48";

int main(void)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	int (*version)(int *) = drv ? (int (*)(int *))dlsym(drv, "cuDriverGetVersion") : NULL;
	int v = 0;
	if (!version || version(&v) != 0)
		return 1;
	printf("driver %d\n", v);
	return 0;
}
