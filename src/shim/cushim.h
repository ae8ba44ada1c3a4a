/* cushim's introspection API: what the bootstrap found, exported by
 * libcushim.so under these names for tools and tests (cushim doctor and
 * check dlopen the library in a child and ask it; a program can too, with
 * dlsym).  Each function runs the bootstrap first if nothing has called a
 * driver function yet, except cushim_bootstrap_times. */
#ifndef CUSHIM_H
#define CUSHIM_H
#include <stdint.h>

#define CUSHIM_PUBLIC __attribute__((visibility("default")))

/* One of the functions below in the library behind handle h (RTLD_DEFAULT
 * under LD_PRELOAD, or dlopen's), typed; NULL where cushim is not loaded. */
#define CUSHIM_FN(h, fn) ((__typeof__(&fn))dlsym(h, #fn))

/* The CUDA version the process sees (CUSHIM_DRIVER_VERSION when emulating),
 * and the one the driver reports; 0 when there is no driver or it would not say. */
CUSHIM_PUBLIC int cushim_driver_version(void);
CUSHIM_PUBLIC int cushim_real_driver_version(void);
/* How many exports the table has. */
CUSHIM_PUBLIC int cushim_symbol_count(void);
/* The driver's function behind an export, NULL if it is missing. */
CUSHIM_PUBLIC void *cushim_real_pointer(const char *name);
/* How long the bootstrap took (opening the driver, resolving the table) and
 * how many exports it resolved; -1 before it ran. */
CUSHIM_PUBLIC int cushim_bootstrap_times(uint64_t *find_ns, uint64_t *resolve_ns);
/* The driver or runtime file entry points are asked from now, and how
 * ("the driver's cuGetProcAddress_v2", "cudaGetDriverEntryPointByVersion" ...). */
CUSHIM_PUBLIC const char *cushim_driver_path(void);
CUSHIM_PUBLIC const char *cushim_entry_via(void);
/* How many exports resolved, and how many are missing. */
CUSHIM_PUBLIC int cushim_exports_resolved(void);
CUSHIM_PUBLIC int cushim_exports_missing(void);
/* 0 the driver's function, 1 an adapter, 2 missing, -1 not an export. */
CUSHIM_PUBLIC int cushim_export_state(const char *name);
/* "driver", "dlsym", "runtime", "" (missing or served by cushim), NULL (not an export). */
CUSHIM_PUBLIC const char *cushim_export_origin(const char *name);
/* Exports by origin: none, driver, dlsym, runtime. */
CUSHIM_PUBLIC void cushim_origin_counts(int counts[4]);
/* Who implements an export: an enum cushim_owner (src/common/owners.h:
 * 0 none, 1 the driver, 2 cushim's error table, 3 cushim's own answer, 4 an
 * adapter, 5-7 an explainer, 8 the runtime gate), -1 not an export. */
CUSHIM_PUBLIC int cushim_export_owner(const char *name);
#endif
