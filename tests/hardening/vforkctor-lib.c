/* A library whose constructor takes its time (2 s): while another thread's
 * dlopen runs it, that thread holds the loader's lock (vforkctor-app.c).
 * It says it has begun through the program's vforkctor_inside. */
#include <time.h>

extern volatile int vforkctor_inside;

__attribute__((constructor)) static void slow(void)
{
	struct timespec t = { 2, 0 };
	__atomic_store_n(&vforkctor_inside, 1, __ATOMIC_RELEASE);
	nanosleep(&t, NULL);
}
