/* Introspection for tools: what the bootstrap found, read through exported
 * cushim_* functions so that `cushim doctor` and `cushim check` can dlopen
 * libcushim.so and ask it, without knowing the layout of cushim_state.
 * Each function runs the bootstrap first if nothing has called a driver
 * function yet (cushim_driver_version does that). */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "cushim.h"

/* The CUDA version the process sees (CUSHIM_DRIVER_VERSION when emulating). */
int cushim_driver_version(void)
{
	cushim_boot();
	return cushim_state.driver_version;
}

int cushim_symbol_count(void)
{
	return CUSHIM_NSYMS;
}

/* The driver's function behind an export, NULL if it is missing. */
void *cushim_real_pointer(const char *name)
{
	int i = cushim_lookup_index(name);
	if (i < 0)
		return NULL;
	cushim_boot();
	return cushim_real[i];
}

/* How long the bootstrap took: opening the driver, and resolving the table;
 * -1 before it ran. */
int cushim_bootstrap_times(uint64_t *find_ns, uint64_t *resolve_ns)
{
	if (!cushim_booted())
		return -1;
	*find_ns = cushim_state.find_ns;
	*resolve_ns = cushim_state.resolve_ns;
	return cushim_state.resolved;
}

/* The CUDA version the driver reports itself, before any emulation; 0 when
 * there is no driver or it would not say. */
int cushim_real_driver_version(void)
{
	cushim_boot();
	return cushim_state.real_driver_version;
}

/* The driver or runtime file entry points are asked from now; "" when none. */
const char *cushim_driver_path(void)
{
	cushim_boot();
	return cushim_state.path;
}

/* How entry points are asked now ("the driver's cuGetProcAddress_v2" before
 * the driver is initialised, "cudaGetDriverEntryPointByVersion" after a
 * runtime was adopted, ...); NULL when nothing was usable. */
const char *cushim_entry_via(void)
{
	cushim_boot();
	return cushim_state.via;
}

/* How many exports the bootstrap resolved and how many are missing. */
int cushim_exports_resolved(void)
{
	cushim_boot();
	return cushim_state.resolved;
}

int cushim_exports_missing(void)
{
	cushim_boot();
	return cushim_state.missing;
}

/* What stands behind an export: 0 the driver's function, 1 an adapter that
 * serves it with an older variant, 2 nothing (missing), -1 not an export. */
int cushim_export_state(const char *name)
{
	int i = cushim_lookup_index(name);
	if (i < 0)
		return -1;
	cushim_boot();
	return cushim_real[i] ? 0 : cushim_impl[i] ? 1 : 2;
}

/* Where an export's driver function came from: "driver" (its
 * cuGetProcAddress), "dlsym" (its symbol of that name), "runtime" (a
 * runtime's entry-point API), "" (missing or served by cushim), NULL (not an
 * export). */
const char *cushim_export_origin(const char *name)
{
	static const char *const names[CUSHIM_NORIGINS] = { "", "driver", "dlsym", "runtime" };
	int i = cushim_lookup_index(name);
	if (i < 0)
		return NULL;
	cushim_boot();
	return names[cushim_origin[i] < CUSHIM_NORIGINS ? cushim_origin[i] : 0];
}

int cushim_export_owner(const char *name)
{
	int i = cushim_lookup_index(name);
	if (i < 0)
		return -1;
	cushim_boot();
	return cushim_owner[i];
}

/* How many exports came from each origin (as cushim_export_origin names
 * them): counts[0..3] for none, driver, dlsym, runtime. */
void cushim_origin_counts(int counts[4])
{
	cushim_boot();
	for (int k = 0; k < CUSHIM_NORIGINS; k++)
		counts[k] = 0;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		counts[cushim_origin[i] < CUSHIM_NORIGINS ? cushim_origin[i] : 0]++;
}
