/* The bootstrap's parts, private to them: boot.c (the sequence, the slots),
 * state.c (what it found), source.c (where entry points come from),
 * masquerade.c (cushim as the process's libcuda.so.1), answer.c and
 * integrity.c (cushim's own answers). */
#ifndef CUSHIM_BOOT_H
#define CUSHIM_BOOT_H
#include "table.h"
#include "slots.h"
#include "state.h"

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

/* source.c */
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

/* masquerade.c */
int cushim_is_process_driver(void);
int cushim_open_real_driver(struct cushim_source *src);

/* interpose.c: another preloaded library that defines driver functions;
 * how many exports of f now go on through it */
int cushim_interposer_route(struct cushim_findings *f, const struct cushim_source *driver, int masquerade);

/* answer.c: cushim's own versions of a few exports */
CUresult CUDAAPI cushim_own_cuDriverGetVersion(int *version);
CUresult CUDAAPI cushim_own_cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult CUDAAPI cushim_own_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						CUdriverProcAddressQueryResult *status);

/* integrity.c: the runtime's validity check under emulation */
CUresult CUDAAPI cushim_own_cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId);

/* boot.c */
void cushim_adopt_runtime(void);
#endif
