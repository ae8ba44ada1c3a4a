/* The exec functions libcushim.so's own pass each exec on to (execnext.c). */
#ifndef CUSHIM_EXECNEXT_H
#define CUSHIM_EXECNEXT_H
#include "hidden.h"

enum cushim_exec { CUSHIM_EXECVE, CUSHIM_EXECV, CUSHIM_EXECVP, CUSHIM_EXECVPE, CUSHIM_FEXECVE, CUSHIM_EXECVEAT,
		   CUSHIM_NEXEC };
/* The next definition (RTLD_NEXT) of exec function k, or NULL where there
 * is none: looked up at its first use, with no lock held. */
void *cushim_exec_next(enum cushim_exec k) CUSHIM_HIDDEN;
/* The same where it was looked up already, else NULL: never asks the
 * loader (a vfork child, whose loader lock may be its parent thread's, or
 * in an emulator's fork one that no thread of the child will release). */
void *cushim_exec_known(enum cushim_exec k) CUSHIM_HIDDEN;
/* All of them looked up now, so that no exec asks the loader: the
 * bootstrap's thread, once published, holding no lock (src/shim/observers.h). */
void cushim_exec_find(void) CUSHIM_HIDDEN;

#endif
