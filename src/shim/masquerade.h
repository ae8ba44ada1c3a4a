/* cushim as the process's libcuda.so.1 (masquerade.c): whether it is, and
 * the real driver behind it. */
#ifndef CUSHIM_MASQUERADE_H
#define CUSHIM_MASQUERADE_H
#include "source.h"

int cushim_is_process_driver(void);
int cushim_open_real_driver(struct cushim_source *src);
#endif
