/* A library whose constructor asks the driver's version from inside dlopen
 * (the loader's lock held) while the program's other thread asks in a loop
 * (tests/hardening/gate.c; asker_calls counts its calls).  It asks once
 * that thread has made two calls more, or after 200 ms, whichever comes
 * first: a thread stuck behind the loader's lock is then stuck in its call. */
#include <time.h>
#include "cuda.h"

extern long asker_calls __attribute__((weak));
int asker_rc = -1, asker_v = -1;

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

__attribute__((constructor)) static void ask_inside_dlopen(void)
{
	struct timespec t0;
	long start = &asker_calls ? __atomic_load_n(&asker_calls, __ATOMIC_ACQUIRE) : 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (&asker_calls && __atomic_load_n(&asker_calls, __ATOMIC_ACQUIRE) < start + 2 && ms_since(&t0) < 200)
		;
	asker_rc = cuDriverGetVersion(&asker_v);
}
