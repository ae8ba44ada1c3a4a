/* cushim's own lookups (realdlsym.c): the C library's dlsym and dlopen,
 * never an interposer's. */
#ifndef CUSHIM_REALDLSYM_H
#define CUSHIM_REALDLSYM_H
#include "hidden.h"

void *cushim_dlsym(void *handle, const char *name) CUSHIM_HIDDEN;
void *cushim_dlopen(const char *file, int mode) CUSHIM_HIDDEN;
#endif
