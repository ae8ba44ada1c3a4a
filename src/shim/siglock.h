/* cushim's locks (doc/DESIGN.md, "Locks"): each is held only around
 * updates of cushim's own memory, never across a call into the loader, the
 * driver, a runtime or stdio, and with every signal blocked, so that no
 * signal handler runs on the thread that holds it: a handler that calls the
 * driver, or forks, never waits for the thread it interrupted. */
#ifndef CUSHIM_SIGLOCK_H
#define CUSHIM_SIGLOCK_H
#include <pthread.h>
#include <signal.h>

static inline void cushim_lock(pthread_mutex_t *m, sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	pthread_mutex_lock(m);
}

static inline void cushim_unlock(pthread_mutex_t *m, const sigset_t *saved)
{
	pthread_mutex_unlock(m);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}
#endif
