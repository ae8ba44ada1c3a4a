/* cufuture: completion from a host function (cuLaunchHostFunc); see
 * cufuture_mark_completed_after in cufuture.h. A host function may not call
 * CUDA, and completing a future records events and runs callbacks that do:
 * the host function only queues the completion for cufuture's completion
 * thread, which marks the future completed in the order the jobs arrived. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
	struct job *next;
	cufuture *f;
	void *value;
	size_t nbufs;
	CUdeviceptr bufs[CUFUTURE_MAX_BUFFERS];
};

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_ready = PTHREAD_COND_INITIALIZER;
static struct job *q_head, **q_tail = &q_head;
static pthread_once_t q_once = PTHREAD_ONCE_INIT;
static int q_started;

static void *completer(void *arg)
{
	(void)arg;
	for (;;) {
		struct job *j;

		pthread_mutex_lock(&q_lock);
		while (!q_head)
			pthread_cond_wait(&q_ready, &q_lock);
		j = q_head;
		if (!(q_head = j->next))
			q_tail = &q_head;
		pthread_mutex_unlock(&q_lock);
		if (cufuture_mark_completed(j->f, j->value, j->bufs, j->nbufs) != CUFUTURE_OK)
			fprintf(stderr, "cufuture: completion after a host function failed: %s\n", cufuture_last_error());
		cufuture_release(j->f);
		free(j);
	}
	return NULL;
}

static void start_completer(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, completer, NULL) == 0) {
		pthread_detach(t);
		q_started = 1;
	}
}

/* The host function: no CUDA here, only the hand-over. */
static void CUDA_CB on_stream_done(void *arg)
{
	struct job *j = arg;

	pthread_mutex_lock(&q_lock);
	*q_tail = j;
	q_tail = &j->next;
	pthread_cond_signal(&q_ready);
	pthread_mutex_unlock(&q_lock);
}

cufuture_status cufuture_mark_completed_after(cufuture *f, CUstream s, void *value, const CUdeviceptr *bufs,
					      size_t nbufs)
{
	struct job *j;
	CUcontext c;
	CUresult rc;
	int dev;

	if (nbufs > CUFUTURE_MAX_BUFFERS || (nbufs && !bufs) || !s)
		return CUFUTURE_EINVAL;
	if (cufuture_stream_device(s, &dev) != CUFUTURE_OK)
		return CUFUTURE_EDRIVER;
	pthread_once(&q_once, start_completer);
	if (!q_started || !(j = calloc(1, sizeof *j)))
		return CUFUTURE_ENOMEM;
	j->f = cufuture_retain(f);
	j->value = value;
	j->nbufs = nbufs;
	if (nbufs)
		memcpy(j->bufs, bufs, nbufs * sizeof *bufs);
	if (cuCtxPushCurrent(cufuture_context(dev)) != CUDA_SUCCESS) {
		cufuture_release(f);
		free(j);
		return CUFUTURE_EDRIVER;
	}
	rc = cuLaunchHostFunc(s, on_stream_done, j);
	cuCtxPopCurrent(&c);
	if (rc != CUDA_SUCCESS) {
		cufuture_release(f);
		free(j);
		return CUFUTURE_EDRIVER;
	}
	return CUFUTURE_OK;
}
