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
#include "callfmt.h"
#include <stddef.h>
#include <stdint.h>

/* Rings of 2^cells_log2 cells each (at least 64); a thread's is made (mmap)
 * at its first record.  With a reader, a ring whose thread exits is marked
 * retired and reader() runs on that thread, to read it and release it;
 * without, what it holds is dropped and it is free at once. */
void cushim_recorder_start(unsigned cells_log2, void (*reader)(void)) CUSHIM_HIDDEN;
/* The reader has read the retired g (its cursor c): free for the next thread. */
void cushim_ring_release(struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;


/* ---- readers ---- */
/* Every ring, newest first: each(ring, tid, ctx) until it returns non-zero. */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx) CUSHIM_HIDDEN;
/* A call that found no ring and was not written either: counted. */
void cushim_recorder_unringed(void) CUSHIM_HIDDEN;
uint64_t cushim_recorder_lost(void) CUSHIM_HIDDEN;

/* In a forked child: every ring but the calling thread's is free for reuse
 * and emptied (what they hold is the parent's). */
void cushim_recorder_forked(void) CUSHIM_HIDDEN;

/* ---- the call path, inline in the trace wrapper's back end ---- */
/* What the calling thread's records need, in one line of its own storage:
 * its ring, the ring's size, and the reservation (cells in the low 40 bits,
 * records above), which only this thread moves and which it publishes in
 * the ring (its reserved) after each record, for the readers.  So a record
 * loads nothing from the ring itself: after a launch's work in the driver,
 * a load there would be one more fetch to wait for. */
struct cushim_writer {
	struct cushim_ring *g; /* NULL until its first record */
	uint64_t mask;
	uint64_t reserved;
};
extern __thread struct cushim_writer cushim_me __attribute__((tls_model("initial-exec"))) CUSHIM_HIDDEN;

/* What the trace wrappers and the recorder read on every call, in a cache
 * line of its own: a launch's work in the driver leaves cushim's data cold,
 * and each line the call path touches is then one more fetch.  Whether the
 * trace wrappers are in the slots is the shim's to say:
 * cushim_slots_trace(). */
struct cushim_hot {
	unsigned char summary;   /* every call counted (CUSHIM_SUMMARY) */
	unsigned char lines;     /* which calls reach cushim_trace_call: 0 none, 1 failed ones, 2 every one */
	unsigned char recording; /* calls go into the rings */
	unsigned char tracing;   /* the diagnostics' outputs have started (cushim_trace_start) */
	long me_at;              /* cushim_me's place from the thread pointer, the same in every thread */
} __attribute__((aligned(64))); /* its size a whole line: nothing else lies in it */
extern struct cushim_hot cushim_hot CUSHIM_HIDDEN;

/* The calling thread's cushim_me, once the recorder has started.  On
 * x86-64, through the thread pointer at cushim_hot.me_at, read with the
 * flags: the library's global offset table, where the compiler would find
 * that offset, is one more line to fetch.  Not in a sanitizer's build: its
 * checks take an address relative to the thread pointer for an address. */
#if defined(__x86_64__) && defined(__SEG_FS) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define CUSHIM_ME (*(struct cushim_writer __seg_fs *)(uintptr_t)cushim_hot.me_at)
/* The thread pointer: the x86-64 ABI keeps it at %fs:0. */
#define CUSHIM_THREAD_POINTER() (*(char *__seg_fs *)0)
#else
#define CUSHIM_ME cushim_me
#endif
int cushim_record_words(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN __attribute__((hot));
int cushim_record_more(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN;
int cushim_record_first(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN;

/* The reservation moved by inc: the value before.  A signal handler on
 * this thread may interrupt it: one instruction does it, so no lock prefix
 * is needed (no other thread writes it). */
static inline uint64_t cushim_reserve(uint64_t inc)
{
#if defined(__x86_64__)
	__asm__ volatile("xaddq %0, %1" : "+r"(inc), "+m"(CUSHIM_ME.reserved) : : "memory");
	return inc;
#else
	return __atomic_fetch_add(&cushim_me.reserved, inc, __ATOMIC_RELAXED);
#endif
}

/* Cell pos of the calling thread's ring. */
static inline struct cushim_cell *cushim_cell_at(uint64_t pos)
{
	return &CUSHIM_ME.g->cells[pos & CUSHIM_ME.mask];
}

/* The head cell of a record (reserved at v), written in place, last of its
 * cells; then the reservation published for the readers. */
static inline void cushim_put_head(uint64_t v, unsigned i, unsigned desc, unsigned ncells, CUresult r, unsigned state,
				   uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	uint64_t pos = CUSHIM_CELLS(v);
	unsigned nw = desc & CUSHIM_REC_WORDS;
	struct cushim_cell *c = cushim_cell_at(pos);
	__atomic_store_n(&c->tag, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* relaxed atomic stores: plain moves, and a reader on another thread
	 * is ordered by the tags alone */
	CUSHIM_CELL_PUT(c, 0, (uint64_t)CUSHIM_SERIAL(v) | (uint64_t)i << 24 | (uint64_t)ncells << 48 | (uint64_t)nw << 56);
	CUSHIM_CELL_PUT(c, 1, (uint32_t)r | (uint64_t)state << 32 | (uint64_t)cushim_rec_string_arg(desc) << 40);
	CUSHIM_CELL_PUT(c, 2, t0);
	CUSHIM_CELL_PUT(c, 3, t1);
	CUSHIM_CELL_PUT(c, 4, nw > 0 ? argv[0] : 0);
	CUSHIM_CELL_PUT(c, 5, nw > 1 ? argv[1] : 0);
	CUSHIM_CELL_PUT(c, 6, nw > 2 ? argv[2] : 0);
	__atomic_store_n(&c->tag, pos << 1 | 1, __ATOMIC_RELEASE);
	__atomic_store_n(&CUSHIM_ME.g->reserved, CUSHIM_ME.reserved, __ATOMIC_RELEASE);
}

/* The call path: record export i's call (desc: its cushim_rec_desc) in
 * the calling thread's ring, which it has: one cell, written in place, for
 * a call of three words or fewer; the cells of words alone (a launch's)
 * straight from the arguments; a string or a handle's name through a
 * copy. */
static inline int cushim_record_in(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1,
				   const uint64_t *argv)
{
	if (desc <= 3) {
		cushim_put_head(cushim_reserve((1ull << CUSHIM_CELL_BITS) + 1), i, desc, 1, r, 0, t0, t1, argv);
		return 1;
	}
	if (desc <= CUSHIM_REC_WORDS)
		return cushim_record_words(i, desc, r, t0, t1, argv);
	return cushim_record_more(i, desc, r, t0, t1, argv);
}

/* The same, the ring made at the thread's first record: 1; 0 where it has
 * none (none could be mapped, or a signal handler interrupted the making
 * of its first): the caller writes the call itself, or counts it lost
 * (cushim_recorder_unringed). */
static inline int cushim_record(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	if (__builtin_expect(!cushim_me.g, 0))
		return cushim_record_first(i, desc, r, t0, t1, argv);
	return cushim_record_in(i, desc, r, t0, t1, argv);
}
#endif
