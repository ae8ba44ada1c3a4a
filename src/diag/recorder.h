/* The flight recorder (recorder.c): every traced call as one binary record
 * (records.h) in its thread's own ring, written on the call path with no
 * formatting, no lock and no system call (a call with a string argument
 * copies it through the checked copy, peek.h, which is one).  The text
 * trace, the timeline and the sticky-error explanation read the records off
 * the calling thread. */
#ifndef CUSHIM_RECORDER_H
#define CUSHIM_RECORDER_H
#include "table.h"
#include "records.h"
#include <stddef.h>
#include <stdint.h>

/* Rings of 2^cells_log2 cells each (at least 64); a thread's is made (mmap)
 * at its first record. */
void cushim_recorder_start(unsigned cells_log2) CUSHIM_HIDDEN;
/* The call path: record export i's call. */
void cushim_record(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv) CUSHIM_HIDDEN;

/* ---- readers ---- */
/* Every ring, newest first: each(ring, tid, ctx) until it returns non-zero. */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx) CUSHIM_HIDDEN;
/* Records a thread made with no ring (none could be mapped). */
uint64_t cushim_recorder_unringed(void) CUSHIM_HIDDEN;

/* In a forked child: every ring but the calling thread's is free for reuse
 * and emptied (what they hold is the parent's). */
void cushim_recorder_forked(void) CUSHIM_HIDDEN;
#endif
