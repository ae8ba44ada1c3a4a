/* For secure.sh: loads a driver and cushim by absolute path (LD_PRELOAD and
 * LD_LIBRARY_PATH are not honoured under AT_SECURE), calls cuInit and
 * cuDeviceGet through cushim and prints AT_SECURE and the second result:
 * secure=S device=R */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/auxv.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	/* the driver first: cushim's dlopen("libcuda.so.1") finds it by soname */
	if (!dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL)) {
		printf("FAIL: %s\n", dlerror());
		return 3;
	}
	void *shim = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	int (*device_get)(int *, int) = shim ? (int (*)(int *, int))dlsym(shim, "cuDeviceGet") : NULL;
	int (*init)(unsigned int) = shim ? (int (*)(unsigned int))dlsym(shim, "cuInit") : NULL;
	if (!device_get || !init || init(0) != 0) {
		printf("FAIL: %s\n", dlerror());
		return 3;
	}
	int d = -1;
	int rc = device_get(&d, 0);
	printf("secure=%lu device=%d\n", getauxval(AT_SECURE), rc);
	return 0;
}
