/* Introspection for tools: what the bootstrap found, read through exported
 * cushim_* functions so that `cushim doctor` and `cushim check` can dlopen
 * libcushim.so and ask it, without knowing the layout of cushim_state.
 * Each function runs the bootstrap first if nothing has called a driver
 * function yet (cushim_driver_version does that). */
#include "cushim-internal.h"

CUSHIM_API int cushim_driver_version(void); /* boot.c */

/* The CUDA version the driver reports itself, before any emulation; 0 when
 * there is no driver or it would not say. */
CUSHIM_API int cushim_real_driver_version(void);
int cushim_real_driver_version(void)
{
	cushim_driver_version();
	return cushim_state.real_driver_version;
}

/* The runtime or driver file the entry points came from; "" when none. */
CUSHIM_API const char *cushim_driver_path(void);
const char *cushim_driver_path(void)
{
	cushim_driver_version();
	return cushim_state.path;
}

/* How the entry points were found ("cudaGetDriverEntryPointByVersion", "the
 * driver's cuGetProcAddress_v2", ...); NULL when nothing was usable. */
CUSHIM_API const char *cushim_entry_via(void);
const char *cushim_entry_via(void)
{
	cushim_driver_version();
	return cushim_state.via;
}

/* How many exports the bootstrap resolved and how many are missing. */
CUSHIM_API int cushim_exports_resolved(void);
int cushim_exports_resolved(void)
{
	cushim_driver_version();
	return cushim_state.resolved;
}

CUSHIM_API int cushim_exports_missing(void);
int cushim_exports_missing(void)
{
	cushim_driver_version();
	return cushim_state.missing;
}

/* What stands behind an export: 0 the driver's function, 1 an adapter that
 * serves it with an older variant, 2 nothing (missing), -1 not an export. */
CUSHIM_API int cushim_export_state(const char *name);
int cushim_export_state(const char *name)
{
	int i = cushim_lookup_index(name);
	if (i < 0)
		return -1;
	cushim_driver_version();
	return cushim_real[i] ? 0 : cushim_impl[i] ? 1 : 2;
}
