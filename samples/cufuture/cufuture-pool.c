/* cufuture: a stream-ordered buffer pool, the analogue of the CUDA caching
 * allocator's recordStream; see cufuture.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_USES 8

enum { FREE, USED, PENDING };

struct block {
	struct block *next;
	CUdeviceptr ptr;
	size_t size;
	CUstream stream; /* allocated on */
	int state;
	int nuses;
	CUstream uses[MAX_USES];  /* recorded streams, while USED */
	CUevent events[MAX_USES]; /* recorded at free, while PENDING */
};

struct cufuture_pool {
	struct cufuture_pool *next;
	int dev;
	pthread_mutex_t lock;
	struct block *blocks;
	cufuture_pool_stats st;
};

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cufuture_pool *pools;

static cufuture_status drv(CUresult rc)
{
	return rc == CUDA_SUCCESS ? CUFUTURE_OK : CUFUTURE_EDRIVER;
}

cufuture_status cufuture_pool_create(cufuture_pool **out, int dev)
{
	cufuture_pool *p;

	*out = NULL;
	if (!cufuture_context(dev))
		return CUFUTURE_EINVAL;
	if (!(p = calloc(1, sizeof *p)))
		return CUFUTURE_ENOMEM;
	p->dev = dev;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_lock(&pools_lock);
	p->next = pools;
	pools = p;
	pthread_mutex_unlock(&pools_lock);
	*out = p;
	return CUFUTURE_OK;
}

/* Pending blocks whose events have all completed become free (lock held,
 * the pool's context current). */
static void process_pending(cufuture_pool *p)
{
	for (struct block *b = p->blocks; b; b = b->next) {
		int i;

		if (b->state != PENDING)
			continue;
		for (i = 0; i < b->nuses; i++)
			if (cuEventQuery(b->events[i]) != CUDA_SUCCESS)
				break;
		if (i < b->nuses)
			continue;
		for (i = 0; i < b->nuses; i++)
			cuEventDestroy(b->events[i]);
		b->nuses = 0;
		b->state = FREE;
		p->st.pending--;
	}
}

static size_t round_size(size_t n)
{
	return n ? (n + 511) & ~(size_t)511 : 512;
}

cufuture_status cufuture_pool_alloc(cufuture_pool *p, size_t bytes, CUstream s, CUdeviceptr *out)
{
	struct block *b;
	cufuture_status st = CUFUTURE_OK;
	CUcontext c;

	bytes = round_size(bytes);
	if (!s)
		s = cufuture_current_stream(p->dev);
	if (cuCtxPushCurrent(cufuture_context(p->dev)) != CUDA_SUCCESS)
		return CUFUTURE_EDRIVER;
	pthread_mutex_lock(&p->lock);
	process_pending(p);
	for (b = p->blocks; b; b = b->next)
		if (b->state == FREE && b->size == bytes && b->stream == s)
			break;
	if (b) {
		p->st.reuses++;
	} else if (!(b = calloc(1, sizeof *b))) {
		st = CUFUTURE_ENOMEM;
	} else if ((st = drv(cuMemAlloc(&b->ptr, bytes))) != CUFUTURE_OK) {
		free(b);
		b = NULL;
	} else {
		b->size = bytes;
		b->stream = s;
		b->next = p->blocks;
		p->blocks = b;
		p->st.allocs++;
	}
	if (b) {
		b->state = USED;
		b->nuses = 0;
		*out = b->ptr;
	}
	pthread_mutex_unlock(&p->lock);
	cuCtxPopCurrent(&c);
	return st;
}

cufuture_status cufuture_pool_free(cufuture_pool *p, CUdeviceptr ptr)
{
	struct block *b;
	cufuture_status st = CUFUTURE_OK;
	CUcontext c;

	if (cuCtxPushCurrent(cufuture_context(p->dev)) != CUDA_SUCCESS)
		return CUFUTURE_EDRIVER;
	pthread_mutex_lock(&p->lock);
	for (b = p->blocks; b; b = b->next)
		if (b->ptr == ptr && b->state == USED)
			break;
	if (!b) {
		st = CUFUTURE_EINVAL;
	} else if (!b->nuses) {
		b->state = FREE; /* safe on its own stream, in stream order */
	} else {
		/* insert_events: one event on each stream that used the block. */
		for (int i = 0; i < b->nuses; i++) {
			b->events[i] = NULL;
			if (st == CUFUTURE_OK && (st = drv(cuEventCreate(&b->events[i], CU_EVENT_DISABLE_TIMING))) ==
			    CUFUTURE_OK)
				st = drv(cuEventRecord(b->events[i], b->uses[i]));
		}
		if (st != CUFUTURE_OK) { /* cannot prove it idle: wait for it */
			for (int i = 0; i < b->nuses; i++) {
				cuStreamSynchronize(b->uses[i]);
				if (b->events[i])
					cuEventDestroy(b->events[i]);
			}
			b->nuses = 0;
			b->state = FREE;
		} else {
			b->state = PENDING;
			p->st.deferred++;
			p->st.pending++;
		}
	}
	pthread_mutex_unlock(&p->lock);
	cuCtxPopCurrent(&c);
	return st;
}

cufuture_status cufuture_record_stream(CUdeviceptr ptr, CUstream s)
{
	cufuture_status st = CUFUTURE_OK;

	pthread_mutex_lock(&pools_lock);
	for (cufuture_pool *p = pools; p; p = p->next) {
		pthread_mutex_lock(&p->lock);
		for (struct block *b = p->blocks; b; b = b->next) {
			int i;

			if (b->state != USED || ptr < b->ptr || ptr >= b->ptr + b->size)
				continue;
			if (s == b->stream)
				break;
			for (i = 0; i < b->nuses && b->uses[i] != s; i++)
				;
			if (i == b->nuses) {
				if (b->nuses < MAX_USES)
					b->uses[b->nuses++] = s;
				else
					st = CUFUTURE_ENOMEM;
			}
			break;
		}
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&pools_lock);
	return st;
}

void cufuture_pool_get_stats(cufuture_pool *p, cufuture_pool_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->st;
	pthread_mutex_unlock(&p->lock);
}

void cufuture_pool_destroy(cufuture_pool *p)
{
	struct block *b, *n;
	cufuture_pool **pp;
	CUcontext c;

	if (!p)
		return;
	pthread_mutex_lock(&pools_lock);
	for (pp = &pools; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = p->next;
	pthread_mutex_unlock(&pools_lock);
	if (cuCtxPushCurrent(cufuture_context(p->dev)) == CUDA_SUCCESS) {
		cuCtxSynchronize();
		for (b = p->blocks; b; b = n) {
			n = b->next;
			for (int i = 0; b->state == PENDING && i < b->nuses; i++)
				cuEventDestroy(b->events[i]);
			cuMemFree(b->ptr);
			free(b);
		}
		cuCtxPopCurrent(&c);
	}
	pthread_mutex_destroy(&p->lock);
	free(p);
}
