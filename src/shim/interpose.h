/* Another preloaded library that defines driver functions (interpose.c). */
#ifndef CUSHIM_INTERPOSE_H
#define CUSHIM_INTERPOSE_H
#include "source.h"
#include "state.h"

/* How many exports of f now go on through such a library. */
int cushim_interposer_route(struct cushim_findings *f, const struct cushim_source *driver, int masquerade);
#endif
