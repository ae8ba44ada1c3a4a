/* A module image the GPU cannot run (explain-module.c): the wrappers of
 * the module, library and link loaders, as claims (owners.h) into c; their
 * number, at most CUSHIM_MAX_CLAIMS. */
#ifndef CUSHIM_EXPLAIN_MODULE_H
#define CUSHIM_EXPLAIN_MODULE_H
#include "owners.h"
#include <stddef.h>

size_t cushim_module_claims(struct cushim_claim *c) CUSHIM_HIDDEN;
#endif
