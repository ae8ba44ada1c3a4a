/* When CUDA cannot start (explain-init.c): cuInit's failure, and the
 * context creators' wrappers as claims (owners.h). */
#ifndef CUSHIM_EXPLAIN_INIT_H
#define CUSHIM_EXPLAIN_INIT_H
#include "table.h"
#include "owners.h"
#include <stddef.h>

/* cuInit returned r (own_cuInit calls it with what the driver returned). */
void cushim_init_failed(CUresult r) CUSHIM_HIDDEN;
size_t cushim_start_claims(struct cushim_claim *c) CUSHIM_HIDDEN;
#endif
