/* Out of memory.  When an allocation returns CUDA_ERROR_OUT_OF_MEMORY,
 * cushim says once per context what was asked, the device's free and total
 * memory (cuMemGetInfo), and, under a diagnostic mode (summary, trace,
 * timeline), what this process holds through cushim, by kind: device
 * memory, stream-ordered pools, VMM, managed and host-pinned.  Holding is
 * counted only there: the allocation and free wrappers then keep each
 * allocation's size in a table.  By default only the allocation wrappers are
 * in place, and on success they cost a call and a test.
 *
 * The table's lock guards memory alone: no call into the driver, the
 * loader or stdio is made while it is held. */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "errors.h"
#include "explain.h"
#include "explain-oom.h"
#include "peek.h"
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>

enum kind { K_DEVICE, K_POOL, K_VMM, K_MANAGED, K_HOST, NKINDS };
static const char *const kind_name[NKINDS] = { "device", "pools", "VMM", "managed", "host-pinned" };

/* ---- what the process holds: key (pointer or handle) -> size and kind ---- */
#define SLOTS (1u << 16)
struct held {
	uint64_t key, size;
	int kind; /* -1: empty; -2: freed (the probe goes on past it) */
};
static struct held *table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t bytes[NKINDS], count[NKINDS], untracked; /* untracked: the table was full */
static int counting;

static struct held *probe(uint64_t key, int insert)
{
	for (uint32_t k = 0, h = (uint32_t)((key >> 4) * 2654435761u) & (SLOTS - 1); k < SLOTS; k++, h = (h + 1) & (SLOTS - 1)) {
		struct held *s = &table[h];
		if (s->kind >= 0 && s->key == key)
			return s;
		if (s->kind == -1 || (insert && s->kind == -2))
			return insert ? s : NULL;
	}
	return NULL;
}

static void hold(uint64_t key, uint64_t size, enum kind kind)
{
	struct held *s;
	if (!key)
		return; /* the driver named nothing: nothing to free later */
	pthread_mutex_lock(&table_lock);
	if (table && (s = probe(key, 1))) {
		*s = (struct held){ key, size, kind };
		bytes[kind] += size, count[kind]++;
	} else if (table) {
		untracked++;
	}
	pthread_mutex_unlock(&table_lock);
}

static void release(uint64_t key)
{
	struct held *s;
	pthread_mutex_lock(&table_lock);
	if (table && key && (s = probe(key, 0))) {
		bytes[s->kind] -= s->size, count[s->kind]--;
		s->kind = -2;
	}
	pthread_mutex_unlock(&table_lock);
}

/* The word the driver wrote at out (the program's variable): 0 when unreadable. */
static uint64_t written(const void *out)
{
	uint64_t v = 0;
	return cushim_peek(out, &v, sizeof v) == sizeof v ? v : 0;
}

static const char *amount(uint64_t n, char buf[32])
{
	if (n >= (1ull << 30))
		snprintf(buf, 32, "%.2f GiB", (double)n / (1ull << 30));
	else
		snprintf(buf, 32, "%.2f MiB", (double)n / (1ull << 20));
	return buf;
}

/* ---- the message, once per context ---- */
static uintptr_t said_in[16]; /* the contexts said for */

static void holdings(char *buf, size_t size)
{
	uint64_t b[NKINDS], c[NKINDS], u;
	char a[32];
	size_t o;

	if (!__atomic_load_n(&counting, __ATOMIC_ACQUIRE)) {
		snprintf(buf, size, "What this process holds is counted only under a diagnostic mode (cushim run "
			 "--summary, --log=trace or --timeline).");
		return;
	}
	pthread_mutex_lock(&table_lock);
	memcpy(b, bytes, sizeof b), memcpy(c, count, sizeof c), u = untracked;
	pthread_mutex_unlock(&table_lock);
	o = (size_t)snprintf(buf, size, "This process holds through cushim:");
	for (int k = 0; k < NKINDS && o < size; k++)
		o += (size_t)snprintf(buf + o, size - o, "%s %s %s in %llu allocation%s", k ? "," : "", kind_name[k],
				      amount(b[k], a), (unsigned long long)c[k], c[k] == 1 ? "" : "s");
	if (u && o < size)
		o += (size_t)snprintf(buf + o, size - o, " (and %llu not counted: the table was full)",
				      (unsigned long long)u);
	if (o < size)
		snprintf(buf + o, size - o, ". A framework that pools memory (PyTorch's caching allocator, say) shows as "
			 "a few large allocations: what it uses of them cushim cannot see.");
}

static void out_of_memory(const char *fn, uint64_t want, enum kind kind)
{
	char text[1600], held[900], a[32], f[32], t[32], on[32] = "";
	size_t free_b = 0, total_b = 0;
	CUdevice dev = -1;
	cushim_fn_cuMemGetInfo_v2 *info = (cushim_fn_cuMemGetInfo_v2 *)cushim_real[CUSHIM_IDX_cuMemGetInfo_v2];
	cushim_fn_cuCtxGetDevice *getdev = (cushim_fn_cuCtxGetDevice *)cushim_real[CUSHIM_IDX_cuCtxGetDevice];

	if (!cushim_first_in_context(said_in, 16))
		return;
	int known = info && info(&free_b, &total_b) == CUDA_SUCCESS && total_b > 0;
	if (!getdev || getdev(&dev) != CUDA_SUCCESS)
		dev = -1;
	holdings(held, sizeof held);
	if (dev >= 0)
		snprintf(on, sizeof on, " on device %d", (int)dev);
	snprintf(text, sizeof text, "%s returned CUDA_ERROR_OUT_OF_MEMORY asking for %s of %s memory%s: %s%s%s%s%s. %s",
		 fn, want ? amount(want, a) : "an array", kind_name[kind], on,
		 known ? "the device has " : "the device's free memory is unknown (cuMemGetInfo failed)",
		 known ? amount(free_b, f) : "", known ? " free of " : "", known ? amount(total_b, t) : "",
		 known ? " (cuMemGetInfo)" : "", held);
	cushim_cause("out-of-memory", text);
}

/* ---- the wrappers: an allocation (out is where the driver writes what it
 * made), and, when counting, its free ---- */
#define REAL(name) ((cushim_fn_##name *)cushim_real[CUSHIM_IDX_##name])
#define ALLOC(name, call, out, want, size, kind)                                         \
	do {                                                                              \
		CUresult r_ = REAL(name) call;                                            \
		if (__builtin_expect(r_ == CUDA_ERROR_OUT_OF_MEMORY, 0))                 \
			out_of_memory(#name, want, kind);                                 \
		else if (r_ == CUDA_SUCCESS && __atomic_load_n(&counting, __ATOMIC_RELAXED)) \
			hold(written(out), size, kind);                                   \
		return r_;                                                                \
	} while (0)
#define FREE(name, call, key)                            \
	do {                                             \
		CUresult r_ = REAL(name) call;           \
		if (r_ == CUDA_SUCCESS)                  \
			release((uint64_t)(key));        \
		return r_;                               \
	} while (0)

static CUresult CUDAAPI w_cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	ALLOC(cuMemAlloc_v2, (p, n), p, n, n, K_DEVICE);
}

static CUresult CUDAAPI w_cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e)
{
	ALLOC(cuMemAllocPitch_v2, (p, pitch, w, h, e), p, (uint64_t)w * h, written(pitch) * h, K_DEVICE);
}

static CUresult CUDAAPI w_cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s)
{
	ALLOC(cuMemAllocAsync, (p, n, s), p, n, n, K_POOL);
}

static CUresult CUDAAPI w_cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s)
{
	ALLOC(cuMemAllocAsync_ptsz, (p, n, s), p, n, n, K_POOL);
}

static CUresult CUDAAPI w_cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	ALLOC(cuMemAllocFromPoolAsync, (p, n, pool, s), p, n, n, K_POOL);
}

static CUresult CUDAAPI w_cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	ALLOC(cuMemAllocFromPoolAsync_ptsz, (p, n, pool, s), p, n, n, K_POOL);
}

static CUresult CUDAAPI w_cuMemCreate(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *prop,
				      unsigned long long flags)
{
	ALLOC(cuMemCreate, (h, n, prop, flags), h, n, n, K_VMM);
}

static CUresult CUDAAPI w_cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned flags)
{
	ALLOC(cuMemAllocManaged, (p, n, flags), p, n, n, K_MANAGED);
}

static CUresult CUDAAPI w_cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	ALLOC(cuMemHostAlloc, (p, n, flags), p, n, n, K_HOST);
}

static CUresult CUDAAPI w_cuMemAllocHost_v2(void **p, size_t n)
{
	ALLOC(cuMemAllocHost_v2, (p, n), p, n, n, K_HOST);
}

static CUresult CUDAAPI w_cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d)
{
	ALLOC(cuArrayCreate_v2, (a, d), NULL, 0, 0, K_DEVICE);
}

static CUresult CUDAAPI w_cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	ALLOC(cuArray3DCreate_v2, (a, d), NULL, 0, 0, K_DEVICE);
}

static CUresult CUDAAPI w_cuMemFree_v2(CUdeviceptr p)
{
	FREE(cuMemFree_v2, (p), p);
}

static CUresult CUDAAPI w_cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
	FREE(cuMemFreeAsync, (p, s), p);
}

static CUresult CUDAAPI w_cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s)
{
	FREE(cuMemFreeAsync_ptsz, (p, s), p);
}

static CUresult CUDAAPI w_cuMemRelease(CUmemGenericAllocationHandle h)
{
	FREE(cuMemRelease, (h), h);
}

static CUresult CUDAAPI w_cuMemFreeHost(void *p)
{
	FREE(cuMemFreeHost, (p), (uintptr_t)p);
}

#define ROW(name) { CUSHIM_IDX_##name, (void *)w_##name }
static const struct {
	unsigned idx;
	void *fn;
} allocs[] = {
	ROW(cuMemAlloc_v2), ROW(cuMemAllocPitch_v2), ROW(cuMemAllocAsync), ROW(cuMemAllocAsync_ptsz),
	ROW(cuMemAllocFromPoolAsync), ROW(cuMemAllocFromPoolAsync_ptsz), ROW(cuMemCreate), ROW(cuMemAllocManaged),
	ROW(cuMemHostAlloc), ROW(cuMemAllocHost_v2), ROW(cuArrayCreate_v2), ROW(cuArray3DCreate_v2),
}, frees[] = {
	ROW(cuMemFree_v2), ROW(cuMemFreeAsync), ROW(cuMemFreeAsync_ptsz), ROW(cuMemRelease), ROW(cuMemFreeHost),
};

/* The allocators' wrappers as claims; with_count (a diagnostic mode): the
 * frees' too, and the table of what is held. */
size_t cushim_oom_claims(struct cushim_claim *c, int with_count)
{
	size_t n = 0;
	_Static_assert(sizeof allocs / sizeof *allocs + sizeof frees / sizeof *frees <= CUSHIM_MAX_CLAIMS,
		       "the claims fit");
	for (size_t k = 0; k < sizeof allocs / sizeof *allocs; k++)
		c[n++] = (struct cushim_claim){ allocs[k].idx, allocs[k].fn, CUSHIM_OWNER_MEMORY, CUSHIM_CLAIM_REPLACE, NULL };
	if (!with_count)
		return n;
	void *t = mmap(NULL, SLOTS * sizeof *table, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return n;
	for (uint32_t k = 0; k < SLOTS; k++)
		((struct held *)t)[k].kind = -1;
	table = t;
	for (size_t k = 0; k < sizeof frees / sizeof *frees; k++)
		c[n++] = (struct cushim_claim){ frees[k].idx, frees[k].fn, CUSHIM_OWNER_MEMORY, CUSHIM_CLAIM_REPLACE, NULL };
	/* no wrapper runs before the slots are published, after the claims */
	__atomic_store_n(&counting, 1, __ATOMIC_RELEASE);
	return n;
}
