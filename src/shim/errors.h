/* cushim's own cuGetErrorName and cuGetErrorString (errors.c), and the
 * names and strings behind them (errnames.h). */
#ifndef CUSHIM_ERRORS_H
#define CUSHIM_ERRORS_H
#include "table.h"
#include "errnames.h"

CUresult cushim_own_cuGetErrorName(CUresult error, const char **str) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorString(CUresult error, const char **str) CUSHIM_HIDDEN;

#endif
