/* What the trace and the timeline share (stamp.c): the clock, the
 * formatting of numbers and arguments, and the argument tables. */
#ifndef CUSHIM_STAMP_H
#define CUSHIM_STAMP_H
#include "table.h"

/* The clock: cushim_ticks() (ticks.h) calibrated against CLOCK_MONOTONIC
 * when tracing starts. */
extern uint64_t cushim_start_ticks CUSHIM_HIDDEN;
extern double cushim_ns_per_tick CUSHIM_HIDDEN;
void cushim_stamp_calibrate(void) CUSHIM_HIDDEN;
/* ticks as CLOCK_MONOTONIC nanoseconds */
uint64_t cushim_trace_ns(uint64_t ticks) CUSHIM_HIDDEN;
size_t cushim_format_decimal(char *buf, size_t size, uint64_t v, int decimals) CUSHIM_HIDDEN;
/* A string argument's bytes as a record copied them (recorder.h): which
 * argument, its bytes, and their state (0 whole, 1 cut, 2 unreadable past
 * them).  Without one, a string argument is read now, through the checked
 * copy. */
struct cushim_strarg {
	int arg;
	int state;
	const char *bytes;
};
/* The argument v as the trace shows it; sa: its bytes, if copied already. */
size_t cushim_format_arg(char *buf, size_t size, const struct cushim_argdesc *d, uint64_t v,
			 const struct cushim_strarg *sa) CUSHIM_HIDDEN;
extern const struct cushim_argdesc *const cushim_argdescs[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern const unsigned char cushim_nargs[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* "cuMemAlloc_v2(dptr=0x7ffd5e1c, bytesize=1048576) = CUDA_SUCCESS"; sa: a
 * string argument's bytes, if copied already (else NULL). */
size_t cushim_format_call(char *buf, size_t size, unsigned i, CUresult r, const uint64_t *argv,
			  const struct cushim_strarg *sa) CUSHIM_HIDDEN;

/* Formatting into a buffer: never past left, always NUL-terminated. */
struct cushim_out {
	char *p;
	size_t left;
};
void cushim_put_raw(struct cushim_out *o, const char *s, size_t n) CUSHIM_HIDDEN;
void cushim_put_u(struct cushim_out *o, uint64_t v) CUSHIM_HIDDEN;
/* v with digits (3 or 6) decimals: 1234, 3 -> "1.234" */
void cushim_put_milli(struct cushim_out *o, uint64_t v, int digits) CUSHIM_HIDDEN;

#endif
