/* Opens a CUDA runtime by path and asks it for the device count and the
 * driver's version: "count RESULT N driver VERSION".  Exit 2 when the runtime
 * cannot be opened. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *rt = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*count)(int *), (*driver)(int *);
	int n = -1, v = -1, r;

	if (!rt) {
		fprintf(stderr, "usage: rt-count LIBCUDART (%s)\n", argc == 2 ? dlerror() : "no path");
		return 2;
	}
	*(void **)&count = dlsym(rt, "cudaGetDeviceCount");
	*(void **)&driver = dlsym(rt, "cudaDriverGetVersion");
	if (!count || !driver) {
		fprintf(stderr, "rt-count: %s is no CUDA runtime\n", argv[1]);
		return 2;
	}
	r = count(&n);
	driver(&v);
	printf("count %d %d driver %d\n", r, n, v);
	return 0;
}
