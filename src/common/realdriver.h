/* The real driver (realdriver.c). */
#ifndef CUSHIM_REALDRIVER_H
#define CUSHIM_REALDRIVER_H
#include "hidden.h"

/* A real driver at path, as masquerade takes one: a file that loads here (a
 * shared library for this machine, with what it needs) and exports cuInit,
 * and is no cushim (it has no cushim_symbol_count).  Its dlopen handle, or
 * NULL. */
void *cushim_real_driver_open(const char *path);
/* What is said of a CUSHIM_DRIVER that cushim_real_driver_open refuses. */
#define CUSHIM_DRIVER_UNUSABLE "is not a usable driver (missing, no library that loads here, or a cushim)"


#endif
