/* The diagnostics' observers of the shim (src/shim/observers.h): what the
 * shim calls, through the table it reaches by a weak reference, when
 * tracing starts, around fork, and when it says a missing export or a
 * cause.  So the diagnostics depend on the shim, never the other way. */
#include "observers.h"
#include "trace.h"
#include "timeline.h"
#include "execnext.h"

CUSHIM_HIDDEN const struct cushim_observers cushim_diag_observers = {
	.start = cushim_trace_start,
	.failures = cushim_trace_failures,
	.booted = cushim_exec_find, /* so that no exec need ask the loader */
	.prefork = cushim_trace_prefork,
	.postfork = cushim_trace_postfork,
	.missing = cushim_timeline_missing,
	.cause = cushim_timeline_cause,
	.tracer = cushim_tracer,
};
