/* Names and descriptions of error codes (errnames.c): every CUresult the
 * toolkit's cuda.h knows, and CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER (36),
 * which cushim returns itself, even where a toolkit older than the code
 * (12.8) builds it.  What the library and the command both say of a code. */
#ifndef CUSHIM_ERRNAMES_H
#define CUSHIM_ERRNAMES_H
#include "hidden.h"

const char *cushim_error_name(int code) CUSHIM_HIDDEN;   /* NULL: unknown */
const char *cushim_error_string(int code) CUSHIM_HIDDEN; /* NULL: unknown */

#endif
