/* The clock of the trace and the timeline (stamp.h): the counter where
 * there is one, calibrated against CLOCK_MONOTONIC. */
#include "stamp.h"
#include "ticks.h"
#include <stdio.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cushim_start_ticks;
double cushim_ns_per_tick = 1.0;
static uint64_t start_ns;

/* The counter's frequency where the architecture states it (AArch64's
 * cntfrq_el0, set by the firmware); 0 where it is measured. */
static uint64_t counter_hz(void)
{
#if defined(__aarch64__)
	uint64_t hz;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz;
#else
	return 0;
#endif
}

void cushim_stamp_calibrate(void)
{
#if defined(CUSHIM_COUNTER)
	uint64_t n0 = mono_ns(), t0 = cushim_ticks(), n1, t1, hz = counter_hz();
	if (hz) {
		cushim_ns_per_tick = 1e9 / (double)hz;
	} else {
		do
			n1 = mono_ns();
		while (n1 - n0 < 2000000); /* 2 ms, once, only when diagnostics are on */
		t1 = cushim_ticks();
		cushim_ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
	}
	cushim_start_ticks = t0;
	start_ns = n0;
#else
	cushim_start_ticks = start_ns = mono_ns();
#endif
}

/* The trace's clock as CLOCK_MONOTONIC nanoseconds, for the timeline. */
uint64_t cushim_trace_ns(uint64_t ticks)
{
	return start_ns + (uint64_t)((double)(int64_t)(ticks - cushim_start_ticks) * cushim_ns_per_tick);
}

/* ---- formatting ---- */
