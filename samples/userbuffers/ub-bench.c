/* ub-bench: all-gather and reduce-scatter bus bandwidth per message size for
 * the SM and copy-engine variants, against cuMemcpyDtoD of the same bytes on
 * the same GPU and, with --gpus 2 (ranks on two GPUs: the collectives go over
 * VMM peer mappings), against cuMemcpyPeer and cuMemcpyPeerAsync from GPU 0
 * to GPU 1 (ub-bench-peer.c), all in the same run. One line per measurement; "shim=yes" when libcushim is preloaded.
 * Message size = the whole gathered (or reduced) buffer, n chunks, as nccl-tests;
 * busbw = size * (n-1)/n / time. Exit 0, 1 on error, 77 without a GPU. */
#include "ub.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bopts {
	int n, gpus, iters;
	size_t min, max;
	const char *shim;
};

static int iters_for(const struct bopts *o, size_t s)
{
	if (o->iters > 0)
		return o->iters;
	return s <= ((size_t)64 << 20) ? 20 : s <= ((size_t)256 << 20) ? 10 : 5;
}

/* The inputs of one measurement, made on the GPU; every rank's are in place
 * before any rank starts (an all-gather writes into its peers' buffers). */
static int fill_inputs(struct ub_comm *c, int h, size_t elems, unsigned seed, int kind, unsigned limit)
{
	CUdeviceptr p = c->reg[h].ptr[c->me];
	int dtype = UB_FP16;
	void *args[] = { &p, &c->me, &c->n, &elems, &seed, &kind, &dtype, &limit };

	UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->pattern, (unsigned)c->d->sms, 256, args));
	if (ub_sync_check(c, 0) != 0)
		return -1;
	return ub_barrier(c->b);
}

/* The final buffers after `reps` in-place runs, checked on the GPU against
 * the pattern: 0, or -1 with the first mismatch named. */
static int verify_final(struct ub_comm *c, int h, size_t elems, unsigned seed, int kind, unsigned limit, int reps)
{
	static CUdeviceptr bad;
	unsigned long long got[2] = { 0, 0 };
	CUdeviceptr p = c->reg[h].ptr[c->me];
	int dtype = UB_FP16;
	void *args[] = { &p, &c->me, &c->n, &elems, &seed, &kind, &dtype, &limit, &reps, &bad };

	if (!bad)
		UB_CU(c->b, cuMemAlloc(&bad, sizeof got));
	UB_CU(c->b, cuMemsetD8(bad, 0, sizeof got));
	UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->verify, (unsigned)c->d->sms, 256, args));
	if (ub_sync_check(c, 0) != 0)
		return -1;
	UB_CU(c->b, cuMemcpyDtoH(got, bad, sizeof got));
	if (got[0] == 0)
		return 0;
	ub_log(c->b, "MISMATCH: %llu elements of the final %s buffer are wrong, the first at %llu", got[0],
	       kind ? "reduce-scatter" : "all-gather", got[1]);
	return -1;
}

/* Time `iters` of one variant on this rank's stream; the job's time is the
 * slowest rank's. The buffers are filled before and verified after. */
static int time_op(struct ub_comm *c, int h, int op, int ce, size_t s, int iters, double *ms)
{
	size_t chunk = s / (size_t)c->n;
	unsigned seed = (unsigned)(s >> 4) ^ (unsigned)(op * 2 + ce + 1);
	/* reduce-scatter in place adds the others' chunks again each time: keep the sum exact in fp16 */
	unsigned limit = ub_small_limit(UB_FP16, 1 + (iters + 2) * (c->n - 1));
	CUevent e0, e1;
	float t = 0;
	float all[UB_MAX_RANKS];

	if (fill_inputs(c, h, chunk / 2, seed, op, limit) != 0)
		return -1;
	UB_CU(c->b, cuEventCreate(&e0, CU_EVENT_DEFAULT));
	UB_CU(c->b, cuEventCreate(&e1, CU_EVENT_DEFAULT));
	for (int w = 0; w < 2; w++) /* warm-up */
		if ((op == 0 ? ub_ag(c, h, chunk, ce, 1) : ub_rs(c, h, chunk, UB_FP16, ce, 1)) != 0)
			return -1;
	if (ub_sync_check(c, 0) != 0 || ub_barrier(c->b) != 0)
		return -1;
	UB_CU(c->b, cuEventRecord(e0, c->d->stream));
	for (int i = 0; i < iters; i++)
		if ((op == 0 ? ub_ag(c, h, chunk, ce, 1) : ub_rs(c, h, chunk, UB_FP16, ce, 1)) != 0)
			return -1;
	UB_CU(c->b, cuEventRecord(e1, c->d->stream));
	if (ub_sync_check(c, 0) != 0)
		return -1;
	UB_CU(c->b, cuEventElapsedTime(&t, e0, e1));
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	if (verify_final(c, h, chunk / 2, seed, op, limit, iters + 2) != 0)
		return -1;
	if (ub_allgather(c->b, &t, sizeof t, all) != 0)
		return -1;
	*ms = 0;
	for (int i = 0; i < c->n; i++)
		if (all[i] > *ms)
			*ms = all[i];
	*ms /= iters;
	return 0;
}

/* All-gather and reduce-scatter, SM and copy-engine variants, at message size
 * s; rank 0 prints a line for each. 0, or 1 when a measurement failed. */
static int bench_size(struct ub_comm *c, int h, const struct bopts *o, size_t s)
{
	struct ub_boot *b = c->b;
	int iters = iters_for(o, s);

	for (int op = 0; op < 2; op++)
		for (int ce = 0; ce < 2; ce++) {
			double ms = 0;
			if (time_op(c, h, op, ce, s, iters, &ms) != 0)
				return 1;
			double alg = (double)s / (ms * 1e-3) / 1e9;
			if (b->rank == 0)
				printf("ub-bench shim=%s op=%s variant=%s ranks=%d gpus=%d bytes=%zu iters=%d "
				       "time_us=%.1f algbw_GBps=%.2f busbw_GBps=%.2f verified=yes\n",
				       o->shim, op == 0 ? "allgather" : "reducescatter", ce ? "ce" : "sm", b->n,
				       o->gpus, s, iters, ms * 1e3, alg, alg * (b->n - 1) / b->n);
		}
	return 0;
}

/* The ceiling: cuMemcpyDtoD of the same bytes on rank 0's GPU, the others idle.
 * The buffers are made for the first size and freed after the last. 0 or -1. */
static int memcpy_ceiling(struct ub_boot *b, const struct bopts *o, size_t s)
{
	static CUdeviceptr src, dst;
	CUevent e0, e1;
	float t = 0;
	int it = iters_for(o, s);

	if (!src) {
		UB_CU(b, cuMemAlloc(&src, o->max));
		UB_CU(b, cuMemAlloc(&dst, o->max));
		UB_CU(b, cuMemsetD8(src, 1, o->max));
	}
	UB_CU(b, cuEventCreate(&e0, CU_EVENT_DEFAULT));
	UB_CU(b, cuEventCreate(&e1, CU_EVENT_DEFAULT));
	UB_CU(b, cuMemcpyDtoD(dst, src, s)); /* warm-up */
	UB_CU(b, cuCtxSynchronize());
	UB_CU(b, cuEventRecord(e0, NULL));
	for (int i = 0; i < it; i++)
		UB_CU(b, cuMemcpyDtoD(dst, src, s));
	UB_CU(b, cuEventRecord(e1, NULL));
	UB_CU(b, cuEventSynchronize(e1));
	UB_CU(b, cuEventElapsedTime(&t, e0, e1));
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	double ms = t / it;
	printf("ub-bench shim=%s op=memcpy_dtod variant=ce ranks=1 gpus=1 bytes=%zu iters=%d time_us=%.1f "
	       "algbw_GBps=%.2f busbw_GBps=%.2f\n",
	       o->shim, s, it, ms * 1e3, (double)s / (ms * 1e-3) / 1e9, (double)s / (ms * 1e-3) / 1e9);
	if (s * 2 > o->max) {
		cuMemFree(src);
		cuMemFree(dst);
		src = dst = 0;
	}
	return 0;
}

static int bench_rank(struct ub_boot *b, void *arg)
{
	const struct bopts *o = arg;
	struct ub_dev d;
	struct ub_comm c;
	int h, fail = 0;
	int rc = ub_dev_open(b, &d, o->gpus, "direct", 30);
	const char *req = getenv("CUSHIM_TEST_REQUIRE_GPU");

	if (rc == 77)
		return req && strcmp(req, "1") == 0 ? 1 : 77;
	if (rc != 0 || ub_comm_create(&c, b, &d, 0) != 0)
		return 1;
	if ((h = ub_register(&c, o->max)) < 0)
		return 1;
	if (b->rank == 0 && b->n > o->gpus)
		printf("ub-bench note: %d ranks share %d GPU(s); ranks are separate processes, so every cross-rank "
		       "wait costs a time-slice switch and small sizes measure scheduling, not the link\n",
		       b->n, o->gpus);
	UB_CU(b, cuMemsetD8(c.reg[h].ptr[b->rank], 0, c.reg[h].size));
	UB_CU(b, cuCtxSynchronize());
	for (size_t s = o->min; s <= o->max && !fail; s *= 2) {
		fail = bench_size(&c, h, o, s);
		/* The ceiling, measured by rank 0 between two barriers. */
		if (!fail && ub_barrier(b) != 0)
			fail = 1;
		if (!fail && b->rank == 0 && memcpy_ceiling(b, o, s) != 0)
			return -1;
		if (!fail && b->rank == 0 && o->gpus >= 2 && ub_bench_peer(b, &d, o->shim, s, o->max, iters_for(o, s)) != 0)
			return -1;
		if (!fail && ub_barrier(b) != 0)
			fail = 1;
	}
	if (ub_comm_destroy(&c) != 0)
		fail = 1;
	ub_dev_close(&d);
	return fail;
}

int main(int argc, char **argv)
{
	struct bopts o = { .n = 2, .gpus = 1, .min = (size_t)1 << 20, .max = (size_t)1 << 30 };
	const char *pre = getenv("LD_PRELOAD");

	setvbuf(stdout, NULL, _IOLBF, 0);
	o.shim = pre && strstr(pre, "cushim") ? "yes" : "no";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--ranks") == 0)
			o.n = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--gpus") == 0)
			o.gpus = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--iters") == 0)
			o.iters = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--min") == 0)
			o.min = strtoull(argv[i + 1], NULL, 0);
		else if (strcmp(argv[i], "--max") == 0)
			o.max = strtoull(argv[i + 1], NULL, 0);
		else {
			fprintf(stderr, "usage: ub-bench [--ranks N] [--gpus G] [--iters K] [--min BYTES] [--max BYTES]\n");
			return 1;
		}
	}
	int rank = 0, mpi = ub_boot_init(&o.n, &rank); /* under mpirun: the world's size */
	if (mpi < 0)
		return 1;
	if (o.n < 2 || o.n > UB_MAX_RANKS || o.min < 16 * (size_t)o.n || o.max < o.min || o.min % (16 * (size_t)o.n)) {
		ub_boot_fini();
		fprintf(stderr, "ub-bench: sizes must be multiples of 16*ranks and ranks 2..%d\n", UB_MAX_RANKS);
		return 1;
	}
	int rc = ub_launch(o.n, bench_rank, &o, 540);
	if (rank != 0)
		return rc;
	printf("ub-bench: %s shim=%s\n", rc == 0 ? "done" : rc == 77 ? "SKIP" : "FAIL", o.shim);
	return rc;
}
