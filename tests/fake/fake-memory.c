/* The fake driver's memory (included by fake-driver.c): with
 * FAKE_MEM_TOTAL=BYTES in the environment, the device has that much memory:
 * cuMemGetInfo_v2 answers what is left and the total, and an allocation
 * (cuMemAlloc_v2, cuMemAllocManaged, cuMemHostAlloc, cuMemAllocHost_v2,
 * cuMemCreate) larger than what is left returns CUDA_ERROR_OUT_OF_MEMORY,
 * as a real driver does, while a smaller one is given an address (or
 * handle) of its own.  Nothing is given back: frees answer generically.
 * Without FAKE_MEM_TOTAL these answer as the generic exports do. */
#include <stdint.h>
#include <stdlib.h>

enum { OUT_OF_MEMORY = 2 };
static uint64_t mem_used, mem_seq = 0x7f0000000000ull;

static uint64_t mem_total(void)
{
	const char *v = FAKE_GETENV("FAKE_MEM_TOTAL");
	return v ? strtoull(v, NULL, 0) : 0;
}

/* 1 and *rc when FAKE_MEM_TOTAL decides an allocation of n bytes whose
 * address goes to out; 0 without it. */
static int mem_take(W out, W n, int *rc)
{
	uint64_t total = mem_total(), used;
	if (!total)
		return 0;
	if (!initialised())
		return *rc = NOT_INITIALIZED, 1;
	used = __atomic_load_n(&mem_used, __ATOMIC_RELAXED);
	if (n > total - used)
		return *rc = OUT_OF_MEMORY, 1;
	__atomic_add_fetch(&mem_used, n, __ATOMIC_RELAXED);
	if (out)
		*(uint64_t *)(uintptr_t)out = __atomic_add_fetch(&mem_seq, ((n + 255) & ~(W)255) + 256, __ATOMIC_RELAXED);
	return *rc = SUCCESS, 1;
}

#define MEM_SPECIAL(n) __attribute__((unused)) static int special_##n(W a0, W a1, W a2, W a3, W a4, W a5)
#define TAKE(out, n)                                                  \
	do {                                                          \
		int rc_;                                              \
		if (mem_take(out, n, &rc_))                           \
			return rc_;                                   \
		return initialised() ? SUCCESS : NOT_INITIALIZED;     \
	} while (0)

MEM_SPECIAL(cuMemGetInfo_v2)
{
	uint64_t total = mem_total();
	if (!initialised())
		return NOT_INITIALIZED;
	if (total && a0 && a1) {
		*(uint64_t *)(uintptr_t)a0 = total - __atomic_load_n(&mem_used, __ATOMIC_RELAXED);
		*(uint64_t *)(uintptr_t)a1 = total;
	}
	return SUCCESS;
}

MEM_SPECIAL(cuMemAllocManaged) { TAKE(a0, a1); }
MEM_SPECIAL(cuMemHostAlloc) { TAKE(a0, a1); }
MEM_SPECIAL(cuMemAllocHost_v2) { TAKE(a0, a1); }
MEM_SPECIAL(cuMemCreate) { TAKE(a0, a1); }
