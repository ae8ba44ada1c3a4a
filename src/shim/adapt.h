/* Downgrade adapters: a newer ABI variant that the driver lacks,
 * served by an older variant that the driver has, for the calls whose
 * arguments mean exactly the same to both.  doc/ADAPTERS.md is the reviewed
 * table: every candidate, the condition, the translation and the sentence of
 * the CUDA documentation it rests on, and the candidates judged impossible. */
#ifndef CUSHIM_ADAPT_H
#define CUSHIM_ADAPT_H
#include "table.h"
#include "adapters.h"

/* At the end of the bootstrap, after cushim_real[] is filled and before the
 * slots are set: for every adapted export that the driver lacks, is not
 * hidden, and whose older variant the driver has, cushim_impl[i] becomes its
 * adapter (and nothing else changes).  Nothing when enabled is 0 or when
 * CUSHIM_ADAPT=0. */
void cushim_adapt_install(int enabled) CUSHIM_HIDDEN;

/* The adapter function behind an export, NULL if it has none (for tests and
 * for the bootstrap's wiring). */
void *cushim_adapter_for(unsigned i) CUSHIM_HIDDEN;

#endif
