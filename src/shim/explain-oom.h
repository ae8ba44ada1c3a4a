/* Out of memory (explain-oom.c): the allocators' wrappers as claims
 * (owners.h), and with count the frees' and the count of what the process
 * holds. */
#ifndef CUSHIM_EXPLAIN_OOM_H
#define CUSHIM_EXPLAIN_OOM_H
#include "owners.h"
#include <stddef.h>

size_t cushim_oom_claims(struct cushim_claim *c, int count) CUSHIM_HIDDEN;
#endif
