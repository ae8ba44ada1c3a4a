/* Error codes (errors.c): their names and strings, and cushim's own
 * cuGetErrorName and cuGetErrorString. */
#ifndef CUSHIM_ERRORS_H
#define CUSHIM_ERRORS_H
#include "table.h"

const char *cushim_error_name(int code) CUSHIM_HIDDEN;
const char *cushim_error_string(int code) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorName(CUresult error, const char **str) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorString(CUresult error, const char **str) CUSHIM_HIDDEN;

#endif
