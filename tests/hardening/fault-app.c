/* A program that is not linked against libcuda.so.1: it reaches the driver
 * API through the preloaded shim (dlsym(RTLD_DEFAULT)), or with the argument
 * "dlopen" through dlopen("libcuda.so.1") as a runtime does.  It makes four
 * calls and prints their results on one line:
 *   rc init=R version=R v=V device=R ctx=R
 * and exits 0 whatever they return: a fault must not stop the program. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*int_fn)(int);
typedef int (*intp_fn)(int *);
typedef int (*dev_fn)(int *, int);
typedef int (*ptr_fn)(void **);

int main(int argc, char **argv)
{
	void *h = RTLD_DEFAULT;
	if (argc > 1 && strcmp(argv[1], "dlopen") == 0 && !(h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
		printf("FAIL: dlopen libcuda.so.1: %s\n", dlerror());
		return 3;
	}
	int_fn init = (int_fn)dlsym(h, "cuInit");
	intp_fn version = (intp_fn)dlsym(h, "cuDriverGetVersion");
	dev_fn device = (dev_fn)dlsym(h, "cuDeviceGet");
	ptr_fn ctx = (ptr_fn)dlsym(h, "cuCtxGetCurrent");
	if (!init || !version || !device || !ctx) {
		printf("FAIL: no driver API here (is cushim preloaded?)\n");
		return 3;
	}
	int v = -1, d = -1;
	void *c = NULL;
	int r_init = init(0);
	int r_version = version(&v);
	int r_device = device(&d, 0);
	int r_ctx = ctx(&c);
	printf("rc init=%d version=%d v=%d device=%d ctx=%d\n", r_init, r_version, v, r_device, r_ctx);
	return 0;
}
