/* What the shim tells the diagnostics, which sit above it (src/diag): the
 * shim never names a function of theirs.  The diagnostics define the table
 * (src/diag/observe.c), which the shim reaches through a weak reference: no
 * code runs at load time for it, and a build of the shim without the
 * diagnostics links and has none. */
#ifndef CUSHIM_OBSERVERS_H
#define CUSHIM_OBSERVERS_H
#include "table.h"

struct cushim_observers {
	void (*start)(void);        /* the slots take the trace wrappers: the outputs start */
	void (*failures)(void);     /* a watched forked child: its failed calls reach the trace */
	void (*booted)(void);       /* the bootstrap is published: on its thread, no lock held */
	void (*prefork)(void);      /* around fork, inside the shim's own fork handlers */
	void (*postfork)(int child);
	void (*missing)(unsigned i, CUresult returns);      /* a missing export was called */
	void (*cause)(const char *cause, const char *text); /* a cause was said (explain.c) */
	void *const *tracer;        /* the trace wrappers, one for each export */
};

/* The diagnostics' table, or NULL where there are none. */
const struct cushim_observers *cushim_observers(void) CUSHIM_HIDDEN;
#endif
