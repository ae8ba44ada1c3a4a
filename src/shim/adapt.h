/* Downgrade adapters: a newer ABI variant that the driver lacks,
 * served by an older variant that the driver has, for the calls whose
 * arguments mean exactly the same to both.  doc/ADAPTERS.md is the reviewed
 * table: every candidate, the condition, the translation and the sentence of
 * the CUDA documentation it rests on, and the candidates judged impossible. */
#ifndef CUSHIM_ADAPT_H
#define CUSHIM_ADAPT_H
#include "table.h"
#include "adapters.h"
#include "owners.h"
#include <stddef.h>

/* At the end of the bootstrap, after cushim_real[] is filled and before the
 * slots are set: a claim (owners.h) into c for every adapted export that the
 * driver lacks, is not hidden, and whose older variant the driver has, its
 * adapter to serve it; their number (at most CUSHIM_NSYMS).  None when
 * CUSHIM_ADAPT=0. */
size_t cushim_adapt_claims(struct cushim_claim *c) CUSHIM_HIDDEN;

/* The adapter function behind an export, NULL if it has none (for tests and
 * for the bootstrap's wiring). */
void *cushim_adapter_for(unsigned i) CUSHIM_HIDDEN;

#endif
