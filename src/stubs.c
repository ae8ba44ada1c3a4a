/* The exported stubs: one C function per ABI name, with the exact prototype of
 * its PFN_ typedef, all expanded from the generated table cushim-syms.h.
 *
 * After the first call the path is one acquire load (a plain load on x86-64)
 * and a tail call through the cached pointer: no lock, no getenv, no lookup. */
#include "cushim-internal.h"

void *cushim_real[CUSHIM_NSYMS];

/* Each slot starts at the export's own cold "first call" function, which runs
 * the bootstrap and stores the real target; so the stub itself is a load and
 * an indirect jump, with no test and no saved register. */
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, args, ...)                           \
	__attribute__((noinline, cold)) static CUresult CUDAAPI first_##name params           \
	{                                                                                     \
		return ((CUresult (CUDAAPI *) params)cushim_resolve(i)) args;                 \
	}                                                                                     \
	CUSHIM_API CUresult CUDAAPI name params;                                              \
	CUresult CUDAAPI name params                                                          \
	{                                                                                     \
		return ((CUresult (CUDAAPI *) params)                                         \
			__atomic_load_n(&cushim_slot[i], __ATOMIC_ACQUIRE)) args;             \
	}
#include "cushim-syms.h"
#undef CUSHIM_SYM


/* The stubs' own addresses, for answering cuGetProcAddress with them. */
void *const cushim_stub[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, name, ...) [i] = (void *)name,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

void *cushim_slot[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, name, ...) [i] = (void *)first_##name,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};
