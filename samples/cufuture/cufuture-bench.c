/* cufuture-bench [LABEL]: the cost of the future's machinery through the
 * driver (and the shim, when preloaded). One line per metric:
 *   LABEL METRIC VALUE UNIT
 * Exit 77 without a GPU (1 with CUSHIM_TEST_REQUIRE_GPU=1). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture.h"
#include "cufuture-kernels.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ITERS 2000
#define XITERS 500
#define CHAIN 20
#define NELEM 1024

static const char *label = "plain";

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report_lat(const char *metric, double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof *v, cmp);
	printf("%s %s_p50 %.2f us\n", label, metric, v[n / 2] * 1e6);
	printf("%s %s_p99 %.2f us\n", label, metric, v[n * 99 / 100] * 1e6);
	printf("%s %s_mean %.2f us\n", label, metric, sum / n * 1e6);
}

static int stamp_cb(cufuture *f, void *arg, char *err, size_t len)
{
	*(double *)arg = now();
	return 0;
}

struct xwait {
	cufuture **f;
	double *woke;
	int done;
};

static void *waiter(void *arg)
{
	struct xwait *w = arg;
	CUstream s = NULL;

	cufuture_set_device(0);
	cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	cufuture_set_current_stream(s);
	for (int i = 0; i < XITERS; i++) {
		cufuture_wait(w->f[i]);
		w->woke[i] = now();
		__atomic_store_n(&w->done, i + 1, __ATOMIC_RELEASE);
	}
	cuStreamSynchronize(s);
	cuStreamDestroy(s);
	return NULL;
}

static int then_host(cufuture *p, void *arg, cufuture_result *r)
{
	r->value = (void *)((intptr_t)cufuture_value(p) + 1);
	return 0;
}

static int then_gpu(cufuture *p, void *arg, cufuture_result *r)
{
	size_t n;
	const CUdeviceptr *b = cufuture_buffers(p, &n);

	if (cufk_add(0, cufuture_current_stream(0), b[0], 1, NELEM) != CUFUTURE_OK)
		return snprintf(r->error, sizeof r->error, "launch failed"), 1;
	r->nbufs = 1;
	r->bufs[0] = b[0];
	return 0;
}

/* Builds a CHAIN-long then chain on a new future, completes it, waits on the
 * end; returns the end's value, or -1. */
static long chain(int gpu, CUdeviceptr x, CUstream reader)
{
	int d0 = 0;
	cufuture *f, *cur, *next;
	long v = -1;

	if (cufuture_create(&f, &d0, gpu) != CUFUTURE_OK)
		return -1;
	cur = cufuture_retain(f);
	for (int i = 0; i < CHAIN; i++) {
		if (cufuture_then(cur, gpu ? then_gpu : then_host, NULL, &next) != CUFUTURE_OK)
			break;
		cufuture_release(cur);
		cur = next;
	}
	cufuture_mark_completed(f, (void *)0, &x, gpu ? 1 : 0);
	if (cufuture_wait_and_throw(cur) == CUFUTURE_OK)
		v = gpu ? 0 : (long)(intptr_t)cufuture_value(cur);
	if (gpu && cuStreamSynchronize(reader) != CUDA_SUCCESS)
		v = -1;
	cufuture_release(cur);
	cufuture_release(f);
	return v;
}

/* Device 0 current, streams A and B, and x: NELEM ints zeroed on the GPU;
 * 0 when ready, else the exit status. */
static int setup(CUstream *A, CUstream *B, CUdeviceptr *x)
{
	const char *req = getenv("CUSHIM_TEST_REQUIRE_GPU");

	if (cufuture_init() != CUFUTURE_OK || cufuture_device_count() < 1) {
		fprintf(stderr, "cufuture-bench: no CUDA device; skipping\n");
		return req && strcmp(req, "1") == 0 ? 1 : 77;
	}
	if (cufuture_set_device(0) != CUFUTURE_OK || cuStreamCreate(A, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
	    cuStreamCreate(B, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || cuMemAlloc(x, NELEM * sizeof(int)) != CUDA_SUCCESS ||
	    cufk_fill(0, *A, *x, 0, NELEM) != CUFUTURE_OK || cuCtxSynchronize() != CUDA_SUCCESS) {
		fprintf(stderr, "cufuture-bench: setup failed: %s\n", cufuture_last_error());
		return 1;
	}
	return 0;
}

/* 1. mark_completed -> a queued callback starts (same thread, GPU future);
 * the first 100 rounds are not counted. */
static void bench_callback(CUdeviceptr x)
{
	static double lat[ITERS];
	int d0 = 0;
	double t;

	for (int i = 0; i < ITERS + 100; i++) {
		cufuture *f;
		double in = 0;

		cufuture_create(&f, &d0, 1);
		cufuture_add_callback(f, stamp_cb, &in);
		t = now();
		cufuture_mark_completed(f, NULL, &x, 1);
		if (i >= 100)
			lat[i - 100] = in - t;
		cufuture_release(f);
	}
	report_lat("mark_completed_to_callback", lat, ITERS);
}

/* 2. mark_completed -> a thread blocked in wait() returns */
static void bench_waiter(CUdeviceptr x)
{
	static double lat[XITERS], t0s[XITERS], woke[XITERS];
	static cufuture *fs[XITERS];
	int d0 = 0;
	pthread_t th;
	struct xwait w = { fs, woke, 0 };

	for (int i = 0; i < XITERS; i++)
		cufuture_create(&fs[i], &d0, 1);
	pthread_create(&th, NULL, waiter, &w);
	for (int i = 0; i < XITERS; i++) {
		double spin = now();

		while (now() - spin < 50e-6)
			; /* let the waiter block */
		t0s[i] = now();
		cufuture_mark_completed(fs[i], NULL, &x, 1);
		while (__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) <= i)
			;
	}
	pthread_join(th, NULL);
	for (int i = 0; i < XITERS; i++) {
		lat[i] = woke[i] - t0s[i];
		cufuture_release(fs[i]);
	}
	report_lat("mark_completed_to_waiter_thread", lat, XITERS);
}

/* 3. then chains of CHAIN host callbacks, and of CHAIN GPU adds, each kind
 * for a second on stream B; 1 when a chain fails. */
static int bench_chains(CUdeviceptr x, CUstream B, int *gpu_chains)
{
	double t, el;
	int n;

	for (int gpu = 0; gpu < 2; gpu++) {
		cufuture_set_current_stream(B);
		t = now();
		n = 0;
		do {
			if (chain(gpu, x, B) != (gpu ? 0 : CHAIN)) {
				fprintf(stderr, "cufuture-bench: chain failed: %s\n", cufuture_last_error());
				return 1;
			}
			n++;
		} while ((el = now() - t) < 1.0);
		if (gpu)
			*gpu_chains = n;
		printf("%s then_chain%d_%s_per_s %.1f chains/s\n", label, CHAIN, gpu ? "gpu" : "host", n / el);
		printf("%s then_%s_per_s %.0f then/s\n", label, gpu ? "gpu" : "host", n * CHAIN / el);
	}
	return 0;
}

/* x was filled with CUFK_AT(0, i) and every one of the gpu_chains GPU chains
 * added CHAIN to each element: each must be exactly CUFK_AT(CHAIN * gpu_chains,
 * i); 1, naming the first that is not, when they are not. */
static int check_additions(CUdeviceptr x, int gpu_chains)
{
	static int h[NELEM];
	int want = CHAIN * gpu_chains;

	if (cuCtxSynchronize() != CUDA_SUCCESS || cuMemcpyDtoH(h, x, sizeof h) != CUDA_SUCCESS) {
		fprintf(stderr, "cufuture-bench: cannot read the chains' buffer back\n");
		return 1;
	}
	for (int i = 0; i < NELEM; i++)
		if (h[i] != CUFK_AT(want, i)) {
			fprintf(stderr, "cufuture-bench: MISMATCH: element %d is %d after %d GPU chains, expected %d\n", i,
				h[i], gpu_chains, CUFK_AT(want, i));
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	CUstream A = NULL, B = NULL;
	CUdeviceptr x = 0;
	int rc, gpu_chains = 0;

	if (argc > 1)
		label = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = setup(&A, &B, &x)) != 0)
		return rc;
	cufuture_set_current_stream(A);
	bench_callback(x);
	bench_waiter(x);
	if (bench_chains(x, B, &gpu_chains) || check_additions(x, gpu_chains))
		return 1;
	printf("%s optional_call %s -\n", label, strncmp(cufuture_optional_path(), "cuStreamGetDevice", 18) ? "fallback" : "native");
	cuMemFree(x);
	return 0;
}
