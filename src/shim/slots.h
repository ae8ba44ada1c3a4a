/* The slots the exported stubs jump through (cushim-stubs.S, stubs.c) and
 * the bootstrap that fills them (boot.c).  What the driver gave, what
 * implements each export, and the rest the bootstrap found, is state.h's;
 * the trace wrappers are the diagnostics' (observers.h). */
#ifndef CUSHIM_SLOTS_H
#define CUSHIM_SLOTS_H
#include "table.h"

/* What each exported stub calls (NULL until resolved). */
extern void *cushim_slot[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *const cushim_stub[CUSHIM_NSYMS] CUSHIM_HIDDEN;   /* the exported stubs */
void *cushim_resolve(unsigned i) CUSHIM_HIDDEN;
void cushim_boot(void) CUSHIM_HIDDEN;   /* runs the bootstrap unless it ran */
void *cushim_slot_acquire(unsigned i) CUSHIM_HIDDEN; /* the stubs' load, in a ThreadSanitizer build */

#endif
