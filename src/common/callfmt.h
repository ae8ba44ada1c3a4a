/* How the trace shows a call (callfmt.c): numbers, each kind of argument,
 * whole calls, and the argument tables.  The library's trace and timeline
 * and the command's decoding of a record file share it. */
#ifndef CUSHIM_CALLFMT_H
#define CUSHIM_CALLFMT_H
#include "table.h"
#include <stddef.h>
#include <stdint.h>

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

/* One line of the trace: "cushim: SECONDS PID TID CALL = RESULT MICROSECONDS us\n",
 * the seconds since tracing started with six decimals. */
struct cushim_line {
	int pid, tid;
	uint64_t since_us, took_ns;
	unsigned fn;
	CUresult result;
	const uint64_t *argv;
	const struct cushim_strarg *sa;
};
size_t cushim_format_line(char *buf, size_t size, const struct cushim_line *l) CUSHIM_HIDDEN;
#endif
