/* The slots the exported stubs jump through (cushim-stubs.S, stubs.c), what
 * the driver gave and what implements each export, and the bootstrap that
 * fills them (boot.c). */
#ifndef CUSHIM_SLOTS_H
#define CUSHIM_SLOTS_H
#include "table.h"

/* What each exported stub calls (NULL until resolved), and what the driver gave. */
extern void *cushim_slot[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *cushim_real[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* What implements each export: cushim's own function, the driver's, or NULL
 * when it is missing; the trace wrappers call through it. */
extern void *cushim_impl[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *const cushim_stub[CUSHIM_NSYMS] CUSHIM_HIDDEN;   /* the exported stubs */
extern void *const cushim_tracer[CUSHIM_NSYMS] CUSHIM_HIDDEN; /* their trace wrappers */
void *cushim_resolve(unsigned i) CUSHIM_HIDDEN;
void cushim_boot(void) CUSHIM_HIDDEN;   /* runs the bootstrap unless it ran */
int cushim_booted(void) CUSHIM_HIDDEN;
/* Where each export's driver function came from. */
enum cushim_origin {
	CUSHIM_FROM_NONE,    /* missing, or served by cushim alone */
	CUSHIM_FROM_DRIVER,  /* the driver's cuGetProcAddress(_v2) */
	CUSHIM_FROM_DLSYM,   /* the driver's symbol of that name (no cuGetProcAddress) */
	CUSHIM_FROM_RUNTIME, /* a runtime's cudaGetDriverEntryPoint(ByVersion) */
	CUSHIM_NORIGINS
};
extern unsigned char cushim_origin[CUSHIM_NSYMS] CUSHIM_HIDDEN;
void *cushim_slot_acquire(unsigned i) CUSHIM_HIDDEN; /* the stubs' load, in a ThreadSanitizer build */
CUresult cushim_missing_call(unsigned i) CUSHIM_HIDDEN;

/* What the bootstrap found (boot.c), for the introspection API. */
struct cushim_state {
	int driver_version;        /* as the process sees it (emulated if asked) */
	int real_driver_version;   /* as the driver reports it; 0 if unknown */
	const char *via;           /* how entry points are asked now: "the driver's cuGetProcAddress_v2", ... */
	char path[4096];           /* the driver or runtime file asked */
	int resolved, missing, adapted;
	int tracing;               /* the slots hold the trace wrappers */
	uint64_t find_ns, resolve_ns; /* bootstrap: finding the entry points, resolving the table */
};
extern struct cushim_state cushim_state CUSHIM_HIDDEN;

#endif
