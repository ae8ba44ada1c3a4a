/* The cufuture suite: PyTorch's tests of CUDAFuture (rpc_test.py's
 * test_cuda_future_*, test_futures.py, test_c10d_nccl.py's comm hooks and
 * test_cuda.py's test_record_stream), in C on the driver API.
 *
 * Usage: cufuture-test [-l] [TEST...]. Prints "PASS name", "FAIL name: why"
 * or "SKIP name: why" per test; lines starting with '#' (timings, the
 * optional call's path) vary between runs. Exit: 0 all passed, 1 a failure,
 * 77 no GPU (1 with CUSHIM_TEST_REQUIRE_GPU=1). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture.h"
#include "cufuture-kernels.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N (1u << 20) /* ints per buffer */
#define BYTES (N * sizeof(int))
#define SLEEP_1S 1000000000ull
#define SLEEP_HALF 500000000ull

static char why[512];
static int ngpus;

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return 1;
}
#define CHECK(c, ...) do { if (!(c)) return failf(__VA_ARGS__); } while (0)
#define OK(call) do { cufuture_status s_ = (call); \
	if (s_ != CUFUTURE_OK) return failf("%s: %s (line %d): %s", #call, cufuture_status_name(s_), __LINE__, \
					    cufuture_last_error()); } while (0)
#define CU(call) do { CUresult r_ = (call); \
	if (r_ != CUDA_SUCCESS) return failf("%s: CUresult %d (line %d)", #call, (int)r_, __LINE__); } while (0)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- helpers (each on dev's context) ---- */
static CUstream mkstream(int dev)
{
	CUstream s = NULL;
	CUcontext c;

	cuCtxPushCurrent(cufuture_context(dev));
	cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	cuCtxPopCurrent(&c);
	return s;
}

static void rmstream(CUstream s)
{
	if (s)
		cuStreamDestroy(s);
}

static CUdeviceptr dalloc(int dev, size_t bytes)
{
	CUdeviceptr p = 0;
	CUcontext c;

	cuCtxPushCurrent(cufuture_context(dev));
	if (cuMemAlloc(&p, bytes) == CUDA_SUCCESS) {
		cuMemsetD8(p, 0, bytes);
		cuCtxSynchronize();
	}
	cuCtxPopCurrent(&c);
	return p;
}

static void dfree(int dev, CUdeviceptr p)
{
	CUcontext c;

	cuCtxPushCurrent(cufuture_context(dev));
	cuCtxSynchronize();
	if (p)
		cuMemFree(p);
	cuCtxPopCurrent(&c);
}

static void devsync(int dev)
{
	CUcontext c;

	cuCtxPushCurrent(cufuture_context(dev));
	cuCtxSynchronize();
	cuCtxPopCurrent(&c);
}

/* Reads n ints of p in stream order on s (of device dev), into h. */
static CUresult read_on(int dev, CUstream s, CUdeviceptr p, void *h, size_t bytes)
{
	CUcontext c;
	CUresult r;

	cuCtxPushCurrent(cufuture_context(dev));
	r = cuMemcpyDtoHAsync(h, p, bytes, s);
	if (r == CUDA_SUCCESS)
		r = cuStreamSynchronize(s);
	cuCtxPopCurrent(&c);
	return r;
}

/* -1 when p[0..n) holds what cufk_fill(v) wrote (CUFK_AT(v, i) at i), else
 * the first index that differs. */
static long bad_index(const int *p, size_t n, int v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != CUFK_AT(v, i))
			return (long)i;
	return -1;
}

static int *hbuf(void)
{
	static int *h;

	if (!h)
		h = malloc(BYTES);
	return h;
}

#define EXPECT_ALL(h, v, what) do { long i_ = bad_index((h), N, (v)); \
	CHECK(i_ < 0, "%s: element %ld is %d, expected %d", (what), i_, i_ < 0 ? 0 : (h)[i_], \
	      i_ < 0 ? 0 : CUFK_AT((v), i_)); } while (0)
/* A step that is a helper below: its failure has already set why. */
#define TRY(step) do { if ((step) != 0) return 1; } while (0)

/* The producer of most tests: s becomes cuda:0's current stream, and on it a
 * GPU sleep of ns, then x filled with v. */
static int produce(CUstream s, unsigned long long ns, CUdeviceptr x, int v)
{
	OK(cufuture_set_current_stream(s));
	OK(cufk_sleep(0, s, ns));
	OK(cufk_fill(0, s, x, v, N));
	return 0;
}

/* The consumer: s becomes cuda:0's current stream, f is waited for, and x,
 * read in stream order on s, must hold v everywhere. */
static int consume(cufuture *f, CUstream s, CUdeviceptr x, int v, const char *what)
{
	int *h = hbuf();

	OK(cufuture_set_current_stream(s));
	OK(cufuture_wait_and_throw(f));
	CU(read_on(0, s, x, h, BYTES));
	EXPECT_ALL(h, v, what);
	return 0;
}

/* Blocks the host until f is complete (a host flag: no stream waits on its
 * events), 10 s at most. */
static void block_on(cufuture *f)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 10000 && !cufuture_completed(f); i++)
		nanosleep(&ms, NULL);
}

/* The end of a test on cuda:0: no current stream, then child c and future f
 * released, buffers x and y freed, streams A and B destroyed (each NULL or 0
 * skipped). */
static int finish(cufuture *f, cufuture *c, CUdeviceptr x, CUdeviceptr y, CUstream A, CUstream B)
{
	cufuture_set_current_stream(NULL);
	cufuture_release(c);
	cufuture_release(f);
	if (x)
		dfree(0, x);
	if (y)
		dfree(0, y);
	rmstream(A);
	rmstream(B);
	return 0;
}

/* A then callback's result: buf as the child's value, or, when !ok, the error
 * "WHAT failed". */
static int then_result(cufuture_result *r, int ok, CUdeviceptr buf, const char *what)
{
	if (!ok) {
		snprintf(r->error, sizeof r->error, "%s failed", what);
		return 1;
	}
	r->nbufs = 1;
	r->bufs[0] = buf;
	return 0;
}

static CUdeviceptr first_buffer(cufuture *f)
{
	size_t n;

	return cufuture_buffers(f, &n)[0];
}

/* ---- tests ---- */

/* test_cuda_future_device_as_{int,str}, _device_not_cuda */
static int t_create_devices(void)
{
	cufuture *f;
	int devs[4], d[] = { 0, 0, 0 };

	OK(cufuture_create(&f, d, 3));
	CHECK(cufuture_devices(f, devs, 4) == 1 && devs[0] == 0, "duplicates not dropped");
	CHECK(!cufuture_completed(f) && !cufuture_has_value(f), "a new future is complete");
	cufuture_release(f);
	d[0] = -1;
	CHECK(cufuture_create(&f, d, 1) == CUFUTURE_EINVAL && !f, "device -1 accepted");
	d[0] = ngpus;
	CHECK(cufuture_create(&f, d, 1) == CUFUTURE_EINVAL, "device %d accepted on %d GPUs", ngpus, ngpus);
	OK(cufuture_create_str(&f, "cuda:0,0"));
	CHECK(cufuture_devices(f, devs, 4) == 1 && devs[0] == 0, "\"cuda:0,0\" is not {0}");
	cufuture_release(f);
	CHECK(cufuture_create_str(&f, "cpu") == CUFUTURE_EINVAL, "\"cpu\" accepted");
	CHECK(strstr(cufuture_last_error(), "Expected devices to have indices"), "message: %s", cufuture_last_error());
	CHECK(cufuture_create_str(&f, "cuda:x") == CUFUTURE_EINVAL, "\"cuda:x\" accepted");
	OK(cufuture_create(&f, NULL, 0)); /* a CPU future */
	CHECK(cufuture_devices(f, devs, 4) == 0, "CPU future has devices");
	cufuture_release(f);
	return 0;
}

/* test_cuda_future_can_extract_{cuda_tensor,list_with_cuda_tensor}: ~1 s GPU
 * sleep then fill on stream A, complete; wait and read on stream B. */
static int t_extract_value(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES), y = dalloc(0, BYTES);
	int *h = hbuf(), d0 = 0;
	cufuture *f;
	double t0, t_mark, t_wait, t_read;

	CHECK(A && B && x && y, "setup failed");
	t0 = now();
	TRY(produce(A, SLEEP_1S, x, 7));
	OK(cufk_fill(0, A, y, 8, N));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_mark_completed(f, &x, (CUdeviceptr[]){ x, y }, 2));
	t_mark = now() - t0;
	OK(cufuture_set_current_stream(B));
	OK(cufuture_wait_and_throw(f));
	t_wait = now() - t0; /* from before the 1 s kernel's launch */
	CU(read_on(0, B, x, h, BYTES));
	EXPECT_ALL(h, 7, "first buffer");
	CU(read_on(0, B, y, h, BYTES));
	t_read = now() - t0;
	EXPECT_ALL(h, 8, "second buffer");
	printf("# extract_value: mark_completed %.1f ms, wait returned %.1f ms, read done %.1f ms\n", t_mark * 1e3,
	       t_wait * 1e3, t_read * 1e3);
	CHECK(t_wait < 0.5, "wait blocked the host %.3f s", t_wait);
	CHECK(t_read > 0.9, "the read finished after %.3f s, before the 1 s kernel", t_read);
	CHECK(cufuture_value(f) == &x, "value lost");
	return finish(f, NULL, x, y, A, B);
}

/* completed() is a host flag, true while the event is not ready (PyTorch
 * issue 48503: completed() must agree with wait()). */
static int t_completed_before_gpu(void)
{
	CUstream A = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	int d0 = 0;
	cufuture *f;
	CUresult q;

	TRY(produce(A, SLEEP_HALF, x, 1));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	q = cuEventQuery(cufuture_event(f, 0));
	CHECK(cufuture_completed(f) && cufuture_has_value(f), "not completed after mark_completed");
	CHECK(q == CUDA_ERROR_NOT_READY, "cuEventQuery = %d, expected CUDA_ERROR_NOT_READY", (int)q);
	CU(cuStreamSynchronize(A));
	CU(cuEventQuery(cufuture_event(f, 0)));
	return finish(f, NULL, x, 0, A, NULL);
}

struct seen {
	CUstream stream, stream1;
	int device, stream_device, ctx_device;
	pthread_t thread;
	CUdeviceptr src, dst;
	int copied;
	int done; /* set last, with release: the fields above are written */
};

static int cb_record(cufuture *f, void *arg, char *err, size_t len)
{
	struct seen *s = arg;

	CUdevice d = -1;

	s->thread = pthread_self();
	s->device = cufuture_current_device();
	s->ctx_device = cuCtxGetDevice(&d) == CUDA_SUCCESS ? (int)d : -2;
	s->stream = cufuture_current_stream(0);
	if (cufuture_stream_device(s->stream, &s->stream_device) != CUFUTURE_OK)
		s->stream_device = -2;
	s->copied = cufk_copy(0, s->stream, s->dst, s->src, N) == CUFUTURE_OK;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A future counts as completed before its callbacks run (as upstream's
 * markCompleted), so a callback that runs on another thread (a host
 * function's) may still be running when the future is seen completed:
 * wait (at most 10 s) until cb_record has written what it saw. */
static int seen_done(struct seen *s)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 10000 && !__atomic_load_n(&s->done, __ATOMIC_ACQUIRE); i++)
		nanosleep(&ms, NULL);
	return __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
}

/* Callbacks run on fresh pool streams that waited on the event, with the
 * completion-time device current; both restored afterwards. */
static int t_callback_stream(void)
{
	CUstream A = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	struct seen s[3];
	int *h = hbuf(), d0 = 0;
	cufuture *f;
	CUcontext c = NULL;

	memset(s, 0, sizeof s);
	for (int i = 0; i < 3; i++) {
		s[i].src = x;
		s[i].dst = dalloc(0, BYTES);
	}
	TRY(produce(A, SLEEP_HALF, x, 5));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_add_callback(f, cb_record, &s[0]));
	OK(cufuture_add_callback(f, cb_record, &s[1]));
	CHECK(!s[0].copied && !s[1].copied, "a callback ran before completion");
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	/* Inline, with no current context: the callback sees the completion-time device. */
	CU(cuCtxSetCurrent(NULL));
	OK(cufuture_add_callback(f, cb_record, &s[2]));
	CU(cuCtxGetCurrent(&c));
	CHECK(c == NULL, "the current context was not restored after the callback");
	OK(cufuture_set_device(0));
	CHECK(cufuture_current_stream(0) == A, "the current stream was not restored");
	for (int i = 0; i < 3; i++) {
		CHECK(s[i].copied, "callback %d did not run", i);
		CHECK(pthread_equal(s[i].thread, pthread_self()), "callback %d ran on another thread", i);
		CHECK(s[i].device == 0 && s[i].ctx_device == 0, "callback %d saw device %d (its context's: %d)", i,
		      s[i].device, s[i].ctx_device);
		CHECK(s[i].stream_device == 0, "callback %d's stream is on device %d", i, s[i].stream_device);
		CHECK(s[i].stream != A && s[i].stream != NULL, "callback %d ran on the producer's stream", i);
		CHECK(i == 0 || s[i].stream != s[i - 1].stream, "callback %d reused callback %d's stream", i, i - 1);
	}
	devsync(0);
	for (int i = 0; i < 3; i++) {
		CU(read_on(0, NULL, s[i].dst, h, BYTES));
		EXPECT_ALL(h, 5, "what the callback read");
		dfree(0, s[i].dst);
	}
	return finish(f, NULL, x, 0, A, NULL);
}

/* A then callback that adds 1 on its own (callback) stream. */
static int then_add1_gpu(cufuture *parent, void *arg, cufuture_result *r)
{
	int *calls = arg, ok;
	CUdeviceptr x;

	if (cufuture_has_error(parent)) {
		snprintf(r->error, sizeof r->error, "%s", cufuture_error(parent));
		return 1;
	}
	x = first_buffer(parent);
	ok = cufk_add(0, cufuture_current_stream(0), x, 1, N) == CUFUTURE_OK;
	if (ok)
		__atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
	return then_result(r, ok, x, "launch");
}

/* test_chained_then (20 levels) with the additions on the GPU, each on a
 * fresh callback stream: exact only if every level waited on the last. */
static int t_chained_then_gpu(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	int d0 = 0, calls = 0;
	cufuture *f, *cur, *next;

	TRY(produce(A, SLEEP_HALF, x, 0));
	OK(cufuture_create(&f, &d0, 1));
	cur = cufuture_retain(f);
	for (int i = 0; i < 20; i++) { /* queued before completion */
		OK(cufuture_then(cur, then_add1_gpu, &calls, &next));
		cufuture_release(cur);
		cur = next;
	}
	CHECK(calls == 0, "then ran before completion");
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	CHECK(calls == 20, "%d of 20 then callbacks ran", calls);
	for (int i = 0; i < 20; i++) { /* inline, the parent complete */
		OK(cufuture_then(cur, then_add1_gpu, &calls, &next));
		cufuture_release(cur);
		cur = next;
	}
	TRY(consume(cur, B, x, 40, "after 40 chained then"));
	return finish(f, cur, x, 0, A, B);
}

static int then_add1_host(cufuture *parent, void *arg, cufuture_result *r)
{
	r->value = (void *)((intptr_t)cufuture_value(parent) + 1);
	return 0;
}

/* test_chained_then, host values */
static int t_chained_then_host(void)
{
	cufuture *f, *cur, *next;

	OK(cufuture_create(&f, NULL, 0));
	cur = cufuture_retain(f);
	for (int i = 0; i < 20; i++) {
		OK(cufuture_then(cur, then_add1_host, NULL, &next));
		cufuture_release(cur);
		cur = next;
	}
	OK(cufuture_mark_completed(f, (void *)(intptr_t)0, NULL, 0));
	OK(cufuture_wait_and_throw(cur));
	CHECK((intptr_t)cufuture_value(cur) == 20, "value %ld, expected 20", (long)(intptr_t)cufuture_value(cur));
	cufuture_release(cur);
	cufuture_release(f);
	return 0;
}

/* test_interleaving_then_and_add_done_callback_maintains_callback_order */
struct order {
	pthread_mutex_t lock;
	int n, ids[64];
};
struct order_arg {
	struct order *o;
	int id;
};

static void order_push(struct order_arg *a)
{
	pthread_mutex_lock(&a->o->lock);
	a->o->ids[a->o->n++] = a->id;
	pthread_mutex_unlock(&a->o->lock);
}

static int order_cb(cufuture *f, void *arg, char *err, size_t len)
{
	order_push(arg);
	return 0;
}

static int order_then(cufuture *f, void *arg, cufuture_result *r)
{
	order_push(arg);
	return 0;
}

static int t_callback_order(void)
{
	struct order o = { PTHREAD_MUTEX_INITIALIZER, 0, { 0 } };
	struct order_arg a[40];
	cufuture *f, *kids[40] = { 0 };
	int d0 = 0;

	OK(cufuture_create(&f, &d0, 1));
	for (int i = 0; i < 40; i++) {
		a[i].o = &o;
		a[i].id = i;
		if (i == 20)
			OK(cufuture_mark_completed(f, NULL, NULL, 0));
		if (i % 2)
			OK(cufuture_then(f, order_then, &a[i], &kids[i]));
		else
			OK(cufuture_add_callback(f, order_cb, &a[i]));
	}
	CHECK(o.n == 40, "%d of 40 callbacks ran", o.n);
	for (int i = 0; i < 40; i++)
		CHECK(o.ids[i] == i, "callback %d ran in place %d", o.ids[i], i);
	for (int i = 0; i < 40; i++) {
		if (kids[i]) {
			CHECK(cufuture_has_value(kids[i]), "then child %d not complete", i);
			cufuture_release(kids[i]);
		}
	}
	cufuture_release(f);
	return 0;
}

static int then_raise(cufuture *parent, void *arg, cufuture_result *r)
{
	snprintf(r->error, sizeof r->error, "boom from then");
	return 1;
}

static int then_propagate(cufuture *parent, void *arg, cufuture_result *r)
{
	if (cufuture_has_error(parent)) {
		snprintf(r->error, sizeof r->error, "%s", cufuture_error(parent));
		return 1;
	}
	r->value = cufuture_value(parent);
	return 0;
}

static int then_ignore(cufuture *parent, void *arg, cufuture_result *r)
{
	r->value = arg;
	return 0;
}

/* test_then_raise, test_then_no_arg; a child that ignores the parent succeeds */
static int t_then_error(void)
{
	cufuture *f, *c1, *c2, *c3;
	int d0 = 0;

	OK(cufuture_create(&f, &d0, 1));
	CHECK(cufuture_then(f, NULL, NULL, &c1) == CUFUTURE_EINVAL, "then(NULL) accepted");
	OK(cufuture_then(f, then_raise, NULL, &c1));
	OK(cufuture_then(c1, then_propagate, NULL, &c2));
	OK(cufuture_then(c1, then_ignore, (void *)&d0, &c3));
	OK(cufuture_mark_completed(f, NULL, NULL, 0));
	CHECK(cufuture_has_value(f), "the parent holds an error");
	CHECK(cufuture_completed(c1) && cufuture_has_error(c1), "the then error did not reach the child");
	CHECK(cufuture_wait_and_throw(c1) == CUFUTURE_EFUTURE, "wait_and_throw did not throw");
	CHECK(strcmp(cufuture_last_error(), "boom from then") == 0, "message: %s", cufuture_last_error());
	CHECK(cufuture_wait(c1) == CUFUTURE_OK, "plain wait threw");
	CHECK(cufuture_has_error(c2) && strcmp(cufuture_error(c2), "boom from then") == 0,
	      "the error did not propagate to the grandchild");
	CHECK(cufuture_has_value(c3) && cufuture_value(c3) == &d0, "a child that ignores the error failed");
	cufuture_release(c1);
	cufuture_release(c2);
	cufuture_release(c3);
	cufuture_release(f);
	return 0;
}

struct reported {
	int n;
	char last[256];
};

static void count_reports(const char *msg, void *arg)
{
	struct reported *r = arg;

	r->n++;
	snprintf(r->last, sizeof r->last, "%s", msg);
}

static int cb_fail(cufuture *f, void *arg, char *err, size_t len)
{
	snprintf(err, len, "oops in add_callback");
	return 1;
}

static int cb_count(cufuture *f, void *arg, char *err, size_t len)
{
	int *n = arg;

	(*n)++;
	if (cufuture_has_error(f))
		(*n) += 100;
	return 0;
}

/* test_add_done_callback_error_is_ignored: swallowed and reported */
static int t_add_callback_error(void)
{
	struct reported rep = { 0, "" };
	cufuture *f;
	int n = 0, d0 = 0;

	cufuture_set_reporter(count_reports, &rep);
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_add_callback(f, cb_fail, NULL));
	OK(cufuture_add_callback(f, cb_count, &n));
	OK(cufuture_mark_completed(f, NULL, NULL, 0));
	OK(cufuture_add_callback(f, cb_fail, NULL));
	OK(cufuture_add_callback(f, cb_count, &n));
	cufuture_set_reporter(NULL, NULL);
	CHECK(rep.n == 2, "%d errors reported, expected 2", rep.n);
	CHECK(strstr(rep.last, "oops in add_callback"), "reported: %s", rep.last);
	CHECK(n == 2, "later callbacks ran %d times, expected 2", n);
	CHECK(cufuture_has_value(f), "a callback error reached the future");
	cufuture_release(f);
	return 0;
}

/* test_done_exception, test_mark_future_twice, set_error runs callbacks */
static int t_set_error(void)
{
	cufuture *f, *c;
	int n = 0, d0 = 0;

	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_add_callback(f, cb_count, &n));
	OK(cufuture_then(f, then_ignore, &n, &c));
	OK(cufuture_set_error(f, "boom"));
	CHECK(n == 101, "the queued callback did not see the error (%d)", n);
	OK(cufuture_add_callback(f, cb_count, &n));
	CHECK(n == 202, "the inline callback did not see the error (%d)", n);
	CHECK(cufuture_completed(f) && !cufuture_has_value(f) && cufuture_has_error(f), "flags wrong");
	CHECK(cufuture_wait(f) == CUFUTURE_OK, "wait threw");
	CHECK(cufuture_wait_and_throw(f) == CUFUTURE_EFUTURE && strcmp(cufuture_last_error(), "boom") == 0,
	      "wait_and_throw: %s", cufuture_last_error());
	CHECK(cufuture_has_value(c), "then child of an errored future failed");
	CHECK(cufuture_set_error(f, "again") == CUFUTURE_EALREADY, "set_error twice accepted");
	CHECK(cufuture_mark_completed(f, NULL, NULL, 0) == CUFUTURE_EALREADY, "mark after error accepted");
	cufuture_release(c);
	cufuture_release(f);
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_mark_completed(f, NULL, NULL, 0));
	CHECK(cufuture_mark_completed(f, NULL, NULL, 0) == CUFUTURE_EALREADY, "completing twice accepted");
	CHECK(strstr(cufuture_last_error(), "Attempting to mark a completed Future as complete again"), "message: %s",
	      cufuture_last_error());
	CHECK(cufuture_has_value(f), "the second completion broke the first");
	cufuture_release(f);
	return 0;
}

/* test_cuda_future_value_on_bad_device */
static int bad_device(int declared, const char *expect)
{
	CUdeviceptr x = dalloc(0, BYTES);
	cufuture *f, *c;
	int n = 0;

	OK(cufuture_create(&f, &declared, declared >= 0));
	OK(cufuture_add_callback(f, cb_count, &n));
	OK(cufuture_then(f, then_ignore, &n, &c));
	CHECK(cufuture_mark_completed(f, NULL, &x, 1) == CUFUTURE_EDEVICE, "buffers on cuda:0 accepted");
	CHECK(cufuture_wait_and_throw(f) == CUFUTURE_EFUTURE, "wait_and_throw did not throw");
	CHECK(strcmp(cufuture_last_error(), expect) == 0, "message: %s", cufuture_last_error());
	CHECK(n == 101, "the callback did not run with the error (%d)", n);
	CHECK(cufuture_has_value(c), "the child failed");
	cufuture_release(c);
	cufuture_release(f);
	dfree(0, x);
	return 0;
}

static int t_value_on_bad_device(void)
{
	return bad_device(-1, "The result contained tensors residing on device(s) cuda:0 which are not among the "
			      "expected device(s) (none)");
}

static int t_value_on_bad_device_2gpu(void)
{
	if (ngpus < 2)
		return snprintf(why, sizeof why, "needs 2 GPUs (%d here)", ngpus), 77;
	return bad_device(1, "The result contained tensors residing on device(s) cuda:0 which are not among the "
			     "expected device(s) cuda:1");
}

/* test_cuda.py::test_record_stream: no early reuse. */
static int t_pool_record_stream(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x, y, z, out = dalloc(0, BYTES);
	cufuture_pool *p;
	cufuture_pool_stats st;
	CUevent ev;
	int *h = hbuf();
	CUresult q;

	OK(cufuture_pool_create(&p, 0));
	OK(cufuture_set_current_stream(A));
	/* control: a free without recorded streams is reused at once */
	OK(cufuture_pool_alloc(p, BYTES, A, &z));
	OK(cufuture_pool_free(p, z));
	OK(cufuture_pool_alloc(p, BYTES, A, &x));
	CHECK(x == z, "the control block was not reused");
	OK(cufk_fill(0, A, x, 3, N));
	CU(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	CU(cuEventRecord(ev, A));
	CU(cuStreamWaitEvent(B, ev, 0));
	OK(cufk_sleep(0, B, SLEEP_HALF));
	OK(cufk_copy(0, B, out, x, N));
	OK(cufuture_record_stream(x, B));
	OK(cufuture_pool_free(p, x));
	OK(cufuture_pool_alloc(p, BYTES, A, &y));
	q = cuStreamQuery(B);
	CHECK(q == CUDA_ERROR_NOT_READY, "the slow stream finished too early (%d): the test proves nothing", (int)q);
	CHECK(y != x, "early reuse: the block still used by the slow stream was handed out again");
	OK(cufk_fill(0, A, y, 9, N));
	CU(cuStreamSynchronize(B));
	CU(read_on(0, B, out, h, BYTES));
	EXPECT_ALL(h, 3, "what the slow stream read");
	CU(cuStreamSynchronize(A));
	OK(cufuture_pool_alloc(p, BYTES, A, &z));
	CHECK(z == x, "the block was not reused once the slow stream finished");
	cufuture_pool_get_stats(p, &st);
	CHECK(st.allocs == 2 && st.deferred == 1 && st.pending == 0, "stats: %lu allocs, %lu deferred, %lu pending",
	      st.allocs, st.deferred, st.pending);
	printf("# pool_record_stream: %lu allocs, %lu reuses, %lu deferred\n", st.allocs, st.reuses, st.deferred);
	cuEventDestroy(ev);
	cufuture_pool_destroy(p);
	return finish(NULL, NULL, out, 0, A, B);
}

struct slow_reader {
	CUdeviceptr src, dst;
	CUstream stream;
	int ok;
};

static int cb_slow_read(cufuture *f, void *arg, char *err, size_t len)
{
	struct slow_reader *r = arg;

	r->stream = cufuture_current_stream(0);
	r->ok = cufk_sleep(0, r->stream, SLEEP_HALF) == CUFUTURE_OK &&
		cufk_copy(0, r->stream, r->dst, r->src, N) == CUFUTURE_OK;
	return 0;
}

/* The callback wrapper (after PyTorch issue 48496) records the value's buffers on the callback
 * stream, so the producer's free cannot recycle them under the callback. */
static int t_pool_future_callback(void)
{
	CUstream A = mkstream(0);
	CUdeviceptr x, y;
	struct slow_reader r = { 0, 0, NULL, 0 };
	cufuture_pool *p;
	cufuture *f;
	int *h = hbuf(), d0 = 0;
	CUresult q;

	r.dst = dalloc(0, BYTES);
	OK(cufuture_pool_create(&p, 0));
	OK(cufuture_set_current_stream(A));
	OK(cufuture_pool_alloc(p, BYTES, 0, &x));
	OK(cufk_fill(0, A, x, 4, N));
	r.src = x;
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_add_callback(f, cb_slow_read, &r));
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	CHECK(r.ok && r.stream && r.stream != A, "the callback did not run on a pool stream");
	OK(cufuture_pool_free(p, x));
	OK(cufuture_pool_alloc(p, BYTES, 0, &y));
	q = cuStreamQuery(r.stream);
	CHECK(q == CUDA_ERROR_NOT_READY, "the callback stream finished too early (%d)", (int)q);
	CHECK(y != x, "early reuse: the callback's buffer was handed out again");
	OK(cufk_fill(0, A, y, 9, N));
	CU(cuStreamSynchronize(r.stream));
	CU(read_on(0, r.stream, r.dst, h, BYTES));
	EXPECT_ALL(h, 4, "what the callback read");
	cufuture_release(f);
	cufuture_pool_destroy(p);
	cufuture_set_current_stream(NULL);
	dfree(0, r.dst);
	rmstream(A);
	return 0;
}

/* test_wait_multi_thread: a thread waits, the main thread completes 0.5 s later. */
struct waiter {
	cufuture *f;
	CUdeviceptr x;
	double waited;
	int status, bad;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	CUstream C = mkstream(0);
	int *h = malloc(BYTES);
	double t0 = now();

	w->status = -1;
	if (!h || !C || cufuture_set_device(0) != CUFUTURE_OK || cufuture_set_current_stream(C) != CUFUTURE_OK)
		return NULL;
	w->status = cufuture_wait_and_throw(w->f);
	w->waited = now() - t0;
	if (read_on(0, C, w->x, h, BYTES) != CUDA_SUCCESS)
		w->status = -2;
	w->bad = (int)bad_index(h, N, 6);
	free(h);
	rmstream(C);
	return NULL;
}

static int t_wait_other_thread(void)
{
	CUstream A = mkstream(0);
	struct waiter w = { NULL, dalloc(0, BYTES), 0, 0, 0 };
	pthread_t t;
	int d0 = 0;

	OK(cufuture_create(&w.f, &d0, 1));
	CHECK(pthread_create(&t, NULL, waiter_main, &w) == 0, "pthread_create failed");
	usleep(500000);
	TRY(produce(A, SLEEP_HALF / 2, w.x, 6));
	OK(cufuture_mark_completed(w.f, NULL, &w.x, 1));
	pthread_join(t, NULL);
	printf("# wait_other_thread: the waiter blocked %.1f ms\n", w.waited * 1e3);
	CHECK(w.status == CUFUTURE_OK, "the waiter failed (%d)", w.status);
	CHECK(w.waited > 0.4 && w.waited < 1.0, "the waiter blocked %.3f s, expected about 0.5", w.waited);
	CHECK(w.bad < 0, "the waiter read a wrong element %d", w.bad);
	return finish(w.f, NULL, w.x, 0, A, NULL);
}

/* _callback_changes_devices, single-GPU variant: the then callback copies the
 * value into a new buffer on its stream; the child is read on stream B. */
static int then_copy_same_device(cufuture *parent, void *arg, cufuture_result *r)
{
	CUdeviceptr dst = *(CUdeviceptr *)arg;

	return then_result(r, cufk_copy(0, cufuture_current_stream(0), dst, first_buffer(parent), N) == CUFUTURE_OK,
			   dst, "copy");
}

static int t_two_stream_copy(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES), y = dalloc(0, BYTES);
	cufuture *f, *c;
	int d0 = 0;

	TRY(produce(A, SLEEP_HALF, x, 1));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_then(f, then_copy_same_device, &y, &c));
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	TRY(consume(c, B, y, 1, "the copy read on stream B"));
	return finish(f, c, x, y, A, B);
}

/* _callback_changes_devices: cuda:0 -> cuda:1 in the callback. */
static int then_copy_to_dev1(cufuture *parent, void *arg, cufuture_result *r)
{
	CUdeviceptr src = first_buffer(parent), dst = *(CUdeviceptr *)arg;
	CUstream s0 = cufuture_current_stream(0), s1 = cufuture_current_stream(1);
	CUevent ev = NULL;
	CUcontext c;
	int ok;

	cuCtxPushCurrent(cufuture_context(0));
	ok = cuMemcpyPeerAsync(dst, cufuture_context(1), src, cufuture_context(0), BYTES, s0) == CUDA_SUCCESS &&
	     cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS && cuEventRecord(ev, s0) == CUDA_SUCCESS;
	cuCtxPopCurrent(&c);
	cuCtxPushCurrent(cufuture_context(1));
	ok = ok && cuStreamWaitEvent(s1, ev, 0) == CUDA_SUCCESS;
	cuCtxPopCurrent(&c);
	if (ev)
		cuEventDestroy(ev);
	return then_result(r, ok, dst, "peer copy");
}

static int t_two_device_copy(void)
{
	CUstream A, B1;
	CUdeviceptr x, y;
	cufuture *f, *c;
	int *h = hbuf(), devs[] = { 0, 1 };

	if (ngpus < 2)
		return snprintf(why, sizeof why, "needs 2 GPUs (%d here); see two_stream_copy", ngpus), 77;
	A = mkstream(0);
	B1 = mkstream(1);
	x = dalloc(0, BYTES);
	y = dalloc(1, BYTES);
	TRY(produce(A, SLEEP_HALF, x, 1));
	OK(cufuture_create(&f, devs, 2));
	OK(cufuture_then(f, then_copy_to_dev1, &y, &c));
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	OK(cufuture_set_current_stream(B1));
	OK(cufuture_wait_and_throw(c));
	CHECK(cufuture_event(c, 1) && !cufuture_event(c, 0), "the child's event is not on cuda:1 alone");
	CU(read_on(1, B1, y, h, BYTES));
	EXPECT_ALL(h, 1, "cuda:1 read after the callback's copy");
	cufuture_set_current_stream(NULL);
	cufuture_release(c);
	cufuture_release(f);
	dfree(0, x);
	dfree(1, y);
	rmstream(A);
	rmstream(B1);
	return 0;
}

/* FutureNCCL: complete at creation; callbacks run inline. */
static int t_precompleted(void)
{
	CUstream A = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	struct seen s;
	cufuture *f, *c;
	int *h = hbuf(), d0 = 0, calls = 0;

	memset(&s, 0, sizeof s);
	s.src = x;
	s.dst = dalloc(0, BYTES);
	TRY(produce(A, SLEEP_HALF, x, 2));
	OK(cufuture_create_completed(&f, &d0, 1, &x, &x, 1));
	CHECK(cufuture_completed(f) && cufuture_has_value(f), "not complete at creation");
	CHECK(cuEventQuery(cufuture_event(f, 0)) == CUDA_ERROR_NOT_READY, "the GPU work finished too early");
	OK(cufuture_add_callback(f, cb_record, &s));
	CHECK(s.copied && pthread_equal(s.thread, pthread_self()), "add_callback did not run inline");
	CHECK(s.stream != A && s.device == 0, "the inline callback ran on the producer's stream");
	OK(cufuture_then(f, then_ignore, &calls, &c));
	CHECK(cufuture_has_value(c) && cufuture_value(c) == &calls, "then did not complete inline");
	devsync(0);
	CU(read_on(0, NULL, s.dst, h, BYTES));
	EXPECT_ALL(h, 2, "the inline callback's read");
	return finish(f, c, x, s.dst, A, NULL);
}

/* test_collect_all, test_wait_all: the first error in list order. */
static int t_collect_all(void)
{
	cufuture *f[3], *all;

	for (int i = 0; i < 3; i++)
		OK(cufuture_create(&f[i], NULL, 0));
	OK(cufuture_collect_all(f, 3, &all));
	OK(cufuture_mark_completed(f[2], (void *)2, NULL, 0));
	OK(cufuture_mark_completed(f[0], (void *)0, NULL, 0));
	CHECK(!cufuture_completed(all), "collect_all complete with one future left");
	OK(cufuture_mark_completed(f[1], (void *)1, NULL, 0));
	CHECK(cufuture_has_value(all) && cufuture_value(all) == (void *)f, "collect_all not complete");
	OK(cufuture_wait_all(f, 3));
	for (int i = 0; i < 3; i++)
		cufuture_release(f[i]);
	cufuture_release(all);

	for (int i = 0; i < 3; i++)
		OK(cufuture_create(&f[i], NULL, 0));
	OK(cufuture_collect_all(f, 3, &all));
	OK(cufuture_set_error(f[2], "e2"));
	OK(cufuture_mark_completed(f[0], NULL, NULL, 0));
	OK(cufuture_set_error(f[1], "e1"));
	CHECK(cufuture_has_error(all) && strcmp(cufuture_error(all), "e1") == 0, "collect_all error: %s",
	      cufuture_error(all) ? cufuture_error(all) : "(none)");
	CHECK(cufuture_wait_all(f, 3) == CUFUTURE_EFUTURE && strcmp(cufuture_last_error(), "e1") == 0,
	      "wait_all: %s", cufuture_last_error());
	for (int i = 0; i < 3; i++)
		cufuture_release(f[i]);
	cufuture_release(all);
	return 0;
}

/* test_ddp_comm_hook_allreduce_with_then_hook_nccl: x10 then x0.5 on the GPU */
static int then_scale(cufuture *parent, void *arg, cufuture_result *r)
{
	CUdeviceptr x = first_buffer(parent);

	return then_result(r, cufk_fscale(0, cufuture_current_stream(0), x, *(float *)arg, N) == CUFUTURE_OK, x,
			   "scale");
}

static int t_then_hook(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	float ten = 10.0f, half = 0.5f, *h = (float *)hbuf();
	cufuture *f, *c1, *c2;
	int d0 = 0;

	OK(cufuture_set_current_stream(A));
	OK(cufk_sleep(0, A, SLEEP_HALF / 2));
	OK(cufk_ffill(0, A, x, 0.25f, N));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_then(f, then_scale, &ten, &c1));
	OK(cufuture_then(c1, then_scale, &half, &c2));
	OK(cufuture_mark_completed(f, NULL, &x, 1));
	OK(cufuture_set_current_stream(B));
	OK(cufuture_wait_and_throw(c2));
	CU(read_on(0, B, x, h, BYTES));
	for (size_t i = 0; i < N; i++)
		CHECK(h[i] == 1.25f * (float)(1 + i % 1024), "element %zu is %g, expected %g", i, (double)h[i],
		      1.25 * (double)(1 + i % 1024));
	cufuture_release(c2);
	return finish(f, c1, x, 0, A, B);
}

/* The driver's error names reach the program (every message relies on them). */
static int t_error_names(void)
{
	const char *name = NULL;

	CU(cuGetErrorName(CUDA_ERROR_NOT_READY, &name));
	CHECK(name && strcmp(name, "CUDA_ERROR_NOT_READY") == 0, "cuGetErrorName gave %s", name ? name : "NULL");
	return 0;
}

/* c10's pools: low- and high-priority streams, round robin; callbacks take
 * low-priority ones. */
static int t_pool_priority(void)
{
	CUstream lo1, lo2, hi;
	int least = 0, greatest = 0, p_lo = 99, p_hi = 99, p_cb = 99;
	struct seen s;
	cufuture *f;
	int d0 = 0;
	CUcontext c;

	OK(cufuture_stream_from_pool(0, 0, &lo1));
	OK(cufuture_stream_from_pool(0, 0, &lo2));
	OK(cufuture_stream_from_pool(0, 1, &hi));
	CHECK(lo1 && lo2 && hi && lo1 != lo2 && hi != lo1 && hi != lo2, "the pool handed out a stream twice");
	CU(cuCtxPushCurrent(cufuture_context(0)));
	CU(cuCtxGetStreamPriorityRange(&least, &greatest));
	CU(cuStreamGetPriority(lo1, &p_lo));
	CU(cuStreamGetPriority(hi, &p_hi));
	cuCtxPopCurrent(&c);
	CHECK(p_lo == least && p_hi == greatest, "priorities %d and %d, the range is %d..%d", p_lo, p_hi, least,
	      greatest);
	memset(&s, 0, sizeof s);
	s.src = s.dst = dalloc(0, BYTES);
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_mark_completed(f, NULL, NULL, 0));
	OK(cufuture_add_callback(f, cb_record, &s));
	CU(cuStreamGetPriority(s.stream, &p_cb));
	CHECK(p_cb == least, "the callback stream has priority %d, not the lowest (%d)", p_cb, least);
	printf("# pool_priority: priorities %d (low) .. %d (high)\n", least, greatest);
	cufuture_release(f);
	dfree(0, s.dst);
	return 0;
}

/* Upstream skips non-CUDA storages: host buffers, pinned or not, are kept
 * with the value but get no event; the device buffer gets its one. */
static int t_non_cuda_buffers(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES);
	void *pinned = NULL;
	int *plain = malloc(64), d0 = 0;
	cufuture *f, *g;
	size_t nb = 0;
	CUcontext c;

	CU(cuCtxPushCurrent(cufuture_context(0)));
	CU(cuMemAllocHost(&pinned, 4096));
	cuCtxPopCurrent(&c);
	CHECK(plain && pinned, "setup failed");
	TRY(produce(A, SLEEP_HALF / 2, x, 12));
	OK(cufuture_create(&f, &d0, 1));
	OK(cufuture_mark_completed(f, NULL, (CUdeviceptr[]){ (CUdeviceptr)(uintptr_t)plain, x,
				   (CUdeviceptr)(uintptr_t)pinned }, 3));
	CHECK(cufuture_has_value(f) && cufuture_event(f, 0), "not completed with one event on cuda:0");
	CHECK(cufuture_buffers(f, &nb) && nb == 3, "the value lost buffers (%zu)", nb);
	TRY(consume(f, B, x, 12, "the device buffer"));
	OK(cufuture_create(&g, &d0, 1)); /* host buffers only: complete, no event */
	OK(cufuture_mark_completed(g, NULL, (CUdeviceptr[]){ (CUdeviceptr)(uintptr_t)plain }, 1));
	CHECK(cufuture_has_value(g) && !cufuture_event(g, 0), "a host-only value got an event or an error");
	finish(f, g, x, 0, A, B);
	CU(cuMemFreeHost(pinned));
	free(plain);
	return 0;
}

/* Completion from a host function enqueued after the producer, while threads
 * race then, add_callback and wait on the future. */
#define RACERS 6
struct race {
	cufuture *f;
	CUdeviceptr x;
	pthread_t main, completer;
	int callbacks, thens, reads_ok, on_completer, on_racers, errors;
	pthread_mutex_t lock;
};
struct racer {
	struct race *r;
	int id;
	pthread_t self;
};

static int race_cb(cufuture *f, void *arg, char *err, size_t len)
{
	struct racer *k = arg;
	struct race *r = k->r;

	pthread_mutex_lock(&r->lock);
	r->callbacks++;
	if (pthread_equal(pthread_self(), k->self))
		r->on_racers++;
	else if (!pthread_equal(pthread_self(), r->main))
		r->on_completer++;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static int race_then(cufuture *parent, void *arg, cufuture_result *res)
{
	struct race *r = arg;

	__atomic_add_fetch(&r->thens, 1, __ATOMIC_RELAXED);
	res->value = cufuture_value(parent);
	return 0;
}

static void *racer_main(void *arg)
{
	struct racer *k = arg;
	struct race *r = k->r;
	CUstream C = mkstream(0);
	int *h = malloc(BYTES), ok = C && h && cufuture_set_device(0) == CUFUTURE_OK &&
					cufuture_set_current_stream(C) == CUFUTURE_OK;

	k->self = pthread_self();
	for (int j = 0; ok && j < 4; j++) {
		cufuture *child = NULL;
		ok = cufuture_add_callback(r->f, race_cb, k) == CUFUTURE_OK &&
		     cufuture_then(r->f, race_then, r, &child) == CUFUTURE_OK;
		if (child) {
			ok = ok && cufuture_wait_and_throw(child) == CUFUTURE_OK && cufuture_value(child) == &r->x;
			cufuture_release(child);
		}
		if (j == k->id % 4) /* some wait before completion, some after */
			ok = ok && cufuture_wait_and_throw(r->f) == CUFUTURE_OK &&
			     read_on(0, C, r->x, h, BYTES) == CUDA_SUCCESS && bad_index(h, N, 11) < 0;
	}
	__atomic_add_fetch(ok ? &r->reads_ok : &r->errors, 1, __ATOMIC_RELAXED);
	free(h);
	rmstream(C);
	return NULL;
}

static int t_host_func_race(void)
{
	CUstream A = mkstream(0);
	struct race r;
	struct racer k[RACERS];
	pthread_t t[RACERS];
	int d0 = 0, done_early;

	memset(&r, 0, sizeof r);
	pthread_mutex_init(&r.lock, NULL);
	r.main = pthread_self();
	r.x = dalloc(0, BYTES);
	OK(cufuture_create(&r.f, &d0, 1));
	OK(cufk_sleep(0, A, SLEEP_HALF / 2));
	OK(cufk_fill(0, A, r.x, 11, N));
	OK(cufuture_mark_completed_after(r.f, A, &r.x, &r.x, 1));
	done_early = cufuture_completed(r.f);
	for (int i = 0; i < RACERS; i++) {
		k[i].r = &r;
		k[i].id = i;
		CHECK(pthread_create(&t[i], NULL, racer_main, &k[i]) == 0, "pthread_create failed");
	}
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	printf("# host_func_race: %d callbacks on the completion thread, %d inline\n", r.on_completer, r.on_racers);
	CHECK(!done_early, "complete before the producer's stream reached the host function");
	CHECK(r.errors == 0 && r.reads_ok == RACERS, "%d of %d racers failed", r.errors, RACERS);
	CHECK(r.callbacks == RACERS * 4 && r.thens == RACERS * 4, "%d callbacks and %d then of %d each",
	      r.callbacks, r.thens, RACERS * 4);
	CHECK(r.on_completer > 0, "no callback ran on the completion thread: the host function completed nothing");
	CHECK(r.on_completer + r.on_racers == r.callbacks, "a callback ran on the main thread");
	cufuture_release(r.f);
	dfree(0, r.x);
	rmstream(A);
	return 0;
}

/* Upstream's "restore the current device in callbacks" on two devices: a
 * value on cuda:1 completed with cuda:0 current. One event, on cuda:1; each
 * callback runs with cuda:0 current (the completion-time device, whatever the
 * caller's) on fresh pool streams, and the caller's device and current
 * streams come back afterwards. with_data: the producer fills the value on
 * cuda:1 and the callbacks copy it on their cuda:1 streams, read back after. */
struct two_seen {
	CUstream stream0, stream1;
	int device;
	CUdeviceptr src, dst;
	int copied;
};

static int cb_two(cufuture *f, void *arg, char *err, size_t len)
{
	struct two_seen *s = arg;

	s->device = cufuture_current_device();
	s->stream0 = cufuture_current_stream(0);
	s->stream1 = cufuture_current_stream(1);
	s->copied = !s->dst || cufk_copy(1, s->stream1, s->dst, s->src, N) == CUFUTURE_OK;
	return 0;
}

/* The inline callback, added by a caller with cuda:1 current and B1 its
 * current stream there: it must see cuda:0, and the caller get cuda:1 and B1
 * back. */
static int two_inline(cufuture *f, struct two_seen *q, struct two_seen *in, CUstream B1)
{
	OK(cufuture_set_device(1));
	OK(cufuture_set_current_stream(B1));
	OK(cufuture_add_callback(f, cb_two, in));
	CHECK(in->device == 0, "the inline callback ran with cuda:%d current, not cuda:0 (current at completion)",
	      in->device);
	CHECK(cufuture_current_device() == 1, "the caller's cuda:1 was not restored (cuda:%d current)",
	      cufuture_current_device());
	CHECK(cufuture_current_stream(1) == B1, "the caller's current stream on cuda:1 was not restored");
	CHECK(in->stream1 && in->stream1 != B1 && in->stream1 != q->stream1,
	      "the inline callback did not get a fresh stream on cuda:1");
	CHECK(in->copied, "the inline callback's copy failed");
	return 0;
}

static int two_device(int with_data)
{
	CUstream A1, B1;
	CUdeviceptr x1, y1 = 0, z1 = 0;
	struct two_seen q, in;
	cufuture *f;
	int *h = hbuf(), devs[] = { 0, 1 };

	if (ngpus < 2)
		return snprintf(why, sizeof why, "needs 2 GPUs (%d here)", ngpus), 77;
	A1 = mkstream(1), B1 = mkstream(1);
	x1 = dalloc(1, BYTES);
	if (with_data)
		y1 = dalloc(1, BYTES), z1 = dalloc(1, BYTES);
	CHECK(A1 && B1 && x1 && (!with_data || (y1 && z1)), "setup on cuda:1 failed");
	memset(&q, 0, sizeof q), memset(&in, 0, sizeof in);
	q.src = in.src = x1, q.dst = y1, in.dst = z1;
	OK(cufuture_set_current_stream(A1));
	if (with_data) {
		OK(cufk_sleep(1, A1, SLEEP_HALF / 2));
		OK(cufk_fill(1, A1, x1, 21, N));
	}
	OK(cufuture_create(&f, devs, 2));
	OK(cufuture_add_callback(f, cb_two, &q));
	OK(cufuture_set_device(0));
	OK(cufuture_mark_completed(f, NULL, &x1, 1));
	CHECK(cufuture_event(f, 1) && !cufuture_event(f, 0), "not one event, on cuda:1 alone");
	CHECK(q.device == 0, "the queued callback ran with cuda:%d current, not cuda:0 (current at completion)",
	      q.device);
	CHECK(q.stream0 && q.stream1 && q.stream1 != A1, "the queued callback did not get fresh streams");
	CHECK(q.copied, "the queued callback's copy failed");
	CHECK(cufuture_current_device() == 0 && cufuture_current_stream(1) == A1,
	      "the completing thread's device or current stream was not restored");
	TRY(two_inline(f, &q, &in, B1));
	printf("# two_device%s: a value on cuda:1 completed with cuda:0 current: one event, on cuda:1; the queued "
	       "callback and an inline one added with cuda:1 current both ran with cuda:0 current on fresh cuda:1 "
	       "streams; the caller's cuda:1 and its stream were restored\n", with_data ? "_value" : "_restore");
	if (with_data) {
		OK(cufuture_wait_and_throw(f)); /* B1 is current on cuda:1 */
		CU(read_on(1, B1, x1, h, BYTES));
		EXPECT_ALL(h, 21, "cuda:1's value");
		devsync(1);
		CU(read_on(1, B1, y1, h, BYTES));
		EXPECT_ALL(h, 21, "the queued callback's copy");
		CU(read_on(1, B1, z1, h, BYTES));
		EXPECT_ALL(h, 21, "the inline callback's copy");
	}
	cufuture_set_current_stream(NULL);
	cufuture_set_device(0);
	cufuture_release(f);
	dfree(1, x1);
	if (with_data)
		dfree(1, y1), dfree(1, z1);
	rmstream(A1), rmstream(B1);
	return 0;
}

/* The device logic alone, no kernel and no data: runs on the fake driver's
 * two devices (FAKE_DEVICES=2) as on two GPUs. */
static int t_two_device_restore(void)
{
	return two_device(0);
}

static int t_two_device_value(void)
{
	return two_device(1);
}

/* Completion from another thread, as upstream's markCompleted: the events go
 * on the completing thread's current streams, so that thread must make them
 * follow the producer. Here it makes its own stream wait on an event the
 * producer recorded, and completes while the producer is still sleeping on
 * its stream; and a host function completes a second future after the
 * producer's fill while the producer's stream still has work queued. In both,
 * a queued callback's copy and a wait on another stream must see the data. */
struct xdone {
	cufuture *f;
	CUdeviceptr x;
	CUevent produced;
	CUstream own;
	CUresult at_mark;
	int ok;
};

static void *complete_elsewhere(void *arg)
{
	struct xdone *c = arg;

	c->own = mkstream(0);
	c->ok = c->own && cufuture_set_device(0) == CUFUTURE_OK &&
		cuStreamWaitEvent(c->own, c->produced, 0) == CUDA_SUCCESS &&
		cufuture_set_current_stream(c->own) == CUFUTURE_OK &&
		cufuture_mark_completed(c->f, NULL, &c->x, 1) == CUFUTURE_OK;
	c->at_mark = c->ok ? cuEventQuery(cufuture_event(c->f, 0)) : CUDA_ERROR_UNKNOWN;
	cufuture_set_current_stream(NULL);
	return NULL;
}

/* The same check for both: the callback's copy (s) and a read of x after a
 * wait on B hold the producer's data v. */
static int cross_check(cufuture *f, struct seen *s, CUstream A, CUstream B, CUdeviceptr x, int v, const char *how)
{
	int *h = hbuf();
	char what[96];

	CHECK(seen_done(s), "%s: the callback did not run within 10 s", how);
	CHECK(s->copied && s->stream != A && s->stream != B, "%s: the callback did not copy on a fresh stream", how);
	OK(cufuture_set_current_stream(B));
	OK(cufuture_wait_and_throw(f));
	CU(read_on(0, B, x, h, BYTES));
	snprintf(what, sizeof what, "%s: read after wait", how);
	EXPECT_ALL(h, v, what);
	devsync(0);
	CU(read_on(0, B, s->dst, h, BYTES));
	snprintf(what, sizeof what, "%s: the callback's copy", how);
	EXPECT_ALL(h, v, what);
	cufuture_set_current_stream(NULL);
	return 0;
}

static int t_cross_thread_completion(void)
{
	CUstream A = mkstream(0), B = mkstream(0);
	CUdeviceptr x = dalloc(0, BYTES), x2 = dalloc(0, BYTES);
	struct seen s, s2;
	struct xdone c;
	pthread_t t;
	cufuture *f2;
	int d0 = 0;
	CUresult later;

	memset(&s, 0, sizeof s), memset(&s2, 0, sizeof s2), memset(&c, 0, sizeof c);
	s.src = x, s.dst = dalloc(0, BYTES), s2.src = x2, s2.dst = dalloc(0, BYTES);
	CHECK(A && B && x && x2 && s.dst && s2.dst, "setup failed");
	/* another thread, the producer still running */
	TRY(produce(A, SLEEP_HALF, x, 13));
	CU(cuEventCreate(&c.produced, CU_EVENT_DISABLE_TIMING));
	CU(cuEventRecord(c.produced, A));
	OK(cufuture_create(&c.f, &d0, 1));
	c.x = x;
	OK(cufuture_add_callback(c.f, cb_record, &s));
	CHECK(pthread_create(&t, NULL, complete_elsewhere, &c) == 0, "pthread_create failed");
	pthread_join(t, NULL);
	CHECK(c.ok, "completing on another thread failed: %s", cufuture_last_error());
	CHECK(c.at_mark == CUDA_ERROR_NOT_READY, "the producer finished before the completion (%d): proves nothing",
	      (int)c.at_mark);
	CHECK(!pthread_equal(s.thread, pthread_self()), "the callback did not run on the completing thread");
	TRY(cross_check(c.f, &s, A, B, x, 13, "another thread"));
	/* a host function, the producer's stream still busy after it */
	OK(cufuture_set_current_stream(A));
	OK(cufk_sleep(0, A, SLEEP_HALF / 4));
	OK(cufk_fill(0, A, x2, 14, N));
	OK(cufuture_create(&f2, &d0, 1));
	OK(cufuture_add_callback(f2, cb_record, &s2));
	OK(cufuture_mark_completed_after(f2, A, NULL, &x2, 1));
	OK(cufk_sleep(0, A, SLEEP_HALF));
	block_on(f2);
	later = cuStreamQuery(A);
	CHECK(later == CUDA_ERROR_NOT_READY, "the producer's later work finished before the completion (%d)",
	      (int)later);
	TRY(cross_check(f2, &s2, A, B, x2, 14, "a host function"));
	printf("# cross_thread_completion: completed on another thread with the producer running, and by a host "
	       "function with the producer's stream still busy: callbacks and waits saw the data\n");
	cuEventDestroy(c.produced);
	rmstream(c.own);
	dfree(0, s.dst), dfree(0, s2.dst);
	cufuture_release(f2);
	return finish(c.f, NULL, x, x2, A, B);
}

static const struct test {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "create_devices", t_create_devices },
	{ "extract_value", t_extract_value },
	{ "completed_before_gpu", t_completed_before_gpu },
	{ "callback_stream", t_callback_stream },
	{ "chained_then_gpu", t_chained_then_gpu },
	{ "chained_then_host", t_chained_then_host },
	{ "callback_order", t_callback_order },
	{ "then_error", t_then_error },
	{ "add_callback_error", t_add_callback_error },
	{ "set_error", t_set_error },
	{ "value_on_bad_device", t_value_on_bad_device },
	{ "value_on_bad_device_2gpu", t_value_on_bad_device_2gpu },
	{ "pool_record_stream", t_pool_record_stream },
	{ "pool_future_callback", t_pool_future_callback },
	{ "wait_other_thread", t_wait_other_thread },
	{ "two_stream_copy", t_two_stream_copy },
	{ "two_device_copy", t_two_device_copy },
	{ "precompleted", t_precompleted },
	{ "collect_all", t_collect_all },
	{ "then_hook", t_then_hook },
	{ "error_names", t_error_names },
	{ "pool_priority", t_pool_priority },
	{ "non_cuda_buffers", t_non_cuda_buffers },
	{ "host_func_race", t_host_func_race },
	{ "two_device_restore", t_two_device_restore },
	{ "two_device_value", t_two_device_value },
	{ "cross_thread_completion", t_cross_thread_completion },
};

static int selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *req = getenv("CUSHIM_TEST_REQUIRE_GPU");
	int require = req && strcmp(req, "1") == 0;
	int pass = 0, failed = 0, skip = 0;
	double t0 = now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "-l") == 0) {
		for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
			puts(tests[i].name);
		return 0;
	}
	/* have-gpu's logic */
	if (cufuture_init() != CUFUTURE_OK || (ngpus = cufuture_device_count()) < 1) {
		fprintf(stderr, "cufuture-test: %s%s\n", ngpus ? cufuture_last_error() : "no CUDA device",
			require ? " (CUSHIM_TEST_REQUIRE_GPU=1: failing)" : "; skipping");
		return require ? 1 : 77;
	}
#ifdef RTROUTE
	printf("# driver calls through the runtime: %s\n", rtroute_describe());
#endif
	if (cufuture_set_device(0) != CUFUTURE_OK || !hbuf()) {
		fprintf(stderr, "cufuture-test: cannot use device 0: %s\n", cufuture_last_error());
		return 1;
	}
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		double t;
		int rc;

		if (!selected(argc, argv, tests[i].name))
			continue;
		why[0] = 0;
		t = now();
		rc = tests[i].fn();
		t = now() - t;
		cufuture_set_device(0);
		if (rc == 0) {
			pass++;
			printf("PASS %s\n", tests[i].name);
		} else if (rc == 77) {
			skip++;
			printf("SKIP %s: %s\n", tests[i].name, why);
		} else {
			failed++;
			printf("FAIL %s: %s\n", tests[i].name, why);
			devsync(0);
		}
		printf("# %s: %.1f ms\n", tests[i].name, t * 1e3);
	}
	printf("# optional call: %s\n", cufuture_optional_path());
	printf("# %d passed, %d failed, %d skipped on %d GPU(s) in %.2f s\n", pass, failed, skip, ngpus, now() - t0);
	return failed ? 1 : 0;
}
