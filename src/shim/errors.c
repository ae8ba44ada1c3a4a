/* Names and descriptions of every CUresult the toolkit's cuda.h knows, so that
 * cuGetErrorName/cuGetErrorString still answer on a driver that predates a code
 * (an 11.4 driver does not know CUSHIM_NEWER_DRIVER). */
#include "table.h"
#include "state.h"
#include "errors.h"
#include "enums.h"

static const struct cushim_enum_val *find(int code)
{
	const struct cushim_enum *e = &cushim_enums[CUSHIM_ENUM_ID_CUresult];
	for (int i = 0; i < e->n; i++)
		if (e->vals[i].value == code)
			return &e->vals[i];
	return NULL;
}

/* The code cushim itself returns, named even by a shim built against a
 * toolkit older than the code (12.8). */
static const struct cushim_enum_val newer_driver = {
	36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
	"This indicates that the API call requires a newer CUDA driver than the one currently installed."
};

const char *cushim_error_name(int code)
{
	const struct cushim_enum_val *v = find(code);
	if (!v && code == 36)
		v = &newer_driver;
	return v ? v->name : NULL;
}

const char *cushim_error_string(int code)
{
	const struct cushim_enum_val *v = find(code);
	if (!v && code == 36)
		v = &newer_driver;
	return v ? (v->doc[0] ? v->doc : v->name) : NULL;
}

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
