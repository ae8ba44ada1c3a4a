/* A library whose constructor takes its time (2 s): while another thread's
 * dlopen runs it, that thread holds the loader's lock (vforkctor-app.c). */
#include <time.h>

__attribute__((constructor)) static void slow(void)
{
	struct timespec t = { 2, 0 };
	nanosleep(&t, NULL);
}
