/* Where entry points come from (source.c): the driver opened, a runtime
 * loaded, and one lookup through either. */
#ifndef CUSHIM_SOURCE_H
#define CUSHIM_SOURCE_H
#include "table.h"
#include "state.h"
#include <stddef.h>

/* How an entry-point source is asked. */
enum cushim_via {
	CUSHIM_VIA_NONE,
	CUSHIM_VIA_BYVERSION, /* a runtime's cudaGetDriverEntryPointByVersion */
	CUSHIM_VIA_GPA2,      /* cuGetProcAddress_v2 (the driver's, or a runtime's) */
	CUSHIM_VIA_GPA1,      /* cuGetProcAddress (11.3 to 11.8) */
	CUSHIM_VIA_DLSYM,     /* the driver's own symbol of the exact ABI name */
};

struct cushim_source {
	enum cushim_via via;
	void *fn;             /* the lookup function; NULL for CUSHIM_VIA_DLSYM */
	void *handle;         /* the driver (for CUSHIM_VIA_DLSYM) */
	enum cushim_origin origin;
	const char *how;      /* "the driver's cuGetProcAddress_v2", ... */
	char path[4096];
};

/* The outcome of one lookup. */
enum cushim_found { CUSHIM_FOUND, CUSHIM_NOT_FOUND, CUSHIM_TOO_OLD, CUSHIM_FAILED };

void cushim_find_self(void);
int cushim_inside_self(const void *p);
const char *cushim_self_path(void);
enum cushim_found cushim_source_lookup(const struct cushim_source *src, unsigned i, void **out);
unsigned long cushim_lookups_made(void); /* by every thread so far: the bootstrap's progress */
int cushim_driver_source(void *handle, const char *path, struct cushim_source *src);
int cushim_open_driver(struct cushim_source *src);
int cushim_open_runtime(struct cushim_source *src);
/* each(h, ctx) for each CUDA runtime the process has loaded: the one whose
 * cudaGetDriverEntryPoint the global scope finds, then each loaded
 * privately, by soname; h is a handle of the walk's own, closed after.
 * The first non-zero answer ends the walk and is returned. */
int cushim_each_loaded_runtime(int (*each)(void *h, void *ctx), void *ctx);
int cushim_runtime_loaded(void);
/* Is the calling thread inside a loaded runtime (path: which)? */
int cushim_runtime_on_stack(char *path, size_t size);
#endif
