/* cushim's own answers for the exports that report what the driver is:
 * cuDriverGetVersion under emulation, and the program's (or in masquerade the
 * runtime's) own cuGetProcAddress, so that what it looks up is traced,
 * hidden and emulated like a call by name. */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "answer.h"
#include "state.h"
#include "lookup-rule.h"
#include <string.h>

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

CUresult CUDAAPI cushim_own_cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = cushim_state.driver_version;
	return CUDA_SUCCESS;
}

/* The export that the driver's answer p for symbol is, or -1. */
static int export_of(const char *symbol, void *p)
{
	size_t n = strlen(symbol);

	for (int i = cushim_lower_bound(symbol); i < CUSHIM_NSYMS && strncmp(cushim_syms[i].name, symbol, n) == 0; i++)
		if ((cushim_real[i] == p || cushim_hidden_real[i] == p) && strcmp(cushim_syms[i].base, symbol) == 0)
			return i;
	return -1;
}

/* Above the emulated version there is nothing; a hidden or missing export is
 * not found (a hidden one is known by the driver's function behind it, which
 * the bootstrap looked up but never installed); anything cushim exports is
 * answered with cushim's stub. */
static void *answer_lookup(const char *symbol, void *p, int *found)
{
	int i = export_of(symbol, p);
	*found = 1;
	if (i < 0)
		return p; /* not in the table: the driver's own answer */
	if (!cushim_impl[i] || cushim_hidden_name(cushim_syms[i].name)) {
		*found = 0;
		return NULL;
	}
	return cushim_stub[i];
}

/* Emulating CUDA X, the question the real driver of X answers: a version
 * above X is refused by the drivers that refuse such lookups, and answered
 * as X by the others (src/common/lookup-rule.h).  0 when refused. */
static int emulated_question(int *version)
{
	int x = cushim_state.driver_version;

	if (!cushim_emulating || *version <= x)
		return 1;
	if (cushim_refuses_above(x))
		return 0;
	*version = x;
	return 1;
}

/* Emulating CUDA X, whether the real driver of X never had symbol: every
 * variant the table knows of it is newer than X.  Such a name is not found
 * at any version, as on that driver, rather than "version not sufficient". */
static int emulated_unknown(const char *symbol)
{
	int since;

	return cushim_emulating && symbol && (since = cushim_base_since(symbol)) > cushim_state.driver_version;
}

CUresult CUDAAPI cushim_own_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						CUdriverProcAddressQueryResult *status)
{
	CUresult r;
	int found;

	if (!emulated_question(&version))
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa2_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress_v2])(symbol, pfn, version, flags, status);
	if (r != CUDA_SUCCESS || !pfn || !symbol)
		return r;
	if (emulated_unknown(symbol)) {
		*pfn = NULL;
		if (status)
			*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		return r;
	}
	if (!*pfn)
		return r;
	*pfn = answer_lookup(symbol, *pfn, &found);
	if (!found && status)
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return r;
}

CUresult CUDAAPI cushim_own_cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	CUresult r;
	int found;

	if (!emulated_question(&version))
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa1_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress])(symbol, pfn, version, flags);
	if ((r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND) || !pfn || !symbol)
		return r;
	if (emulated_unknown(symbol)) {
		*pfn = NULL;
		return CUDA_ERROR_NOT_FOUND;
	}
	if (r != CUDA_SUCCESS || !*pfn)
		return r;
	*pfn = answer_lookup(symbol, *pfn, &found);
	return found ? r : CUDA_ERROR_NOT_FOUND;
}
