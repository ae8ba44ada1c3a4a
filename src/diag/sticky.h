/* A sticky error explained (sticky.c). */
#ifndef CUSHIM_STICKY_H
#define CUSHIM_STICKY_H
#include "table.h"

/* The codes a faulting kernel leaves on its context. */
static inline int cushim_sticky_code(CUresult r)
{
	return r == 700 || r == 710 || (r >= 714 && r <= 717) || r == 719 || r == 720;
}
/* Export i returned the sticky r at tick at: said once per context, with
 * the kernels in flight where recording (the rings hold them). */
void cushim_sticky(unsigned i, CUresult r, uint64_t at, int recording) CUSHIM_HIDDEN;
#endif
