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
 * at its first record.  With a reader, a ring whose thread exits is marked
 * retired and reader() runs on that thread, to read it and release it;
 * without, what it holds is dropped and it is free at once. */
void cushim_recorder_start(unsigned cells_log2, void (*reader)(void)) CUSHIM_HIDDEN;
/* The reader has read the retired g (its cursor c): free for the next thread. */
void cushim_ring_release(struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;
/* The call path: record export i's call: 1; 0 where this thread has no
 * ring (none could be mapped, or a signal handler interrupted the making of
 * its first): the caller writes the call itself, or counts it lost
 * (cushim_recorder_unringed). */
int cushim_record(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv) CUSHIM_HIDDEN;

/* ---- readers ---- */
/* Every ring, newest first: each(ring, tid, ctx) until it returns non-zero. */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx) CUSHIM_HIDDEN;
/* A call that found no ring and was not written either: counted. */
void cushim_recorder_unringed(void) CUSHIM_HIDDEN;
uint64_t cushim_recorder_lost(void) CUSHIM_HIDDEN;

/* In a forked child: every ring but the calling thread's is free for reuse
 * and emptied (what they hold is the parent's). */
void cushim_recorder_forked(void) CUSHIM_HIDDEN;
#endif
