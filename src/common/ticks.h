/* The clock of the summary and the trace, read twice a call: inline, so the
 * cost is the counter read itself and not a call around it.  The TSC on
 * x86-64, the virtual counter (cntvct_el0) on AArch64; neither read is
 * serialising.  CUSHIM_COUNTER, its name: one of them is there, in ticks
 * that trace.c calibrates; else CLOCK_MONOTONIC's nanoseconds.  Shared with
 * make bench (tests/bench), which measures what one read costs. */
#ifndef CUSHIM_TICKS_H
#define CUSHIM_TICKS_H
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#define CUSHIM_COUNTER "TSC"
#elif defined(__aarch64__)
#define CUSHIM_COUNTER "cntvct_el0"
#endif
static inline uint64_t cushim_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t t;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(t));
	return t;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
#endif
