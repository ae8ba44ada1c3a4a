/* The run a process belongs to, and its mark CUSHIM_RUN (runmark.c):
 * decided when first needed, never at load. */
#ifndef CUSHIM_RUNMARK_H
#define CUSHIM_RUNMARK_H
#include <stddef.h>
#include "hidden.h"

#define CUSHIM_RUN_ID_MAX 32                         /* "PID-SECONDS" and its NUL */
#define CUSHIM_RUN_MARK_MAX (CUSHIM_RUN_ID_MAX + 12) /* "CUSHIM_RUN=PID-SECONDS" */
#define CUSHIM_RUN_ENV_MAX 1024 /* variables an exec's copy of the environment takes */

/* This process's run as "PID-SECONDS" in buf (NUL-terminated); its length. */
size_t cushim_run_id(char *buf, size_t size) CUSHIM_HIDDEN;
/* Whether this process is its run's first: only that may empty a stale
 * file an earlier run left (outputs.c). */
int cushim_run_first(void) CUSHIM_HIDDEN;
/* Whether the run whose mark ("PID-SECONDS") begins at text (n bytes, a
 * file's) is still under way: its first process lives (a process has its
 * pid, and began before the run did; where /proc cannot say when it began,
 * having the pid is enough).  0 where the mark is no mark. */
int cushim_run_live(const char *text, size_t n) CUSHIM_HIDDEN;
/* At the start of tracing: the run decided, and the environment marked,
 * where this process names an output, for what the C library starts
 * without libcushim.so's exec functions (posix_spawn, system, popen). */
void cushim_run_start(void) CUSHIM_HIDDEN;
/* Before a fork (its handler): the child is of this process's run. */
void cushim_run_prefork(void) CUSHIM_HIDDEN;
void cushim_run_forked(void) CUSHIM_HIDDEN; /* in a forked child */

/* For an exec (exec.c), which passes the program it starts the run's mark
 * where this process names an output, never changing its own environment:
 * how many pointers a copy of envp (NULL: none) with the mark takes, or 0
 * where envp is passed as it is (it holds the mark, no output is named, or
 * it has more than CUSHIM_RUN_ENV_MAX variables).  Then envp with the mark
 * in place of any other CUSHIM_RUN, in copy (size pointers) and mark
 * (CUSHIM_RUN_MARK_MAX bytes), both the caller's until the exec.  No lock,
 * no malloc, no stdio: safe in a signal handler and in a vfork child. */
size_t cushim_run_env_size(char *const envp[]) CUSHIM_HIDDEN;
char *const *cushim_run_env(char *const envp[], char **copy, size_t size, char *mark) CUSHIM_HIDDEN;

#endif
