/* The sample suites' runtime route: TransformerEngine's cuda_driver pattern
 * in C. A program compiled with -DRTROUTE links libcudart and not libcuda;
 * every driver function it calls is fetched from
 * cudaGetDriverEntryPointByVersion, itself found with dlsym(RTLD_DEFAULT, ...)
 * in the linked runtime, at one pinned CUDA version, once per call site, and
 * cached. A suite's redirect header maps each driver function it names to
 * RTROUTE_CALL, so call sites still read cuX(...); a function the header
 * forgets has no definition to link against.
 *
 * The pin is RTROUTE_PIN (TE's 12010 unless the program defines another),
 * whatever the driver's version, as TE does: the drivers of CUDA 12.x answer
 * a lookup above their own version with the newest variant they have, those
 * of 13.0 on refuse it (src/common/lookup-rule.h), and that is what the suites see. */
#ifndef RTROUTE_H
#define RTROUTE_H
#include <cudaTypedefs.h>

/* The entry point for name at the pin, cached in *slot. A failure is fatal,
 * as TE's NVTE_CHECK: one line naming the symbol, the runtime's result and
 * the query status, then exit(1). */
void *rtroute_entry(const char *name, void **slot);
/* For optional functions: the entry point or NULL, never fatal. *result is
 * the runtime's cudaError_t, *status the cudaDriverEntryPointQueryResult
 * (-1 when the runtime left it untouched). */
void *rtroute_probe(const char *name, int *result, int *status);
/* The version actually pinned; one line saying which runtime answers. */
int rtroute_pin(void);
const char *rtroute_describe(void);
/* cudaGetErrorName of the linked runtime, for messages. */
const char *rtroute_error_name(int result);

#define RTROUTE_CALL(name, pfnver)                                                                       \
	(*({                                                                                             \
		static void *rtroute_slot_;                                                              \
		(PFN_##name##_v##pfnver) rtroute_entry(#name, &rtroute_slot_);                           \
	}))
#endif
