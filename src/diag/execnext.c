/* The exec functions libcushim.so's own (exec.c) pass each exec on to: the
 * next definition after libcushim.so (RTLD_NEXT: the C library's or another
 * preloaded library's).  Never looked up at load: all by the bootstrap's
 * thread once it is published (a forked child inherits them); else the PATH
 * searchers at their first use.  Through the C library's dlsym with no lock
 * held, and kept by one atomic store that any thread finding it unset makes
 * (the same answer each time). */
#include "realdlsym.h"
#include "execnext.h"
#include <dlfcn.h>
#include <stddef.h>

static const char *const names[CUSHIM_NEXEC] = { "execve", "execv", "execvp", "execvpe", "fexecve", "execveat" };
static void *next[CUSHIM_NEXEC]; /* NULL until looked up; NONE where there is none */
#define NONE ((void *)next)

void *cushim_exec_next(enum cushim_exec k)
{
	void *p = __atomic_load_n(&next[k], __ATOMIC_ACQUIRE);
	if (!p) {
		p = cushim_dlsym(RTLD_NEXT, names[k]);
		__atomic_store_n(&next[k], p ? p : NONE, __ATOMIC_RELEASE);
	}
	return p == NONE ? NULL : p;
}

void *cushim_exec_known(enum cushim_exec k)
{
	void *p = __atomic_load_n(&next[k], __ATOMIC_ACQUIRE);
	return p == NONE ? NULL : p;
}

void cushim_exec_find(void)
{
	for (int k = 0; k < CUSHIM_NEXEC; k++)
		cushim_exec_next((enum cushim_exec)k);
}
