/* The name and description of every CUresult the toolkit's cuda.h knows,
 * and of the code cushim returns itself (errnames.h). */
#include "config.h"
#include "table.h"
#include "errnames.h"
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
