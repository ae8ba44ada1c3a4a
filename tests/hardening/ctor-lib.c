/* A library whose constructor calls the driver API before main (and, as a
 * dependency loaded after the preloaded shim, before cushim's own
 * constructor runs): cushim must bootstrap correctly from there. */
#include <dlfcn.h>
#include <stdio.h>
#include "cuda.h"

int ctor_init = -1, ctor_version = -1, ctor_v = -1, ctor_device = -1, ctor_lookups = -1;

__attribute__((constructor)) static void calls_before_main(void)
{
	CUdevice d;
	ctor_init = cuInit(0);
	ctor_version = cuDriverGetVersion(&ctor_v);
	ctor_device = cuDeviceGet(&d, 0);
	/* how many lookups the fake driver saw: the bootstrap ran here */
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int (*total)(void) = h ? (int (*)(void))dlsym(h, "fake_lookups_total") : NULL;
	ctor_lookups = total ? total() : -2;
}
