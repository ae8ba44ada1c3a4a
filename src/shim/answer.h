/* cushim's own answers for a few exports (answer.c): the version under
 * emulation, and the program's own cuGetProcAddress. */
#ifndef CUSHIM_ANSWER_H
#define CUSHIM_ANSWER_H
#include "table.h"

CUresult CUDAAPI cushim_own_cuDriverGetVersion(int *version);
CUresult CUDAAPI cushim_own_cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult CUDAAPI cushim_own_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						CUdriverProcAddressQueryResult *status);
#endif
