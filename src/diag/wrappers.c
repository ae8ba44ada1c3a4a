/* The trace wrappers, one per row, expanded from the generated table: time
 * the call, pass the arguments as 64-bit words with their descriptors (name,
 * how to print them) to trace.c, and return the driver's result.  A row the
 * toolkit's headers do not declare (a newer CUDA's, from the committed table)
 * has a prototype of ABI-equivalent types, so it is forwarded exactly and
 * traced from the table's parameter kinds. */
#include "conf.h"
#include "slots.h"
#include "state.h"
#include "missing.h"
#include "ticks.h"
#include "trace.h"
#include "records.h"

/* Counts a call in this thread's counters (CUSHIM_SUMMARY): only this thread
 * writes them; its first call sets them up in trace.c. */
static inline void cushim_count(unsigned i, CUresult r, uint64_t ticks)
{
	struct cushim_counters *c = cushim_my_counters;
	if (__builtin_expect(c == NULL, 0)) {
		cushim_count_first(i, r, ticks);
		return;
	}
	c += i;
	c->calls++;
	c->errors += r != CUDA_SUCCESS;
	c->ticks += ticks;
	if (ticks > c->max)
		c->max = ticks;
}

/* A row the toolkit declares has the toolkit's own prototype. */
#define CUSHIM_DECLARED(i, name)                                                                        \
	_Static_assert(__builtin_types_compatible_p(cushim_fn_##name, __typeof__(name)),                 \
		       #name " has the prototype of the toolkit's declaration");
#include "cushim-syms.h"
#undef CUSHIM_DECLARED

#define CUSHIM_UNPAREN(...) __VA_ARGS__

/* Row i's record descriptor (records.h), a constant of the row. */
#define CUSHIM_DESC(name, n, descs)                                                                     \
	cushim_rec_describe((const struct cushim_argdesc[]){ { 0 }, CUSHIM_UNPAREN descs } + 1, n, #name)

#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, args, u64, n, descs)                  \
	static CUresult CUDAAPI trace_##i params                                              \
	{                                                                                     \
		void *f = cushim_impl[i];                                                     \
		uint64_t t0 = cushim_ticks();                                                 \
		CUresult r = f ? ((CUresult (CUDAAPI *) params)f) args : cushim_missing_call(i); \
		uint64_t t1 = cushim_ticks();                                                 \
		unsigned lines = cushim_hot.lines;                                            \
		if (cushim_hot.summary)                                                       \
			cushim_count(i, r, t1 - t0);                                          \
		if (lines > 1 || (lines && r != CUDA_SUCCESS)) {                              \
			const uint64_t argv[] = { 0, CUSHIM_UNPAREN u64 };                     \
			cushim_trace_call(i, CUSHIM_DESC(name, n, descs), r, t0, t1, argv + 1); \
		}                                                                             \
		return r;                                                                     \
	}
#include "cushim-syms.h"
#undef CUSHIM_SYM

void *const cushim_tracer[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, ...) [i] = (void *)trace_##i,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};
