/* The record file (recfile.c). */
#ifndef CUSHIM_RECFILE_H
#define CUSHIM_RECFILE_H
#include "hidden.h"
#include <stdint.h>

/* value: CUSHIM_RECORD's file (%p: the process id), NULL for none: opened. */
void cushim_recfile_start(const char *value) CUSHIM_HIDDEN;
/* The fatal signals (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) watched: at
 * one, also() runs, the file is written, and the program's own handler or
 * the default action follows, as without cushim. */
void cushim_crash_watch(void (*also)(void)) CUSHIM_HIDDEN;
/* Every ring into the file, over what it held: at exit, exec, a crash. */
void cushim_recfile_dump(void) CUSHIM_HIDDEN;
/* Says once, on the log, that the last dump's write failed (a full disk):
 * after a dump at exit or exec, never in a signal handler. */
void cushim_recfile_report(void) CUSHIM_HIDDEN;
/* In a forked child: a file of its own. */
void cushim_recfile_forked(void) CUSHIM_HIDDEN;
const char *cushim_recfile_path(void) CUSHIM_HIDDEN; /* NULL: no file */
#endif
