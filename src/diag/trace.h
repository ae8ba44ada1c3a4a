/* Tracing (trace.c): the trace wrappers' back end, the lines and the counters. */
#ifndef CUSHIM_TRACE_H
#define CUSHIM_TRACE_H
#include "table.h"
#include "recorder.h" /* cushim_hot */

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
