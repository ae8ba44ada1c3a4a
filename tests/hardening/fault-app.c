/* A program that is not linked against libcuda.so.1: it reaches the driver
 * API through the preloaded shim (dlsym(RTLD_DEFAULT)), or with the argument
 * "dlopen" through dlopen("libcuda.so.1") as a runtime does.  It makes four
 * calls and prints their results on one line:
 *   rc init=R version=R v=V device=R ctx=R
 * and exits 0 whatever they return: a fault must not stop the program.
 * With "errors" in its argument ("errors", "dlopen-errors") it then asks
 * cuGetErrorName and cuGetErrorString for each code cushim returns itself,
 * one line each:
 *   err CODE NAME_RC NAME STRING_RC STRING
 * (a NULL string printed as "(null)"). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*int_fn)(int);
typedef int (*intp_fn)(int *);
typedef int (*dev_fn)(int *, int);
typedef int (*ptr_fn)(void **);

typedef int (*str_fn)(int, const char **);

/* Success, invalid value, not initialised, requires a newer driver, no
 * device, not found: what cushim answers of its own; and unknown. */
static void print_errors(void *h)
{
	static const int codes[] = { 0, 1, 3, 36, 100, 500, 999 };
	str_fn name = (str_fn)dlsym(h, "cuGetErrorName"), string = (str_fn)dlsym(h, "cuGetErrorString");
	for (size_t i = 0; name && string && i < sizeof codes / sizeof *codes; i++) {
		const char *n = NULL, *s = NULL;
		int rn = name(codes[i], &n), rs = string(codes[i], &s);
		printf("err %d %d %s %d %s\n", codes[i], rn, n ? n : "(null)", rs, s ? s : "(null)");
	}
}

int main(int argc, char **argv)
{
	void *h = RTLD_DEFAULT;
	if (argc > 1 && strstr(argv[1], "dlopen") && !(h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
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
	if (argc > 1 && strstr(argv[1], "errors"))
		print_errors(h);
	return 0;
}
