/* A helper for tests/blackbox/entry-points: a program that does not link libcuda.so.1 and
 * finds the driver API in the process's global scope (dlsym), as a plugin
 * host does, so that it is cushim (preloaded) that loads libcuda.so.1.
 * Prints "<function> <result>" per call; exits 0 unless a function is absent. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*fn1)(void *);

int main(void)
{
	static const char *const names[] = { "cuInit", "cuDriverGetVersion", "cuCtxGetCurrent" };
	long scratch[8] = { 0 };

	for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
		fn1 f = (fn1)dlsym(RTLD_DEFAULT, names[i]);
		if (!f) {
			printf("%s absent\n", names[i]);
			return 1;
		}
		printf("%s %d\n", names[i], f(i == 0 ? NULL : (void *)scratch));
		fflush(stdout);
	}
	return 0;
}
