/* The driver's own cost of a first call when nothing has loaded it yet: the
 * time to load libcuda.so.1 (as the loader finds it) and make its first
 * call, cuDriverGetVersion. In masquerade, cushim loads the real driver at
 * the program's first call, where a program linked to the driver loaded it
 * at start; fork.sh measures cushim's masquerade against this. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void)
{
	int v = 0;
	double t0 = now_us();
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*version)(int *) = h ? (int (*)(int *))dlsym(h, "cuDriverGetVersion") : NULL;
	int rc = version ? version(&v) : -1;
	double t1 = now_us();

	if (rc != 0) {
		fprintf(stderr, "load-probe: cannot load libcuda.so.1 and call cuDriverGetVersion: %s\n",
			h ? "the call failed" : dlerror());
		return 1;
	}
	printf("cuDriverGetVersion=%d (%d)\n", rc, v);
	fprintf(stderr, "time: first call %.1f us\n", t1 - t0);
	return 0;
}
