/* The flight recorder: rings of binary records (recorder.h). */
#include "table.h"
#include "recorder.h"
#include "stamp.h"
#include "peek.h"
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A cell: its tag, then seven words.  A head's first two words hold the
 * record's serial, function, cells and words, then its result and state;
 * then t0, t1 and three argument words. */
struct cell {
	uint64_t tag; /* (position << 1) | head; 0 while being written */
	uint64_t w[7];
};

struct cushim_ring {
	struct cushim_ring *next;
	int free;          /* its thread has exited: the next new thread may take it */
	int tid;
	uint64_t reserved; /* cells in the low 40 bits, records above: the owner's alone */
	uint64_t mask;
	struct cell cells[];
};

#define CELL_BITS 40
#define CELLS(v) ((v) & ((1ull << CELL_BITS) - 1))
#define SERIAL(v) ((uint32_t)((v) >> CELL_BITS) & 0xffffff)

static struct cushim_ring *rings;
static unsigned ring_log2;
static uint64_t unringed;
static pthread_key_t ring_key;
static __thread struct cushim_ring *my_ring __attribute__((tls_model("initial-exec")));
static __thread int ring_failed __attribute__((tls_model("initial-exec")));
static unsigned char string_arg[CUSHIM_NSYMS]; /* 1 + the argument that is a string; 0 none */
static unsigned char makes[CUSHIM_NSYMS];      /* its first argument receives a handle worth naming */

/* ---- rings: made at a thread's first record, handed on at its exit ---- */
static void ring_retire(void *p)
{
	struct cushim_ring *g = p;
	my_ring = NULL;
	ring_failed = 1;
	__atomic_store_n(&g->free, 1, __ATOMIC_RELEASE);
}

static struct cushim_ring *new_ring(void)
{
	size_t size = sizeof(struct cushim_ring) + (sizeof(struct cell) << ring_log2);
	struct cushim_ring *g = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED)
		return NULL;
	g->mask = (1ull << ring_log2) - 1;
	g->next = __atomic_load_n(&rings, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&rings, &g->next, g, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		;
	return g;
}

/* This thread's ring: a freed one, else a new mapping.  Safe in a signal
 * handler: no malloc, no lock. */
static struct cushim_ring *ring_first(void)
{
	struct cushim_ring *g;
	if (ring_failed)
		return NULL;
	ring_failed = 1; /* a handler interrupting the search records nothing */
	for (g = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); g; g = g->next) {
		int one = 1;
		if (__atomic_load_n(&g->free, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&g->free, &one, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (!g && !(g = new_ring()))
		return NULL;
	__atomic_store_n(&g->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_setspecific(ring_key, g);
	my_ring = g;
	ring_failed = 0;
	return g;
}

void cushim_recorder_start(unsigned cells_log2)
{
	static const char *const named[] = { "cuModuleGetFunction", "cuLibraryGetKernel", "cuKernelGetFunction" };
	ring_log2 = cells_log2 < 6 ? 6 : cells_log2;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		for (unsigned k = 0; k < cushim_nargs[i] && !string_arg[i]; k++)
			if (cushim_argdescs[i][k].cls == CUSHIM_A_STR)
				string_arg[i] = (unsigned char)(k + 1);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		for (size_t k = 0; k < sizeof named / sizeof *named; k++)
			makes[i] |= strcmp(cushim_syms[i].name, named[k]) == 0;
	pthread_key_create(&ring_key, ring_retire);
}

/* ---- the call path ---- */
static inline void put_cell(struct cushim_ring *g, uint64_t pos, int head, const uint64_t w[7])
{
	struct cell *c = &g->cells[pos & g->mask];
	__atomic_store_n(&c->tag, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(c->w, w, sizeof c->w);
	__atomic_store_n(&c->tag, pos << 1 | (uint64_t)head, __ATOMIC_RELEASE);
}

/* The string argument's bytes, through the checked copy, into words; their
 * state (0 whole, 1 cut, 2 unreadable). */
static int take_string(const uint64_t *argv, unsigned k, uint64_t *words)
{
	int cut = 0;
	memset(words, 0, CUSHIM_REC_STR);
	if (!argv[k])
		return 2;
	long n = cushim_peek_str((const void *)(uintptr_t)argv[k], (char *)words, CUSHIM_REC_STR, &cut);
	return n < 0 ? 2 : cut;
}

void cushim_record(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	struct cushim_ring *g = my_ring;
	uint64_t more[2 + CUSHIM_REC_MAXWORDS + CUSHIM_REC_STR / 8 + 6] = { 0 }, made = 0;
	unsigned nw = cushim_nargs[i], s = string_arg[i], state = 0, extra = nw > 3 ? nw - 3 : 0;

	if (__builtin_expect(!g, 0) && !(g = ring_first())) {
		__atomic_add_fetch(&unringed, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(more, argv + 3 * (nw > 3), extra * 8);
	if (__builtin_expect(s != 0, 0)) { /* names and paths: rare calls, never the hot ones */
		state = (unsigned)take_string(argv, s - 1, more + extra);
		extra += CUSHIM_REC_STR / 8;
	}
	if (__builtin_expect(makes[i], 0)) {
		if (r != CUDA_SUCCESS || cushim_peek((const void *)(uintptr_t)argv[0], &made, 8) != 8)
			made = 0;
		more[extra++] = made;
	}
	unsigned ncells = 1 + (extra + 6) / 7;
	uint64_t v = __atomic_fetch_add(&g->reserved, (1ull << CELL_BITS) + ncells, __ATOMIC_RELAXED);
	uint64_t pos = CELLS(v);
	for (unsigned k = 1; k < ncells; k++)
		put_cell(g, pos + k, 0, more + 7 * (k - 1));
	uint64_t head[7] = { (uint64_t)SERIAL(v) | (uint64_t)i << 24 | (uint64_t)ncells << 48 | (uint64_t)nw << 56,
			     (uint32_t)r | (uint64_t)state << 32 | (uint64_t)s << 40, t0, t1,
			     nw > 0 ? argv[0] : 0, nw > 1 ? argv[1] : 0, nw > 2 ? argv[2] : 0 };
	put_cell(g, pos, 1, head);
}

/* ---- readers ---- */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx)
{
	int rc = 0;
	for (struct cushim_ring *g = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); g && !rc; g = g->next)
		rc = each(g, __atomic_load_n(&g->tid, __ATOMIC_ACQUIRE), ctx);
	return rc;
}

uint64_t cushim_recorder_unringed(void)
{
	return __atomic_load_n(&unringed, __ATOMIC_RELAXED);
}

/* Cell pos whole into *out: 1; 0 not written yet; -1 overwritten. */
static int get_cell(const struct cushim_ring *g, uint64_t pos, int head, struct cell *out)
{
	const struct cell *c = &g->cells[pos & g->mask];
	uint64_t want = pos << 1 | (uint64_t)head, t = __atomic_load_n(&c->tag, __ATOMIC_ACQUIRE);
	if (t != want)
		return t == 0 || t >> 1 < pos ? 0 : -1;
	memcpy(out->w, c->w, sizeof out->w);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&c->tag, __ATOMIC_RELAXED) == want ? 1 : -1;
}

/* Past what the ring overwrote: to the first head it still holds. */
static void catch_up(const struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t end = CELLS(__atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE)), size = g->mask + 1;
	struct cell h;
	uint64_t pos = end > size && c->cell < end - size ? end - size : c->cell;
	for (; pos < end; pos++)
		if (get_cell(g, pos, 1, &h) == 1) {
			uint32_t serial = (uint32_t)h.w[0] & 0xffffff;
			c->lost += (serial - c->serial) & 0xffffff;
			c->serial = serial;
			break;
		}
	c->cell = pos;
}

void cushim_cursor_oldest(struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t v = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	c->cell = 0, c->serial = 0, c->lost = 0;
	if (CELLS(v) > g->mask + 1)
		catch_up(g, c), c->lost = 0;
}

void cushim_cursor_end(struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t v = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	c->cell = CELLS(v), c->serial = SERIAL(v), c->lost = 0;
}

static void decode(const struct cell *cells, struct cushim_rec *rec)
{
	const uint64_t *h = cells[0].w;
	uint64_t words[7 * 8];
	unsigned ncells = (unsigned)(h[0] >> 48 & 0xff), nw = (unsigned)(h[0] >> 56), s = (unsigned)(h[1] >> 40 & 0xff);
	for (unsigned k = 1; k < ncells; k++)
		memcpy(words + 7 * (k - 1), cells[k].w, sizeof cells[k].w);
	rec->serial = (uint32_t)h[0] & 0xffffff;
	rec->fn = (unsigned)(h[0] >> 24 & 0xffffff);
	rec->result = (CUresult)(uint32_t)h[1];
	rec->t0 = h[2], rec->t1 = h[3];
	rec->nwords = nw;
	for (unsigned k = 0; k < nw && k < 3; k++)
		rec->argv[k] = h[4 + k];
	unsigned extra = nw > 3 ? nw - 3 : 0;
	memcpy(rec->argv + 3, words, extra * 8);
	rec->str_arg = s ? (int)s - 1 : -1;
	rec->str_state = (int)(h[1] >> 32 & 0xff);
	rec->made = 0;
	rec->str[0] = '\0';
	if (s) {
		memcpy(rec->str, words + extra, CUSHIM_REC_STR);
		rec->str[CUSHIM_REC_STR - 1] = '\0';
		extra += CUSHIM_REC_STR / 8;
	}
	if (rec->fn < CUSHIM_NSYMS && makes[rec->fn])
		rec->made = words[extra];
}

int cushim_ring_read(struct cushim_ring *g, struct cushim_cursor *c, struct cushim_rec *rec)
{
	struct cell cells[8];
	for (;;) {
		int got = get_cell(g, c->cell, 1, &cells[0]);
		if (got == 0)
			return 0;
		unsigned ncells = got > 0 ? (unsigned)(cells[0].w[0] >> 48 & 0xff) : 0;
		for (unsigned k = 1; got > 0 && k < ncells && k < 8; k++)
			got = get_cell(g, c->cell + k, 0, &cells[k]);
		if (got > 0 && ncells >= 1 && ncells <= 8) {
			decode(cells, rec);
			c->lost += (rec->serial - c->serial) & 0xffffff; /* a head the reader skipped */
			c->cell += ncells;
			c->serial = (rec->serial + 1) & 0xffffff;
			return 1;
		}
		if (got == 0)
			return 0;
		if (got > 0) { /* a head that cannot be: step over it */
			c->cell++;
			continue;
		}
		catch_up(g, c); /* overwritten while read, or never whole: lost */
	}
}

void cushim_recorder_forked(void)
{
	for (struct cushim_ring *g = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); g; g = g->next) {
		if (g != my_ring)
			g->free = 1;
		g->reserved = 0;
		memset(g->cells, 0, sizeof(struct cell) << ring_log2);
	}
	if (my_ring)
		my_ring->tid = (int)syscall(SYS_gettid);
}
