/* cufuture: a CUDA-aware future on the CUDA driver API, after PyTorch's
 * at::cuda::CUDAFuture (pytorch/pytorch#48506 and its stack).
 *
 * A future is created for a set of devices. Completing it records one CUDA
 * event per device that holds the value's buffers, on that device's current
 * stream; waiters and callbacks never block the host on the GPU, they make
 * their own streams wait on those events instead.
 *
 *   - "current stream": per thread and per device, as in c10::cuda; stream 0
 *     (the legacy default stream) until cufuture_set_current_stream.
 *   - "current device": the device of the calling thread's current context;
 *     cufuture uses each device's primary context.
 *   - completion from another thread, as upstream's markCompleted: the events
 *     go on the completing thread's current streams, not on the producer's.
 *     That thread must make its current stream on each data device follow
 *     the producer's work (set the producer's stream current, or make its own
 *     wait on an event the producer recorded) before it completes the future;
 *     then no callback or wait sees the data early, however long the producer
 *     still runs. A thread with no current stream records on the legacy
 *     default stream, which does not wait for non-blocking streams.
 *     cufuture_mark_completed_after needs none of this: its host function
 *     runs once the producer's stream has reached it, so the completion
 *     thread's events (on its legacy streams) follow the data, and the
 *     producer's stream may go on with other work.
 *   - callbacks run on the thread that completes the future (or inline in
 *     cufuture_add_callback/cufuture_then when it is already complete), on a
 *     fresh stream from a per-device pool that first waits on the events,
 *     with the completion-time device current; both are restored afterwards.
 *
 *   - buffers that are not CUDA device memory (host memory, pinned or not)
 *     are kept with the value but skipped for events, as upstream skips
 *     non-CUDA storages.
 *
 * Every driver call goes through libcuda, by linking, or (built with
 * -DRTROUTE) through the CUDA runtime's cudaGetDriverEntryPointByVersion as
 * TransformerEngine reaches the driver (samples/common/rtroute.h). One optional
 * call is used: cuStreamGetDevice (CUDA 12.8); when it is missing or answers
 * CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, cufuture falls back to
 * cuStreamGetCtx + cuCtxGetDevice (see cufuture_optional_path).
 */
#ifndef CUFUTURE_H
#define CUFUTURE_H

#include <stddef.h>
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUFUTURE_MAX_DEVICES 64
#define CUFUTURE_MAX_BUFFERS 16
#define CUFUTURE_ERRLEN 256
#define CUFUTURE_POOL_STREAMS 8 /* streams per device in the callback pool */

typedef enum cufuture_status {
	CUFUTURE_OK = 0,
	CUFUTURE_EINVAL,   /* a bad argument (bad device, no callback, ...) */
	CUFUTURE_EDEVICE,  /* buffers on a device the future was not created for */
	CUFUTURE_EALREADY, /* the future is already complete */
	CUFUTURE_EFUTURE,  /* the future holds an error (cufuture_error says which) */
	CUFUTURE_EDRIVER,  /* a driver call failed */
	CUFUTURE_ENOMEM
} cufuture_status;

typedef struct cufuture cufuture;

/* What a cufuture_then callback produces: the child's value and the buffers
 * that hold its data, or (when it returns non-zero) an error message. */
typedef struct cufuture_result {
	void *value;
	size_t nbufs;
	CUdeviceptr bufs[CUFUTURE_MAX_BUFFERS];
	char error[CUFUTURE_ERRLEN];
} cufuture_result;

/* add_callback: a non-zero return is an error, reported and swallowed. */
typedef int (*cufuture_callback_fn)(cufuture *fut, void *arg, char *err, size_t errlen);
/* then: a non-zero return makes result->error the child's error. */
typedef int (*cufuture_then_fn)(cufuture *parent, void *arg, cufuture_result *result);
/* Where swallowed add_callback errors go (default: stderr). */
typedef void (*cufuture_reporter_fn)(const char *msg, void *arg);

/* ---- the library ---- */
cufuture_status cufuture_init(void); /* cuInit and the device count */
int cufuture_device_count(void);
const char *cufuture_last_error(void); /* this thread's last failure, in words */
const char *cufuture_status_name(cufuture_status s);
void cufuture_set_reporter(cufuture_reporter_fn fn, void *arg);
/* Which path the optional call took: "cuStreamGetDevice" or
 * "cuStreamGetCtx+cuCtxGetDevice (fallback: <why>)"; "unused" before. */
const char *cufuture_optional_path(void);

/* ---- devices and current streams (the c10::cuda analogue) ---- */
CUcontext cufuture_context(int dev);  /* the device's primary context */
cufuture_status cufuture_set_device(int dev); /* -1: no current context */
int cufuture_current_device(void);    /* -1 without a current context */
CUstream cufuture_current_stream(int dev);
cufuture_status cufuture_set_current_stream(CUstream s); /* its device comes from the stream */
cufuture_status cufuture_stream_device(CUstream s, int *dev);
/* The next stream of dev's pool (getStreamFromPool): non-blocking, of the
 * context's lowest priority, or its highest with high_priority. Callbacks
 * take low-priority ones. */
cufuture_status cufuture_stream_from_pool(int dev, int high_priority, CUstream *out);

/* ---- futures ---- */
/* devices: indices, duplicates dropped; a bad index is CUFUTURE_EINVAL. */
cufuture_status cufuture_create(cufuture **out, const int *devices, int ndevices);
/* devices as text, "cuda:0,1,cuda:1": "cpu" or junk is CUFUTURE_EINVAL with
 * "Expected devices to have indices, got cpu". */
cufuture_status cufuture_create_str(cufuture **out, const char *devices);
/* FutureNCCL: complete at creation (callbacks run inline from then on). */
cufuture_status cufuture_create_completed(cufuture **out, const int *devices, int ndevices, void *value,
					  const CUdeviceptr *bufs, size_t nbufs);
cufuture *cufuture_retain(cufuture *f);
void cufuture_release(cufuture *f);

/* Completes the future. Buffers on a device not declared complete it with an
 * error instead (and return CUFUTURE_EDEVICE); completing twice is
 * CUFUTURE_EALREADY. Runs the queued callbacks on this thread. */
cufuture_status cufuture_mark_completed(cufuture *f, void *value, const CUdeviceptr *bufs, size_t nbufs);
/* Completes the future once the work queued on s so far is done: a host
 * function enqueued on s (cuLaunchHostFunc) hands it to cufuture's completion
 * thread, which marks it completed and runs the callbacks (a host function may
 * not call CUDA itself). Returns at once. */
cufuture_status cufuture_mark_completed_after(cufuture *f, CUstream s, void *value, const CUdeviceptr *bufs,
					      size_t nbufs);
cufuture_status cufuture_set_error(cufuture *f, const char *msg);

/* Blocks the host until the future is complete, then makes this thread's
 * current stream on each device wait on the events (never on the GPU). */
cufuture_status cufuture_wait(cufuture *f);
/* cufuture_wait, then CUFUTURE_EFUTURE when the future holds an error. */
cufuture_status cufuture_wait_and_throw(cufuture *f);
int cufuture_completed(const cufuture *f); /* a host flag, not cuEventQuery */
int cufuture_has_value(const cufuture *f);
int cufuture_has_error(const cufuture *f);
const char *cufuture_error(const cufuture *f); /* NULL when none */
void *cufuture_value(const cufuture *f);          /* no stream synchronisation */
const CUdeviceptr *cufuture_buffers(const cufuture *f, size_t *nbufs);
int cufuture_devices(const cufuture *f, int *devs, int max);
CUevent cufuture_event(const cufuture *f, int dev); /* NULL when no event on dev */

cufuture_status cufuture_add_callback(cufuture *f, cufuture_callback_fn fn, void *arg);
cufuture_status cufuture_then(cufuture *f, cufuture_then_fn fn, void *arg, cufuture **child);

/* A future (no devices) completed when all are; its value is futs (the
 * caller's array, kept alive by the caller); it holds the first error in the
 * order given. */
cufuture_status cufuture_collect_all(cufuture *const *futs, size_t n, cufuture **out);
/* Waits for all; CUFUTURE_EFUTURE with the first error in the order given. */
cufuture_status cufuture_wait_all(cufuture *const *futs, size_t n);

/* ---- a stream-ordered buffer pool (the caching allocator's recordStream) ----
 * A block is bound to the stream it was allocated on and is reused at once on
 * that stream after a free. When other streams used it (cufuture_record_stream),
 * a free records an event on each, and the block is not handed out again
 * until all those events have completed. */
typedef struct cufuture_pool cufuture_pool;
typedef struct cufuture_pool_stats {
	unsigned long allocs;   /* cuMemAlloc calls */
	unsigned long reuses;   /* blocks handed out again */
	unsigned long deferred; /* frees held back by recorded streams */
	unsigned long pending;  /* blocks held back now */
} cufuture_pool_stats;

cufuture_status cufuture_pool_create(cufuture_pool **out, int dev);
void cufuture_pool_destroy(cufuture_pool *p); /* synchronises, frees the memory */
/* On stream s (s == 0: the current stream of the pool's device). */
cufuture_status cufuture_pool_alloc(cufuture_pool *p, size_t bytes, CUstream s, CUdeviceptr *out);
cufuture_status cufuture_pool_free(cufuture_pool *p, CUdeviceptr ptr);
void cufuture_pool_get_stats(cufuture_pool *p, cufuture_pool_stats *st);
/* Marks ptr as used on s; a pointer no pool owns is ignored (returns CUFUTURE_OK). */
cufuture_status cufuture_record_stream(CUdeviceptr ptr, CUstream s);

#ifdef __cplusplus
}
#endif
#ifdef RTROUTE
/* Last: the declarations above keep the driver's own names. */
#include "cufuture-rtroute.h"
#endif
#endif
