/* Every export's target on a real driver: the program's import is bound to
 * cushim's export, and the function cushim forwards it to is exactly
 * dlsym(driver, that name), or nothing where the driver has no such name. */
#include "realdrv.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct realdrv_shim realdrv_shim;
void *realdrv_drv;
int realdrv_failures;

void realdrv_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	realdrv_failures++;
}

#define SHIM_FN(field) (realdrv_shim.field = CUSHIM_FN(RTLD_DEFAULT, cushim_##field))

/* The driver the program linked, and cushim's introspection; 0 without them. */
int realdrv_open(void)
{
	realdrv_drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!realdrv_drv) {
		fprintf(stderr, "realdrv: libcuda.so.1 is not loaded: %s\n", dlerror());
		return 0;
	}
	if (!SHIM_FN(driver_version) || !SHIM_FN(real_driver_version) || !SHIM_FN(real_pointer) ||
	    !SHIM_FN(export_state) || !SHIM_FN(export_origin) || !SHIM_FN(origin_counts) || !SHIM_FN(entry_via) ||
	    !SHIM_FN(driver_path) || !SHIM_FN(exports_resolved) || !SHIM_FN(exports_missing)) {
		fprintf(stderr, "realdrv: run it with LD_PRELOAD=libcushim.so (a cushim_* function is missing)\n");
		return 0;
	}
	return 1;
}

/* The export as the process finds it: the program's import, else by name. */
void *realdrv_export(const struct realdrv_import *imp)
{
	return imp->fn ? (void *)imp->fn : dlsym(RTLD_DEFAULT, imp->name);
}

/* The program's import, and the name, are cushim's export. */
static void check_binding(const struct realdrv_import *imp, struct realdrv_counts *c)
{
	void *global = dlsym(RTLD_DEFAULT, imp->name);
	Dl_info in_shim, info;

	if (!dladdr(*(void **)&realdrv_shim.driver_version, &in_shim))
		in_shim.dli_fbase = NULL;
	if (global && dladdr(global, &info) && info.dli_fbase == in_shim.dli_fbase)
		c->in_shim++;
	else
		realdrv_fail("%s: the process finds it at %p, outside cushim", imp->name, global);
	if (!imp->fn)
		return;
	c->imported++;
	if ((void *)imp->fn == global)
		c->bound++;
	else
		realdrv_fail("%s: the program's import %p is not cushim's export %p", imp->name, (void *)imp->fn,
			     global);
}

/* The target is the driver's function of the export's exact name. */
static void check_target(const char *name, struct realdrv_counts *c, const char *want_origin)
{
	int state = realdrv_shim.export_state(name);
	void *got = realdrv_shim.real_pointer(name), *want = dlsym(realdrv_drv, name);
	const char *origin = realdrv_shim.export_origin(name);

	if (state == 0) {
		c->resolved++;
		if (got && got == want)
			c->exact++;
		else
			realdrv_fail("%s: cushim forwards to %p, dlsym(driver, \"%s\") is %p", name, got, name, want);
		if (want_origin && (!origin || strcmp(origin, want_origin) != 0))
			realdrv_fail("%s came from \"%s\", not \"%s\"", name, origin ? origin : "(null)", want_origin);
		return;
	}
	if (state != 1 && state != 2) {
		realdrv_fail("%s: cushim does not know it as an export (state %d)", name, state);
		return;
	}
	state == 1 ? c->adapted++ : c->missing++;
	if (got)
		realdrv_fail("%s: %s, yet cushim names a driver function %p", name, state == 1 ? "adapted" : "missing",
			     got);
	if (want)
		realdrv_fail("%s: the driver has it (%p), cushim calls it %s", name, want,
			     state == 1 ? "adapted" : "missing");
}

void realdrv_check_exports(struct realdrv_counts *c, const char *want_origin)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < realdrv_nimports; i++) {
		check_binding(&realdrv_imports[i], c);
		check_target(realdrv_imports[i].name, c, want_origin);
	}
	realdrv_shim.origin_counts(c->by_origin);
	if (c->resolved != realdrv_shim.exports_resolved())
		realdrv_fail("%d exports resolved here, cushim counts %d", c->resolved, realdrv_shim.exports_resolved());
}

/* Call every missing export twice, with no arguments (a missing export never
 * reads them): each call must return 36.  Never a multicast one, even
 * missing (this may run on a shared GPU machine).  Returns how many were
 * called. */
int realdrv_call_missing(void)
{
	int n = 0;

	for (int i = 0; i < realdrv_nimports; i++) {
		const struct realdrv_import *imp = &realdrv_imports[i];
		int (*f)(void) = (int (*)(void))realdrv_export(imp);
		if (!f || realdrv_shim.export_state(imp->name) != 2 || strncmp(imp->name, "cuMulticast", 11) == 0)
			continue;
		int a = f(), b = f();
		if (a != 36 || b != 36)
			realdrv_fail("%s is missing but returned %d, then %d (not 36)", imp->name, a, b);
		n++;
	}
	return n;
}

/* One line per export: its name, state, and target as file+offset (the same
 * in every process on one driver), for comparing two runs. */
int realdrv_dump(const char *path)
{
	FILE *f = fopen(path, "w");
	Dl_info info;

	if (!f) {
		perror(path);
		return 0;
	}
	for (int i = 0; i < realdrv_nimports; i++) {
		const char *name = realdrv_imports[i].name;
		void *p = realdrv_shim.real_pointer(name);
		fprintf(f, "%s %d ", name, realdrv_shim.export_state(name));
		if (p && dladdr(p, &info) && info.dli_fname) {
			const char *base = strrchr(info.dli_fname, '/');
			fprintf(f, "%s+%#lx\n", base ? base + 1 : info.dli_fname,
				(unsigned long)((char *)p - (char *)info.dli_fbase));
		} else {
			fprintf(f, "%s\n", p ? "?" : "-");
		}
	}
	return fclose(f) == 0;
}
