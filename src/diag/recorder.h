/* The flight recorder (recorder.c): every traced call as one binary record
 * in its thread's own ring, written on the call path with no formatting, no
 * lock and no system call (a call with a string argument copies it through
 * the checked copy, peek.h, which is one).  The text trace, the timeline and
 * the sticky-error explanation read the records off the calling thread.
 *
 * A ring is cells of 64 bytes; a record takes one cell for its head (the
 * function, result, ticks and three argument words), then one per seven
 * more words, then those of its string.  Every cell carries a tag (its
 * position, and whether it heads a record), written last: a reader that
 * finds the tag it expects before and after copying a cell has it whole,
 * and one that finds a newer tag knows the ring overwrote it.  Rings never
 * wait for a reader: a reader that falls behind counts what it lost. */
#ifndef CUSHIM_RECORDER_H
#define CUSHIM_RECORDER_H
#include "table.h"
#include <stddef.h>
#include <stdint.h>

#define CUSHIM_REC_MAXWORDS 16 /* the most arguments any export has */
#define CUSHIM_REC_STR 72      /* bytes of a string argument kept, its NUL included */

struct cushim_rec {
	unsigned fn;
	CUresult result;
	uint64_t t0, t1;
	unsigned nwords;
	uint64_t argv[CUSHIM_REC_MAXWORDS];
	int str_arg;   /* the argument whose bytes str holds; -1 none */
	int str_state; /* 0 whole, 1 cut at CUSHIM_REC_STR - 1 bytes, 2 unreadable */
	char str[CUSHIM_REC_STR];
	uint64_t made; /* the handle the call made (its first argument's target), where it names one */
	uint32_t serial; /* the record's number in its ring (low 24 bits) */
};

struct cushim_ring; /* one thread's */

/* Rings of 2^cells_log2 cells each (at least 64); a thread's is made (mmap)
 * at its first record. */
void cushim_recorder_start(unsigned cells_log2) CUSHIM_HIDDEN;
/* The call path: record export i's call. */
void cushim_record(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv) CUSHIM_HIDDEN;

/* ---- readers ---- */
/* Every ring, newest first: each(ring, tid, ctx) until it returns non-zero. */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx) CUSHIM_HIDDEN;
/* A reader's place in a ring: the cell it reads next and the record it
 * expects there. */
struct cushim_cursor {
	uint64_t cell;
	uint32_t serial;
	uint64_t lost; /* records overwritten before this reader read them */
};
/* A cursor at the oldest record the ring still holds. */
void cushim_cursor_oldest(struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;
/* A cursor at the ring's end: only records made after this call are read. */
void cushim_cursor_end(struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;
/* The record at c into *rec and c past it: 1; 0 when the ring holds no
 * finished record there yet.  Records the ring overwrote are skipped and
 * counted in c->lost. */
int cushim_ring_read(struct cushim_ring *g, struct cushim_cursor *c, struct cushim_rec *rec) CUSHIM_HIDDEN;
/* Records a thread made with no ring (none could be mapped). */
uint64_t cushim_recorder_unringed(void) CUSHIM_HIDDEN;

/* In a forked child: every ring but the calling thread's is free for reuse
 * and emptied (what they hold is the parent's). */
void cushim_recorder_forked(void) CUSHIM_HIDDEN;
#endif
