/* A runtime that refuses the driver cushim answers for (explain-runtime.c):
 * in masquerade, cuDriverGetVersion's answer judged against the runtimes
 * loaded; its claim wraps whatever answered it. */
#ifndef CUSHIM_EXPLAIN_RUNTIME_H
#define CUSHIM_EXPLAIN_RUNTIME_H
#include "owners.h"
#include <stddef.h>

size_t cushim_runtime_gate_claims(struct cushim_claim *c) CUSHIM_HIDDEN;
#endif
