/* libslowctor.so, which tests/hardening/locks-app dlopens: its constructor
 * runs holding the loader's lock, as every constructor of a library that
 * dlopen loads does.  It lets the program's other thread start its call
 * (locks_go, the program's), sleeps SLOWCTOR_MS (300 by default) so that
 * the thread is inside cushim by then, and makes the call SLOWCTOR_CALL
 * names: "version" (cuDriverGetVersion) or "init" (cuInit). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda.h"

extern volatile int locks_go;
__attribute__((visibility("default"))) int slowctor_rc = -1, slowctor_version = -1;

__attribute__((constructor)) static void slow(void)
{
	const char *call = getenv("SLOWCTOR_CALL"), *ms = getenv("SLOWCTOR_MS");
	__atomic_store_n(&locks_go, 1, __ATOMIC_RELEASE);
	usleep(1000 * (ms ? atoi(ms) : 300));
	if (call && strcmp(call, "init") == 0)
		slowctor_rc = cuInit(0);
	else
		slowctor_rc = cuDriverGetVersion(&slowctor_version);
}
