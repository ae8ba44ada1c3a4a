/* A runtime's validity check under emulation (integrity.c). */
#ifndef CUSHIM_INTEGRITY_H
#define CUSHIM_INTEGRITY_H
#include "table.h"

CUresult CUDAAPI cushim_own_cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId);
#endif
