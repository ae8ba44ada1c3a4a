/* Tracing (trace.c): the trace wrappers' back end, the lines and the counters. */
#ifndef CUSHIM_TRACE_H
#define CUSHIM_TRACE_H
#include "table.h"

/* What the trace wrappers and cushim_trace_call read on every call, in a
 * cache line of its own: a launch's work in the driver leaves cushim's data
 * cold, and each line the call path touches is then one more fetch.
 * Whether the trace wrappers are in the slots is the shim's to say:
 * cushim_slots_trace(). */
struct cushim_hot {
	unsigned char summary;   /* every call counted (CUSHIM_SUMMARY) */
	unsigned char lines;     /* which calls reach cushim_trace_call: 0 none, 1 failed ones, 2 every one */
	unsigned char recording; /* calls go into the rings */
	unsigned char tracing;   /* the diagnostics' outputs have started (cushim_trace_start) */
	unsigned char pad[60];
};
extern struct cushim_hot cushim_hot __attribute__((aligned(64))) CUSHIM_HIDDEN;
struct cushim_counters {
	uint64_t calls, errors, ticks, max;
};
/* This thread's counters (CUSHIM_SUMMARY), NULL until its first counted call. */
extern __thread struct cushim_counters *cushim_my_counters
	__attribute__((tls_model("initial-exec"))) CUSHIM_HIDDEN;
/* Counts a call of a thread that has no counters yet (the wrappers count the rest). */
void cushim_count_first(unsigned i, CUresult r, uint64_t ticks) CUSHIM_HIDDEN;
void cushim_trace_start(void) CUSHIM_HIDDEN;
/* The trace wrappers, one for each export (wrappers.c). */
extern void *const cushim_tracer[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* A call of export i (desc: its cushim_rec_desc) that reached the trace. */
void cushim_trace_call(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN __attribute__((hot));
void cushim_trace_failures(void) CUSHIM_HIDDEN; /* failed calls at least reach cushim_trace_call */
void cushim_trace_prefork(void) CUSHIM_HIDDEN;
void cushim_trace_postfork(int child) CUSHIM_HIDDEN;
/* Around an exec (exec.c): everything written before; the process goes on
 * after one that failed. */
void cushim_trace_exec(void) CUSHIM_HIDDEN;
void cushim_trace_exec_failed(void) CUSHIM_HIDDEN;

#endif
