/* Exit 0 when a CUDA driver with at least one device is here, 77 (Automake's
 * skip) when there is none, or 99 with CUSHIM_TEST_REQUIRE_GPU=1 set.
 * It opens the driver with dlopen, so it runs on machines without one. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const char *req = getenv("CUSHIM_TEST_REQUIRE_GPU");
	int require = req && strcmp(req, "1") == 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(unsigned), (*count)(int *);
	int n = 0;
	const char *why = NULL;

	if (!h)
		why = "no libcuda.so.1";
	else if (!(init = (int (*)(unsigned))dlsym(h, "cuInit")) ||
		 !(count = (int (*)(int *))dlsym(h, "cuDeviceGetCount")))
		why = "libcuda.so.1 lacks cuInit";
	else if (init(0) != 0 || count(&n) != 0 || n < 1)
		why = "no CUDA device";
	if (!why) {
		printf("%d\n", n);
		return 0;
	}
	fprintf(stderr, "have-gpu: %s%s\n", why, require ? " (CUSHIM_TEST_REQUIRE_GPU=1: failing)" : "; skipping");
	return require ? 99 : 77;
}
