/* cushim's own cuGetErrorName and cuGetErrorString: the driver's answer,
 * else the name and description errnames.c has, so that they still answer
 * on a driver that predates a code (an 11.4 driver does not know
 * CUSHIM_NEWER_DRIVER). */
#include "table.h"
#include "state.h"
#include "errors.h"

typedef CUresult (CUDAAPI *error_fn)(CUresult, const char **);

/* The driver's answer, else cushim's own; with no driver at all, a code
 * no table names is CUDA_ERROR_INVALID_VALUE, as a driver answers it. */
static CUresult answer(unsigned idx, const char *(*own)(int), CUresult error, const char **str)
{
	error_fn real = (error_fn)cushim_real[idx];
	CUresult r = real ? real(error, str) : CUDA_ERROR_INVALID_VALUE;
	const char *s;

	if (r != CUDA_SUCCESS && str && (s = own((int)error)) != NULL) {
		*str = s;
		return CUDA_SUCCESS;
	}
	return r;
}

CUresult cushim_own_cuGetErrorName(CUresult error, const char **str)
{
	return answer(CUSHIM_IDX_cuGetErrorName, cushim_error_name, error, str);
}

CUresult cushim_own_cuGetErrorString(CUresult error, const char **str)
{
	return answer(CUSHIM_IDX_cuGetErrorString, cushim_error_string, error, str);
}
