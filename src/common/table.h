/* The symbol table (table.c): one row per export, its index, its function
 * type, the lookups by name, and how a row's parameters are described. */
#ifndef CUSHIM_TABLE_H
#define CUSHIM_TABLE_H
#include "cuda-all.h"
#include <stdint.h>
#include "cushim-syms.h"
#include "hidden.h"

/* What a missing export returns: CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, a
 * code that toolkits before 12.8 do not define. */
#define CUSHIM_NEWER_DRIVER ((CUresult)36)

enum cushim_flavour { CUSHIM_LEGACY, CUSHIM_PTDS, CUSHIM_PTSZ };

/* One row of the symbol table (src/cushim-syms.h, generated from the
 * committed table src/table/cuda-api.tsv and the toolkit's headers). */
struct cushim_sym {
	const char *name;     /* exported ABI name: cuCtxCreate_v2 */
	const char *base;     /* name cuGetProcAddress knows: cuCtxCreate */
	int version;          /* CUDA version of this variant: 3020 */
	unsigned char flavour;
	unsigned char lookup_only; /* no exported name (name is base_v<version>): a
				    * variant reached only through cuGetProcAddress */
};
extern const struct cushim_sym cushim_syms[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* Index of every export: CUSHIM_IDX_cuCtxCreate_v2 ... */
enum {
#define CUSHIM_SYM(i, name, ...) CUSHIM_IDX_##name = i,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

/* The function type of every row: the toolkit's prototype where its headers
 * declare the row, else one of ABI-equivalent types (tools/gensyms.py):
 * cushim_fn_cuCtxCreate_v2, cushim_fn_cuLaunchHostFunc_v2 ... */
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, ...) typedef CUresult CUDAAPI cushim_fn_##name params;
#include "cushim-syms.h"
#undef CUSHIM_SYM

/* The runtimes looked for by soname, newest first. */
#define CUSHIM_NRUNTIMES 3
extern const char *const cushim_runtime_sonames[CUSHIM_NRUNTIMES] CUSHIM_HIDDEN;
int cushim_lookup_index(const char *name) CUSHIM_HIDDEN;
int cushim_lower_bound(const char *name) CUSHIM_HIDDEN;
int cushim_base_since(const char *base) CUSHIM_HIDDEN;
const char *cushim_flavour_name(int flavour) CUSHIM_HIDDEN;


/* A row's arguments as 64-bit words, and how each is printed (the generated
 * table's descriptors; the trace and the timeline print them). */
#define CUSHIM_U64(x) ((uint64_t)(x))
#define CUSHIM_F64(x) cushim_f64bits((double)(x))
static inline uint64_t cushim_f64bits(double d)
{
	uint64_t u;
	__builtin_memcpy(&u, &d, sizeof u);
	return u;
}
enum cushim_argclass { CUSHIM_A_PTR, CUSHIM_A_HEX, CUSHIM_A_STR, CUSHIM_A_INT, CUSHIM_A_UINT, CUSHIM_A_ENUM,
		       CUSHIM_A_FLOAT, CUSHIM_A_STRUCT };
struct cushim_argdesc {
	const char *name;
	int cls;
	int extra; /* enum id for CUSHIM_A_ENUM, size for CUSHIM_A_STRUCT */
};

#endif
