/* The flight recorder's records (records.c): how a ring lays them out and
 * how a reader takes them back, in the library (recorder.c writes them) and
 * in the command (a record file's rings).
 *
 * A ring is cells of 64 bytes; a record takes one cell for its head (the
 * function, result, ticks and three argument words), then one per seven
 * more words, then those of its string, then the handle it made and where
 * the driver keeps that handle's name.  Every
 * cell carries a tag (its position, and whether it heads a record), written
 * last: a reader that finds the tag it expects before and after copying a
 * cell has it whole, and one that finds a newer tag knows the ring
 * overwrote it.  Rings never wait for a reader: a reader that falls behind
 * counts what it lost. */
#ifndef CUSHIM_RECORDS_H
#define CUSHIM_RECORDS_H
#include "table.h"
#include <stddef.h>
#include <stdint.h>

#define CUSHIM_REC_MAXWORDS 16 /* the most arguments any export has */
#define CUSHIM_REC_STR 72      /* bytes of a string argument kept, its NUL included */
#define CUSHIM_CELL_BITS 40    /* reserved: cells below, records above */
#define CUSHIM_CELLS(v) ((v) & ((1ull << CUSHIM_CELL_BITS) - 1))
#define CUSHIM_SERIAL(v) ((uint32_t)((v) >> CUSHIM_CELL_BITS) & 0xffffff)

struct cushim_cell {
	uint64_t tag; /* (position << 1) | head; 0 while being written */
	uint64_t w[7];
};

/* A cell's word k, written and read as a relaxed atomic (a plain move):
 * writer and reader are ordered by the tags alone. */
#define CUSHIM_CELL_PUT(c, k, v) __atomic_store_n(&(c)->w[k], (v), __ATOMIC_RELAXED)
#define CUSHIM_CELL_GET(c, k) __atomic_load_n(&(c)->w[k], __ATOMIC_RELAXED)

struct cushim_ring {
	struct cushim_ring *next;
	int free;          /* its thread has exited: the next new thread may take it */
	int retired;       /* its thread has exited: once read to the end, it is freed */
	int tid;
	uint64_t reserved; /* cells in the low 40 bits, records above: the owner's alone */
	uint64_t floor;    /* reserved when what it held was last forgotten: a new reader starts there */
	uint64_t mask;     /* cells - 1 */
	struct cushim_cell cells[];
};

struct cushim_rec {
	unsigned fn;
	CUresult result;
	uint64_t t0, t1;
	unsigned nwords;
	uint64_t argv[CUSHIM_REC_MAXWORDS];
	int str_arg;   /* the argument whose bytes str holds; -1 none */
	int str_state; /* 0 whole, 1 cut at CUSHIM_REC_STR - 1 bytes, 2 unreadable past them */
	char str[CUSHIM_REC_STR];
	uint64_t made; /* the handle the call made (its first argument's target), where it names one */
	uint64_t made_name; /* the driver's own copy of that handle's name (cuFuncGetName), 0 unknown */
	uint32_t serial; /* the record's number in its ring (low 24 bits) */
};

/* What a record of an export holds, as one number: its argument words
 * (CUSHIM_REC_WORDS), 1 + the argument that is a string (CUSHIM_REC_STRING;
 * 0 none), and CUSHIM_REC_MAKES where its first argument receives a handle
 * whose name is kept.  The trace wrappers pass their row's as a constant,
 * worked out by cushim_rec_describe at compile time, so that the call path
 * reads no table for it; the readers take it from cushim_rec_desc, which
 * cushim_records_init fills by the same function. */
#define CUSHIM_REC_WORDS 0xffu
#define CUSHIM_REC_STRING_SHIFT 8
#define CUSHIM_REC_STRING (0x1fu << CUSHIM_REC_STRING_SHIFT)
#define CUSHIM_REC_MAKES 0x2000u
static inline __attribute__((always_inline)) unsigned cushim_rec_describe(const struct cushim_argdesc *d, unsigned n,
									  const char *name)
{
	unsigned s = 0;
#pragma GCC unroll 16 /* unrolled whole, so that a wrapper's is a constant */
	for (unsigned k = 0; k < CUSHIM_REC_MAXWORDS; k++)
		if (!s && k < n && d[k].cls == CUSHIM_A_STR)
			s = k + 1;
	return n | s << CUSHIM_REC_STRING_SHIFT |
	       (!__builtin_strcmp(name, "cuModuleGetFunction") || !__builtin_strcmp(name, "cuLibraryGetKernel") ||
				!__builtin_strcmp(name, "cuKernelGetFunction")
			? CUSHIM_REC_MAKES
			: 0);
}
static inline unsigned cushim_rec_string_arg(unsigned desc)
{
	return (desc & CUSHIM_REC_STRING) >> CUSHIM_REC_STRING_SHIFT;
}
extern unsigned short cushim_rec_desc[CUSHIM_NSYMS] CUSHIM_HIDDEN;
void cushim_records_init(void) CUSHIM_HIDDEN;

/* The exports' names as one number (FNV-1a), so that a reader of a record
 * file knows its table is the one the records were made with. */
uint64_t cushim_table_digest(void) CUSHIM_HIDDEN;

/* A reader's place in a ring: the cell it reads next and the record it
 * expects there. */
struct cushim_cursor {
	uint64_t cell;
	uint32_t serial;
	uint64_t lost; /* records overwritten before this reader read them */
};
/* A cursor at the oldest record the ring still holds. */
void cushim_cursor_oldest(const struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;
/* A cursor at the ring's end: only records made after this call are read. */
void cushim_cursor_end(const struct cushim_ring *g, struct cushim_cursor *c) CUSHIM_HIDDEN;
/* The record at c into *rec and c past it: 1; 0 when the ring holds no
 * finished record there yet.  Records the ring overwrote are skipped and
 * counted in c->lost. */
int cushim_ring_read(const struct cushim_ring *g, struct cushim_cursor *c, struct cushim_rec *rec) CUSHIM_HIDDEN;
#endif
