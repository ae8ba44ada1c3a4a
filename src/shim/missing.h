/* Missing exports (missing.c): what a call of one returns, and the one
 * warning that says why (the reason is in state.h's cushim_missing_why). */
#ifndef CUSHIM_MISSING_H
#define CUSHIM_MISSING_H
#include "table.h"

/* What a missing export's slot holds: it returns CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
 * or CUDA_ERROR_NO_DEVICE without a driver. */
CUresult cushim_missing(void) CUSHIM_HIDDEN;
void cushim_report_missing(unsigned i) CUSHIM_HIDDEN; /* once per export */
CUresult cushim_missing_call(unsigned i) CUSHIM_HIDDEN; /* both: for the wrappers and the adapters */
/* No driver could be used: say so once, and every call returns CUDA_ERROR_NO_DEVICE. */
void cushim_missing_driver(int masquerade) CUSHIM_HIDDEN;
#endif
