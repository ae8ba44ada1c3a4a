/* The flight recorder: rings of binary records (recorder.h). */
#include "table.h"
#include "recorder.h"
#include "stamp.h"
#include "peek.h"
#include "state.h"
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>


static struct cushim_ring *rings;
static unsigned ring_log2;
static void (*drain_at_exit)(void); /* a reader, which frees a retired ring once it has read it */
static uint64_t unringed;
static pthread_key_t ring_key;
__thread struct cushim_writer cushim_me __attribute__((tls_model("initial-exec"), aligned(32)));
struct cushim_hot cushim_hot;
static __thread int ring_failed __attribute__((tls_model("initial-exec")));

/* ---- rings: made at a thread's first record, handed on at its exit ---- */
/* What the ring holds becomes older than anything it will hold: a reader
 * then finds it empty, and the next thread's records are not taken for
 * this one's. */
static void forget(struct cushim_ring *g)
{
	uint64_t v = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE) + g->mask + 1;
	__atomic_store_n(&g->floor, v, __ATOMIC_RELAXED);
	__atomic_store_n(&g->reserved, v, __ATOMIC_RELEASE);
}

static void ring_retire(void *p)
{
	struct cushim_ring *g = p;
	cushim_me.g = NULL;
	ring_failed = 1;
	if (drain_at_exit) {
		__atomic_store_n(&g->retired, 1, __ATOMIC_RELEASE);
		drain_at_exit(); /* what the thread did is written as it ends */
		return;
	}
	forget(g);
	__atomic_store_n(&g->free, 1, __ATOMIC_RELEASE);
}

void cushim_ring_release(struct cushim_ring *g, struct cushim_cursor *c)
{
	forget(g);
	cushim_cursor_end(g, c);
	__atomic_store_n(&g->retired, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g->free, 1, __ATOMIC_RELEASE);
}

static struct cushim_ring *new_ring(void)
{
	size_t size = sizeof(struct cushim_ring) + (sizeof(struct cushim_cell) << ring_log2);
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
	cushim_me.mask = g->mask;
	cushim_me.reserved = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* a handler sees a ring only once it is whole */
	cushim_me.g = g;
	ring_failed = 0;
	return g;
}

void cushim_recorder_start(unsigned cells_log2, void (*reader)(void))
{
#ifdef CUSHIM_THREAD_POINTER
	cushim_hot.me_at = (long)((char *)&cushim_me - CUSHIM_THREAD_POINTER());
#endif
	ring_log2 = cells_log2 < 6 ? 6 : cells_log2;
	drain_at_exit = reader;
	cushim_records_init();
	pthread_key_create(&ring_key, ring_retire);
}

/* ---- the call path ---- */
/* Cell pos of a record past its head: n words from w (at most 7), then zeros. */
static inline void put_words(uint64_t pos, const uint64_t *w, unsigned n)
{
	struct cushim_cell *c = cushim_cell_at(pos);
	unsigned k;
	__atomic_store_n(&c->tag, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (k = 0; k < n; k++)
		CUSHIM_CELL_PUT(c, k, w[k]);
	for (; k < 7; k++)
		CUSHIM_CELL_PUT(c, k, 0);
	__atomic_store_n(&c->tag, pos << 1, __ATOMIC_RELEASE);
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

/* Where the driver keeps the name of the handle export i made: its own
 * copy, whole, however long (a C++ kernel's mangled name runs to hundreds of
 * bytes), asked once at the handle's making (cuFuncGetName, cuKernelGetName:
 * CUDA 12.3 and later); 0 where the driver cannot say. */
static uint64_t driver_name(unsigned i, uint64_t made)
{
	typedef CUresult (CUDAAPI *get_name)(const char **, uint64_t);
	int kernel = i == CUSHIM_IDX_cuLibraryGetKernel;
	get_name f = (get_name)cushim_real[kernel ? CUSHIM_IDX_cuKernelGetName : CUSHIM_IDX_cuFuncGetName];
	const char *name = NULL;
	return f && f(&name, made) == CUDA_SUCCESS ? (uint64_t)(uintptr_t)name : 0;
}

/* A record of words alone (a launch's): each cell written straight from
 * the arguments, with no copy between. */
int cushim_record_words(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	unsigned extra = (desc & CUSHIM_REC_WORDS) - 3, ncells = 1 + (extra + 6) / 7;
	uint64_t v = cushim_reserve((1ull << CUSHIM_CELL_BITS) + ncells);
	for (unsigned k = 1; k < ncells; k++, extra -= 7)
		put_words(CUSHIM_CELLS(v) + k, argv + 3 + 7 * (k - 1), extra < 7 ? extra : 7);
	cushim_put_head(v, i, desc, ncells, r, 0, t0, t1, argv);
	return 1;
}

/* A record of more than one cell: words past the third, a string, the
 * handle the call made. */
int cushim_record_more(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	uint64_t more[CUSHIM_REC_MAXWORDS + CUSHIM_REC_STR / 8 + 8] = { 0 }, made = 0;
	unsigned nw = desc & CUSHIM_REC_WORDS, s = cushim_rec_string_arg(desc), state = 0, extra = nw > 3 ? nw - 3 : 0;

	memcpy(more, argv + 3 * (nw > 3), extra * 8);
	if (s) { /* names and paths: rare calls, never the hot ones */
		state = (unsigned)take_string(argv, s - 1, more + extra);
		extra += CUSHIM_REC_STR / 8;
	}
	if (desc & CUSHIM_REC_MAKES) {
		if (r != CUDA_SUCCESS || cushim_peek((const void *)(uintptr_t)argv[0], &made, 8) != 8)
			made = 0;
		more[extra++] = made;
		more[extra++] = made ? driver_name(i, made) : 0;
	}
	unsigned ncells = 1 + (extra + 6) / 7;
	uint64_t v = cushim_reserve((1ull << CUSHIM_CELL_BITS) + ncells);
	for (unsigned k = 1; k < ncells; k++)
		put_words(CUSHIM_CELLS(v) + k, more + 7 * (k - 1), 7);
	cushim_put_head(v, i, desc, ncells, r, state, t0, t1, argv);
	return 1;
}

/* A call that found no ring of its thread: its first, unless one cannot be made. */
int cushim_record_first(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	if (!ring_first())
		return 0;
	return cushim_record_in(i, desc, r, t0, t1, argv);
}

/* ---- readers ---- */
int cushim_rings_each(int (*each)(struct cushim_ring *g, int tid, void *ctx), void *ctx)
{
	int rc = 0;
	for (struct cushim_ring *g = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); g && !rc; g = g->next)
		rc = each(g, __atomic_load_n(&g->tid, __ATOMIC_ACQUIRE), ctx);
	return rc;
}

void cushim_recorder_unringed(void)
{
	__atomic_add_fetch(&unringed, 1, __ATOMIC_RELAXED);
}

uint64_t cushim_recorder_lost(void)
{
	return __atomic_load_n(&unringed, __ATOMIC_RELAXED);
}

/* In a forked child: what every ring holds is the parent's, forgotten at
 * no cost (not cleared: a fork of a process of many threads would write
 * megabytes). */
void cushim_recorder_forked(void)
{
	struct cushim_ring *mine = cushim_me.g;
	if (mine)
		mine->reserved = cushim_me.reserved; /* a fork in a handler that interrupted a record */
	for (struct cushim_ring *g = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); g; g = g->next) {
		if (g != mine)
			g->free = 1;
		g->retired = 0;
		forget(g);
	}
	if (mine) {
		cushim_me.reserved = mine->reserved;
		mine->tid = (int)syscall(SYS_gettid);
	}
}
