/* cufuture: a CUDA-aware future on the driver API; see cufuture.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture.h"
#include <cudaTypedefs.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The optional call: bound weakly, so a driver without it still loads us; on
 * the runtime route, asked for at the pinned version. */
#ifdef RTROUTE
static PFN_cuStreamGetDevice_v12080 optional_stream_get_device(void)
{
	int result, status;

	return (PFN_cuStreamGetDevice_v12080)rtroute_probe("cuStreamGetDevice", &result, &status);
}
#else
#pragma weak cuStreamGetDevice
static PFN_cuStreamGetDevice_v12080 optional_stream_get_device(void)
{
	return cuStreamGetDevice;
}
#endif

/* ---- errors ---- */
static __thread char last_err[CUFUTURE_ERRLEN];

const char *cufuture_last_error(void)
{
	return last_err;
}

static cufuture_status fail(cufuture_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cufuture_status fail(cufuture_status s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof last_err, fmt, ap);
	va_end(ap);
	return s;
}

static cufuture_status drv(CUresult rc, const char *what)
{
	const char *name = NULL;

	if (rc == CUDA_SUCCESS)
		return CUFUTURE_OK;
	if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
		name = "?";
	return fail(CUFUTURE_EDRIVER, "%s failed: %s (%d)", what, name, (int)rc);
}
#define DRV(call) drv((call), #call)

const char *cufuture_status_name(cufuture_status s)
{
	static const char *const names[] = { "CUFUTURE_OK", "CUFUTURE_EINVAL", "CUFUTURE_EDEVICE",
					      "CUFUTURE_EALREADY", "CUFUTURE_EFUTURE", "CUFUTURE_EDRIVER",
					      "CUFUTURE_ENOMEM" };
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "CUFUTURE_?";
}

static void default_reporter(const char *msg, void *arg)
{
	fprintf(stderr, "cufuture: callback error swallowed: %s\n", msg);
}
static cufuture_reporter_fn reporter = default_reporter;
static void *reporter_arg;

void cufuture_set_reporter(cufuture_reporter_fn fn, void *arg)
{
	reporter = fn ? fn : default_reporter;
	reporter_arg = arg;
}

/* ---- devices ---- */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static int ndevices = -1;
static CUcontext ctxs[CUFUTURE_MAX_DEVICES];
static CUstream pool_streams[CUFUTURE_MAX_DEVICES][2][CUFUTURE_POOL_STREAMS];
static unsigned pool_next[CUFUTURE_MAX_DEVICES][2];
static __thread CUstream cur_stream[CUFUTURE_MAX_DEVICES];

cufuture_status cufuture_init(void)
{
	cufuture_status s = CUFUTURE_OK;
	int n = 0;

	pthread_mutex_lock(&dev_lock);
	if (ndevices < 0) {
		if ((s = DRV(cuInit(0))) == CUFUTURE_OK && (s = DRV(cuDeviceGetCount(&n))) == CUFUTURE_OK)
			ndevices = n > CUFUTURE_MAX_DEVICES ? CUFUTURE_MAX_DEVICES : n;
	}
	pthread_mutex_unlock(&dev_lock);
	return s;
}

int cufuture_device_count(void)
{
	return ndevices < 0 ? 0 : ndevices;
}

CUcontext cufuture_context(int dev)
{
	CUcontext c;
	CUdevice d;

	if (dev < 0 || dev >= cufuture_device_count())
		return NULL;
	pthread_mutex_lock(&dev_lock);
	if (!ctxs[dev] && DRV(cuDeviceGet(&d, dev)) == CUFUTURE_OK)
		DRV(cuDevicePrimaryCtxRetain(&ctxs[dev], d));
	c = ctxs[dev];
	pthread_mutex_unlock(&dev_lock);
	return c;
}

/* Makes dev's context current for a while; undo with pop_dev. */
static cufuture_status push_dev(int dev)
{
	CUcontext c = cufuture_context(dev);

	if (!c)
		return fail(CUFUTURE_EINVAL, "no context for device %d", dev);
	return DRV(cuCtxPushCurrent(c));
}

static void pop_dev(void)
{
	CUcontext c;

	cuCtxPopCurrent(&c);
}

cufuture_status cufuture_set_device(int dev)
{
	CUcontext c = NULL;

	if (dev >= 0 && !(c = cufuture_context(dev)))
		return fail(CUFUTURE_EINVAL, "invalid device %d", dev);
	return DRV(cuCtxSetCurrent(c));
}

static int ctx_device(CUcontext c)
{
	for (int i = 0; i < cufuture_device_count(); i++)
		if (c && ctxs[i] == c)
			return i;
	return -1;
}

int cufuture_current_device(void)
{
	CUcontext c = NULL;
	CUdevice d;
	int dev;

	if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c)
		return -1;
	if ((dev = ctx_device(c)) >= 0)
		return dev;
	return cuCtxGetDevice(&d) == CUDA_SUCCESS ? (int)d : -1;
}

CUstream cufuture_current_stream(int dev)
{
	return dev >= 0 && dev < CUFUTURE_MAX_DEVICES ? cur_stream[dev] : NULL;
}

/* 0: not tried yet, 1: native, 2: fallback. */
static int opt_state;
static char opt_why[128];

const char *cufuture_optional_path(void)
{
	switch (__atomic_load_n(&opt_state, __ATOMIC_ACQUIRE)) {
	case 1:
		return "cuStreamGetDevice";
	case 2:
		return opt_why;
	default:
		return "unused";
	}
}

static cufuture_status stream_device_fallback(CUstream s, int *dev)
{
	CUcontext c = NULL;
	CUdevice d;
	cufuture_status st;

	if ((st = DRV(cuStreamGetCtx(s, &c))) != CUFUTURE_OK)
		return st;
	if ((*dev = ctx_device(c)) >= 0)
		return CUFUTURE_OK;
	if ((st = DRV(cuCtxPushCurrent(c))) != CUFUTURE_OK)
		return st;
	st = DRV(cuCtxGetDevice(&d));
	pop_dev();
	*dev = (int)d;
	return st;
}

cufuture_status cufuture_stream_device(CUstream s, int *dev)
{
	CUdevice d;
	CUresult rc;

	if (__atomic_load_n(&opt_state, __ATOMIC_ACQUIRE) != 2) {
		PFN_cuStreamGetDevice_v12080 get_device = optional_stream_get_device();

		if (!get_device) {
			rc = CUDA_ERROR_NOT_FOUND;
			snprintf(opt_why, sizeof opt_why, "cuStreamGetCtx+cuCtxGetDevice (fallback: no cuStreamGetDevice)");
		} else if ((rc = get_device(s, &d)) == CUDA_SUCCESS) {
			__atomic_store_n(&opt_state, 1, __ATOMIC_RELEASE);
			*dev = (int)d;
			return CUFUTURE_OK;
		} else {
			const char *name = NULL;

			cuGetErrorName(rc, &name);
			snprintf(opt_why, sizeof opt_why, "cuStreamGetCtx+cuCtxGetDevice (fallback: cuStreamGetDevice: %s)",
				 name ? name : "?");
		}
		if (rc != CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER && rc != CUDA_ERROR_NOT_SUPPORTED &&
		    rc != CUDA_ERROR_NOT_FOUND)
			return drv(rc, "cuStreamGetDevice");
		__atomic_store_n(&opt_state, 2, __ATOMIC_RELEASE);
	}
	return stream_device_fallback(s, dev);
}

cufuture_status cufuture_set_current_stream(CUstream s)
{
	int dev;
	cufuture_status st;

	if (!s) { /* the legacy default stream of the current device */
		if ((dev = cufuture_current_device()) < 0)
			return fail(CUFUTURE_EINVAL, "stream 0 without a current device");
	} else if ((st = cufuture_stream_device(s, &dev)) != CUFUTURE_OK) {
		return st;
	}
	if (dev < 0 || dev >= CUFUTURE_MAX_DEVICES)
		return fail(CUFUTURE_EINVAL, "stream on device %d", dev);
	cur_stream[dev] = s;
	return CUFUTURE_OK;
}

/* dev's two pools, made together on first use: the lowest and the highest
 * priority of the context (c10's low- and high-priority pools). */
static cufuture_status make_pools(int dev, CUcontext c)
{
	int least = 0, greatest = 0;
	cufuture_status st;

	if ((st = DRV(cuCtxPushCurrent(c))) != CUFUTURE_OK)
		return st;
	st = DRV(cuCtxGetStreamPriorityRange(&least, &greatest));
	for (int hi = 0; hi < 2 && st == CUFUTURE_OK; hi++)
		for (int i = 0; i < CUFUTURE_POOL_STREAMS && st == CUFUTURE_OK; i++)
			st = DRV(cuStreamCreateWithPriority(&pool_streams[dev][hi][i], CU_STREAM_NON_BLOCKING,
							    hi ? greatest : least));
	pop_dev();
	return st;
}

cufuture_status cufuture_stream_from_pool(int dev, int high, CUstream *out)
{
	cufuture_status st = CUFUTURE_OK;
	int hi = high != 0;
	CUcontext c = cufuture_context(dev); /* takes dev_lock itself */

	*out = NULL;
	if (!c)
		return fail(CUFUTURE_EINVAL, "invalid device %d", dev);
	pthread_mutex_lock(&dev_lock);
	if (!pool_streams[dev][hi][0])
		st = make_pools(dev, c);
	if (st == CUFUTURE_OK)
		*out = pool_streams[dev][hi][pool_next[dev][hi]++ % CUFUTURE_POOL_STREAMS];
	pthread_mutex_unlock(&dev_lock);
	return st;
}

/* ---- futures ---- */
struct callback {
	struct callback *next;
	cufuture_callback_fn fn;
	cufuture_then_fn then_fn;
	void *arg;
	cufuture *child; /* then: owned reference */
};

struct cufuture {
	pthread_mutex_t lock;
	pthread_cond_t done;
	int refs;
	int ndev;
	int devs[CUFUTURE_MAX_DEVICES];
	int completed;
	char *error;
	void *value;
	size_t nbufs;
	CUdeviceptr bufs[CUFUTURE_MAX_BUFFERS];
	int buf_dev[CUFUTURE_MAX_BUFFERS];
	int nevents;
	int ev_dev[CUFUTURE_MAX_DEVICES];
	CUevent events[CUFUTURE_MAX_DEVICES];
	int device; /* current at completion; set at creation too, since the error path skips the hook */
	struct callback *cbs, **cbs_tail;
};

static int has_dev(const int *devs, int n, int d)
{
	for (int i = 0; i < n; i++)
		if (devs[i] == d)
			return 1;
	return 0;
}

cufuture_status cufuture_create(cufuture **out, const int *devices, int ndev)
{
	cufuture *f;

	*out = NULL;
	if (ndev < 0 || (ndev > 0 && !devices))
		return fail(CUFUTURE_EINVAL, "no device list");
	for (int i = 0; i < ndev; i++)
		if (devices[i] < 0 || devices[i] >= cufuture_device_count())
			return fail(CUFUTURE_EINVAL, "Expected devices to be valid CUDA devices, got cuda:%d "
				    "(this machine has %d)", devices[i], cufuture_device_count());
	if (!(f = calloc(1, sizeof *f)))
		return fail(CUFUTURE_ENOMEM, "out of memory");
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->done, NULL);
	f->refs = 1;
	for (int i = 0; i < ndev; i++)
		if (!has_dev(f->devs, f->ndev, devices[i]))
			f->devs[f->ndev++] = devices[i];
	f->device = cufuture_current_device();
	f->cbs_tail = &f->cbs;
	*out = f;
	return CUFUTURE_OK;
}

cufuture_status cufuture_create_str(cufuture **out, const char *spec)
{
	int devs[CUFUTURE_MAX_DEVICES], n = 0;
	const char *p = spec ? spec : "";

	*out = NULL;
	while (*p) {
		size_t len = strcspn(p, ",");
		char tok[64], *end;
		const char *num;
		long v;

		if (len == 0 || len >= sizeof tok)
			return fail(CUFUTURE_EINVAL, "Expected devices to have indices, got \"%.*s\"", (int)len, p);
		memcpy(tok, p, len);
		tok[len] = 0;
		num = strncmp(tok, "cuda:", 5) == 0 ? tok + 5 : tok;
		errno = 0;
		v = strtol(num, &end, 10);
		if (!*num || *end || errno || v < 0 || v > 1000000)
			return fail(CUFUTURE_EINVAL, "Expected devices to have indices, got %s", tok);
		if (n == CUFUTURE_MAX_DEVICES)
			return fail(CUFUTURE_EINVAL, "too many devices");
		devs[n++] = (int)v;
		p += len;
		if (*p == ',')
			p++;
	}
	return cufuture_create(out, devs, n);
}

cufuture *cufuture_retain(cufuture *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void cufuture_release(cufuture *f)
{
	struct callback *c, *n;

	if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (c = f->cbs; c; c = n) {
		n = c->next;
		cufuture_release(c->child);
		free(c);
	}
	for (int i = 0; i < f->nevents; i++) {
		if (push_dev(f->ev_dev[i]) == CUFUTURE_OK) {
			cuEventDestroy(f->events[i]);
			pop_dev();
		}
	}
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->done);
	free(f->error);
	free(f);
}

static void format_devs(char *buf, size_t len, const int *devs, int n)
{
	size_t o = 0;

	buf[0] = 0;
	if (n == 0)
		snprintf(buf, len, "(none)");
	for (int i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o, "%scuda:%d", i ? ", " : "", devs[i]);
}

static void run_callback(cufuture *f, struct callback *c);

/* Takes f->lock held with !f->completed; completes, unlocks, runs callbacks. */
static void finish(cufuture *f)
{
	struct callback *c, *n;

	f->completed = 1;
	c = f->cbs;
	f->cbs = NULL;
	f->cbs_tail = &f->cbs;
	pthread_cond_broadcast(&f->done);
	pthread_mutex_unlock(&f->lock);
	for (; c; c = n) {
		n = c->next;
		run_callback(f, c);
	}
}

static cufuture_status complete_with_error(cufuture *f, const char *msg)
{
	f->error = strdup(msg ? msg : "(no message)");
	finish(f);
	return CUFUTURE_OK;
}

cufuture_status cufuture_set_error(cufuture *f, const char *msg)
{
	pthread_mutex_lock(&f->lock);
	if (f->completed) {
		pthread_mutex_unlock(&f->lock);
		return fail(CUFUTURE_EALREADY, "Error already set on this Future, or it is already complete: %s",
			    msg ? msg : "");
	}
	return complete_with_error(f, msg);
}

/* The device of a buffer; -1 when it is not CUDA device memory (memory the
 * driver does not know, or host memory, pinned or not); -2 on a driver error. */
static int buffer_device(CUdeviceptr p)
{
	CUmemorytype type = (CUmemorytype)0;
	int ord = -1;

	if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS ||
	    type != CU_MEMORYTYPE_DEVICE)
		return -1;
	if (DRV(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p)) != CUFUTURE_OK)
		return -2;
	return ord;
}

/* The devices holding the data (the DataPtr extraction): each buffer's
 * device into bdev, -1 for one that is not CUDA device memory, and each
 * device once into data_devs. */
static cufuture_status data_devices(const CUdeviceptr *bufs, size_t nbufs, int *bdev, int *data_devs, int *ndata)
{
	for (size_t i = 0; i < nbufs; i++) {
		int ord = -1;

		if ((bdev[i] = buffer_device(bufs[i])) == -1)
			continue; /* not CUDA device memory: upstream skips non-CUDA storages */
		if (bdev[i] < -1)
			return CUFUTURE_EDRIVER;
		if (bdev[i] >= CUFUTURE_MAX_DEVICES) /* indexes the per-device tables */
			return fail(CUFUTURE_EDEVICE, "a buffer on device %d: at most %d devices are supported",
				    bdev[i], CUFUTURE_MAX_DEVICES);
		ord = bdev[i];
		if (!has_dev(data_devs, *ndata, ord))
			data_devs[(*ndata)++] = ord;
	}
	return CUFUTURE_OK;
}

/* Takes f->lock held with !f->completed; when some data device is not among
 * f's devices, completes f with that error (which unlocks) and fails. */
static cufuture_status check_data_devices(cufuture *f, const int *data_devs, int ndata)
{
	int bad[CUFUTURE_MAX_DEVICES], nbad = 0;

	for (int i = 0; i < ndata; i++)
		if (!has_dev(f->devs, f->ndev, data_devs[i]))
			bad[nbad++] = data_devs[i];
	if (nbad) {
		char have[200], want[200], msg[CUFUTURE_ERRLEN + 448];

		format_devs(have, sizeof have, bad, nbad);
		format_devs(want, sizeof want, f->devs, f->ndev);
		snprintf(msg, sizeof msg, "The result contained tensors residing on device(s) %s which are not "
			 "among the expected device(s) %s", have, want);
		complete_with_error(f, msg);
		return fail(CUFUTURE_EDEVICE, "%s", msg);
	}
	return CUFUTURE_OK;
}

/* One event per data device, on that device's current stream. */
static cufuture_status record_events(cufuture *f, const int *data_devs, int ndata)
{
	cufuture_status st = CUFUTURE_OK;

	for (int i = 0; i < ndata; i++) {
		int d = data_devs[i];
		CUevent ev = NULL;

		if ((st = push_dev(d)) != CUFUTURE_OK)
			break;
		if ((st = DRV(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING))) == CUFUTURE_OK &&
		    (st = DRV(cuEventRecord(ev, cur_stream[d]))) != CUFUTURE_OK)
			cuEventDestroy(ev);
		pop_dev();
		if (st != CUFUTURE_OK)
			break;
		f->ev_dev[f->nevents] = d;
		f->events[f->nevents++] = ev;
	}
	return st;
}

cufuture_status cufuture_mark_completed(cufuture *f, void *value, const CUdeviceptr *bufs, size_t nbufs)
{
	int data_devs[CUFUTURE_MAX_DEVICES], ndata = 0;
	int bdev[CUFUTURE_MAX_BUFFERS];
	cufuture_status st = CUFUTURE_OK;

	if (nbufs > CUFUTURE_MAX_BUFFERS || (nbufs && !bufs))
		return fail(CUFUTURE_EINVAL, "too many buffers (%zu)", nbufs);
	if ((st = data_devices(bufs, nbufs, bdev, data_devs, &ndata)) != CUFUTURE_OK)
		return st;
	pthread_mutex_lock(&f->lock);
	if (f->completed) {
		pthread_mutex_unlock(&f->lock);
		return fail(CUFUTURE_EALREADY, "Attempting to mark a completed Future as complete again. Note that "
			    "a Future can only be marked completed once.");
	}
	if ((st = check_data_devices(f, data_devs, ndata)) != CUFUTURE_OK)
		return st;
	f->device = cufuture_current_device();
	if ((st = record_events(f, data_devs, ndata)) != CUFUTURE_OK) {
		char msg[CUFUTURE_ERRLEN];

		snprintf(msg, sizeof msg, "%s", last_err);
		complete_with_error(f, msg);
		return fail(st, "%s", msg);
	}
	f->value = value;
	f->nbufs = nbufs;
	for (size_t i = 0; i < nbufs; i++) {
		f->bufs[i] = bufs[i];
		f->buf_dev[i] = bdev[i];
	}
	finish(f);
	return CUFUTURE_OK;
}

cufuture_status cufuture_create_completed(cufuture **out, const int *devices, int ndev, void *value,
					  const CUdeviceptr *bufs, size_t nbufs)
{
	cufuture_status st = cufuture_create(out, devices, ndev);

	if (st != CUFUTURE_OK)
		return st;
	if ((st = cufuture_mark_completed(*out, value, bufs, nbufs)) != CUFUTURE_OK &&
	    st != CUFUTURE_EDEVICE) {
		cufuture_release(*out);
		*out = NULL;
	}
	return st;
}

/* The current stream of each event's device waits on it; buffers are
 * recorded as used on those streams. f is complete. */
static cufuture_status sync_streams(cufuture *f, const CUstream *streams)
{
	cufuture_status st;

	for (int i = 0; i < f->nevents; i++) {
		int d = f->ev_dev[i];

		if ((st = push_dev(d)) != CUFUTURE_OK)
			return st;
		st = DRV(cuStreamWaitEvent(streams[d], f->events[i], 0));
		pop_dev();
		if (st != CUFUTURE_OK)
			return st;
	}
	for (size_t i = 0; i < f->nbufs; i++)
		if (f->buf_dev[i] >= 0)
			cufuture_record_stream(f->bufs[i], streams[f->buf_dev[i]]);
	return CUFUTURE_OK;
}

static void block_until_complete(cufuture *f)
{
	pthread_mutex_lock(&f->lock);
	while (!f->completed)
		pthread_cond_wait(&f->done, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

cufuture_status cufuture_wait(cufuture *f)
{
	block_until_complete(f);
	if (f->error)
		return CUFUTURE_OK;
	return sync_streams(f, cur_stream);
}

cufuture_status cufuture_wait_and_throw(cufuture *f)
{
	cufuture_status st = cufuture_wait(f);

	if (st != CUFUTURE_OK)
		return st;
	if (f->error)
		return fail(CUFUTURE_EFUTURE, "%s", f->error);
	return CUFUTURE_OK;
}

int cufuture_completed(const cufuture *f)
{
	return __atomic_load_n(&f->completed, __ATOMIC_ACQUIRE);
}

int cufuture_has_value(const cufuture *f)
{
	return cufuture_completed(f) && !f->error;
}

int cufuture_has_error(const cufuture *f)
{
	return cufuture_completed(f) && f->error;
}

const char *cufuture_error(const cufuture *f)
{
	return cufuture_completed(f) ? f->error : NULL;
}

void *cufuture_value(const cufuture *f)
{
	return cufuture_completed(f) ? f->value : NULL;
}

const CUdeviceptr *cufuture_buffers(const cufuture *f, size_t *nbufs)
{
	*nbufs = cufuture_completed(f) ? f->nbufs : 0;
	return f->bufs;
}

int cufuture_devices(const cufuture *f, int *devs, int max)
{
	for (int i = 0; i < f->ndev && i < max; i++)
		devs[i] = f->devs[i];
	return f->ndev;
}

CUevent cufuture_event(const cufuture *f, int dev)
{
	if (!cufuture_completed(f))
		return NULL;
	for (int i = 0; i < f->nevents; i++)
		if (f->ev_dev[i] == dev)
			return f->events[i];
	return NULL;
}

/* The wrapper of every callback (CUDAFuture::wrapCallback): a fresh pool
 * stream per declared device that waits on the events and is current, the
 * buffers recorded on it, the completion-time device current. */
static void run_callback(cufuture *f, struct callback *c)
{
	CUstream saved[CUFUTURE_MAX_DEVICES], streams[CUFUTURE_MAX_DEVICES];
	CUcontext saved_ctx = NULL;
	cufuture_status st = CUFUTURE_OK;
	char err[CUFUTURE_ERRLEN + 32] = "";

	memcpy(saved, cur_stream, sizeof saved);
	memcpy(streams, cur_stream, sizeof streams);
	cuCtxGetCurrent(&saved_ctx);
	for (int i = 0; i < f->ndev && st == CUFUTURE_OK; i++)
		st = cufuture_stream_from_pool(f->devs[i], 0, &streams[f->devs[i]]);
	if (st == CUFUTURE_OK && !f->error)
		st = sync_streams(f, streams);
	if (st == CUFUTURE_OK) {
		int d = f->device >= 0 ? f->device : (f->ndev ? f->devs[0] : -1);

		memcpy(cur_stream, streams, sizeof streams);
		if (d >= 0)
			st = cufuture_set_device(d);
	}
	if (st != CUFUTURE_OK) {
		snprintf(err, sizeof err, "cufuture callback setup: %s", last_err);
		if (c->child)
			cufuture_set_error(c->child, err);
		else
			reporter(err, reporter_arg);
	} else if (c->then_fn) {
		cufuture_result *r = calloc(1, sizeof *r);

		if (!r)
			cufuture_set_error(c->child, "out of memory");
		else if (c->then_fn(f, c->arg, r) != 0)
			cufuture_set_error(c->child, r->error[0] ? r->error : "then callback failed");
		else
			cufuture_mark_completed(c->child, r->value, r->bufs, r->nbufs);
		free(r);
	} else if (c->fn(f, c->arg, err, sizeof err) != 0) {
		reporter(err[0] ? err : "add_callback callback failed", reporter_arg);
	}
	memcpy(cur_stream, saved, sizeof saved);
	cuCtxSetCurrent(saved_ctx);
	cufuture_release(c->child);
	free(c);
}

static cufuture_status add(cufuture *f, struct callback *c)
{
	pthread_mutex_lock(&f->lock);
	if (!f->completed) {
		*f->cbs_tail = c;
		f->cbs_tail = &c->next;
		pthread_mutex_unlock(&f->lock);
		return CUFUTURE_OK;
	}
	pthread_mutex_unlock(&f->lock);
	run_callback(f, c); /* inline */
	return CUFUTURE_OK;
}

cufuture_status cufuture_add_callback(cufuture *f, cufuture_callback_fn fn, void *arg)
{
	struct callback *c;

	if (!fn)
		return fail(CUFUTURE_EINVAL, "add_callback needs a callback");
	if (!(c = calloc(1, sizeof *c)))
		return fail(CUFUTURE_ENOMEM, "out of memory");
	c->fn = fn;
	c->arg = arg;
	return add(f, c);
}

cufuture_status cufuture_then(cufuture *f, cufuture_then_fn fn, void *arg, cufuture **child)
{
	struct callback *c;
	cufuture_status st;

	*child = NULL;
	if (!fn)
		return fail(CUFUTURE_EINVAL, "then needs a callback");
	if (!(c = calloc(1, sizeof *c)))
		return fail(CUFUTURE_ENOMEM, "out of memory");
	if ((st = cufuture_create(child, f->devs, f->ndev)) != CUFUTURE_OK) {
		free(c);
		return st;
	}
	c->then_fn = fn;
	c->arg = arg;
	c->child = cufuture_retain(*child);
	return add(f, c);
}

/* ---- collect_all / wait_all ---- */
struct collect {
	cufuture *out;
	cufuture **futs;
	void *user; /* the caller's array: the value */
	size_t n;
	int left;
};

static int collect_one(cufuture *f, void *arg, char *err, size_t len)
{
	struct collect *k = arg;

	if (__atomic_sub_fetch(&k->left, 1, __ATOMIC_ACQ_REL) != 0)
		return 0;
	const char *e = NULL;
	for (size_t i = 0; i < k->n && !e; i++)
		e = cufuture_error(k->futs[i]);
	if (e)
		cufuture_set_error(k->out, e);
	else
		cufuture_mark_completed(k->out, k->user, NULL, 0);
	cufuture_release(k->out);
	for (size_t i = 0; i < k->n; i++)
		cufuture_release(k->futs[i]);
	free(k->futs);
	free(k);
	return 0;
}

cufuture_status cufuture_collect_all(cufuture *const *futs, size_t n, cufuture **out)
{
	struct collect *k;
	cufuture_status st;

	if ((st = cufuture_create(out, NULL, 0)) != CUFUTURE_OK)
		return st;
	if (n == 0) {
		cufuture_mark_completed(*out, NULL, NULL, 0);
		return CUFUTURE_OK;
	}
	if (!(k = calloc(1, sizeof *k)) || !(k->futs = calloc(n, sizeof *k->futs))) {
		free(k);
		cufuture_release(*out);
		*out = NULL;
		return fail(CUFUTURE_ENOMEM, "out of memory");
	}
	k->out = cufuture_retain(*out);
	k->user = (void *)futs;
	k->n = n;
	k->left = (int)n;
	for (size_t i = 0; i < n; i++)
		k->futs[i] = cufuture_retain(futs[i]);
	for (size_t i = 0; i < n; i++)
		cufuture_add_callback(futs[i], collect_one, k);
	return CUFUTURE_OK;
}

cufuture_status cufuture_wait_all(cufuture *const *futs, size_t n)
{
	cufuture_status st, first = CUFUTURE_OK;
	char msg[CUFUTURE_ERRLEN] = "";

	for (size_t i = 0; i < n; i++) {
		if ((st = cufuture_wait_and_throw(futs[i])) != CUFUTURE_OK && first == CUFUTURE_OK) {
			first = st;
			snprintf(msg, sizeof msg, "%s", last_err);
		}
	}
	return first == CUFUTURE_OK ? CUFUTURE_OK : fail(first, "%s", msg);
}
