/* cushim's own answers for the exports that report what the driver is:
 * cuDriverGetVersion under emulation, and the program's (or in masquerade the
 * runtime's) own cuGetProcAddress, so that what it looks up is traced,
 * hidden and emulated like a call by name. */
#include "boot.h"
#include <string.h>

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

int cushim_emulating;

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
	int lo = 0, hi = CUSHIM_NSYMS;
	while (lo < hi) { /* lower bound of symbol among the sorted names */
		int mid = (lo + hi) / 2;
		if (strcmp(cushim_syms[mid].name, symbol) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t n = strlen(symbol); lo < CUSHIM_NSYMS && strncmp(cushim_syms[lo].name, symbol, n) == 0; lo++)
		if ((cushim_real[lo] == p || cushim_hidden_real[lo] == p) && strcmp(cushim_syms[lo].base, symbol) == 0)
			return lo;
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

CUresult CUDAAPI cushim_own_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						CUdriverProcAddressQueryResult *status)
{
	CUresult r;
	int found;

	if (cushim_emulating && version > cushim_state.driver_version)
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa2_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress_v2])(symbol, pfn, version, flags, status);
	if (r != CUDA_SUCCESS || !pfn || !*pfn || !symbol)
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

	if (cushim_emulating && version > cushim_state.driver_version)
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa1_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress])(symbol, pfn, version, flags);
	if (r != CUDA_SUCCESS || !pfn || !*pfn || !symbol)
		return r;
	*pfn = answer_lookup(symbol, *pfn, &found);
	return found ? r : CUDA_ERROR_NOT_FOUND;
}
