/* A forked child that cannot use the CUDA its parent initialised
 * (explain-fork.c): what the fork handlers and the bootstrap tell it. */
#ifndef CUSHIM_EXPLAIN_FORK_H
#define CUSHIM_EXPLAIN_FORK_H
#include "table.h"

extern int cushim_fork_watch CUSHIM_HIDDEN; /* a forked child of a process that initialised CUDA */
void cushim_fork_initialised(void) CUSHIM_HIDDEN; /* the program's cuInit succeeded */
void cushim_fork_warm(void) CUSHIM_HIDDEN;        /* in the bootstrap: the unwinder loaded */
void cushim_fork_prepare(void) CUSHIM_HIDDEN;     /* before fork, before any lock */
void cushim_fork_lock(void) CUSHIM_HIDDEN;        /* across fork: the record whole */
void cushim_fork_unlock(void) CUSHIM_HIDDEN;
int cushim_fork_child(void) CUSHIM_HIDDEN;        /* in the child, after fork: 1 to start watching */
void cushim_fork_watching(void) CUSHIM_HIDDEN;    /* its calls go through the trace wrappers now */
void cushim_fork_failed(unsigned i) CUSHIM_HIDDEN; /* export i returned 3 in such a child */
#endif
