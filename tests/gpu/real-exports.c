/* On a real driver, under LD_PRELOAD=libcushim.so: for every export, the
 * function cushim forwards to is the one the driver exports under that same
 * name (dlsym on the driver's own handle), and an export the driver lacks is
 * missing in cushim too.  Exit 0 pass, 1 fail, 77 no GPU / no shim. */
#include "table.h"
#include "cushim.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	__typeof__(&cushim_real_pointer) shim_real = CUSHIM_FN(RTLD_DEFAULT, cushim_real_pointer);
	__typeof__(&cushim_driver_version) shim_version = CUSHIM_FN(RTLD_DEFAULT, cushim_driver_version);
	int same = 0, both_missing = 0, bad = 0, drv_version = 0;

	if (!drv || !shim_real || !shim_version) {
		fprintf(stderr, "real-exports: needs the real driver and LD_PRELOAD=libcushim.so\n");
		return 77;
	}
	((int (*)(int *))dlsym(drv, "cuDriverGetVersion"))(&drv_version);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		const char *name = cushim_syms[i].name;
		void *want = dlsym(drv, name), *got = shim_real(name);
		if (want && cushim_syms[i].version > drv_version)
			want = NULL; /* newer than this driver: cushim must not have asked */
		if (want == got) {
			if (want)
				same++;
			else
				both_missing++, printf("missing in both: %s\n", name);
		} else {
			bad++;
			printf("MISMATCH %s: driver %p, cushim %p\n", name, want, got);
		}
	}
	printf("real-exports: driver %d, cushim sees %d; %d of %d exports forward to the driver's function of "
	       "the same name, %d missing in both, %d mismatches\n", drv_version, shim_version(), same,
	       CUSHIM_NSYMS, both_missing, bad);
	return bad || shim_version() != drv_version ? 1 : 0;
}
