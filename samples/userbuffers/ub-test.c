/* ub-test: the Userbuffers sample's test driver. The launcher forks N ranks
 * (several may share a GPU); each registers buffers as TE does and runs the
 * collectives on integer-valued bf16/fp16 data, checking results exactly.
 * Under mpirun (built with MPI) each process is one rank and --ranks is the
 * world size; built without MPI, it refuses to run under mpirun.
 * Exit: 0 pass, 1 fail, 77 skip (no GPU, no VMM or fd handles, too few GPUs;
 * with CUSHIM_TEST_REQUIRE_GPU=1 a missing GPU fails instead). */
#include "ub.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct opts {
	int n, gpus, iters, dtype, withhold, multicast, corrupt, cycles, job_timeout, no_memcheck;
	size_t elems; /* per chunk */
	double timeout;
	const char *mode, *route;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: ub-test [--ranks N] [--gpus G]\n"
		"               [--mode all|ag|rs|ring|ce-ag|ce-rs|ce-ring|burst|timeout|memmap|place]\n"
		"               [--dtype bf16|fp16] [--iters K] [--elems E] [--route direct|proc] [--cycles C]\n"
		"               [--timeout S] [--withhold R] [--multicast] [--corrupt] [--no-memcheck] [--features] [--mc-probe]\n");
	exit(1);
}

enum { OP_AG, OP_RS, OP_RING };
static const char *const op_names[] = { "all-gather", "reduce-scatter", "ring sendrecv" };

/* The seed of one (operation, iteration): every run of a case sees new data. */
static unsigned seed_of(int op, int it, int k)
{
	return (unsigned)(it * 64 + k * 4 + op + 1);
}

/* Rank me's input, element i of chunk q (as ub_pattern makes it on the GPU). */
static uint16_t input_of(int op, int me, int q, size_t i, unsigned seed, int dtype, unsigned limit)
{
	if (op == OP_RS)
		return (uint16_t)ub_half_bits(ub_small(me, q, i, seed, limit), dtype);
	return (uint16_t)(q == me ? ub_raw(me, 0, i, seed) : UB_SENTINEL);
}

/* What rank me must hold in element i of chunk q after the operation. */
static uint16_t expect_of(int op, int me, int n, int q, size_t i, unsigned seed, int dtype, unsigned limit)
{
	int prev = (me - 1 + n) % n;
	unsigned s = 0;

	if (op == OP_AG)
		return (uint16_t)ub_raw(q, 0, i, seed);
	if (op == OP_RING)
		return (uint16_t)(q == me || q == prev ? ub_raw(q, 0, i, seed) : UB_SENTINEL);
	if (q != me)
		return input_of(op, me, q, i, seed, dtype, limit);
	for (int p = 0; p < n; p++)
		s += ub_small(p, q, i, seed, limit);
	return (uint16_t)ub_half_bits(s, dtype);
}

/* Mismatches of rank me's buffer `host` (n chunks of E) against expect_of;
 * the first is logged. */
static long check_buf(struct ub_boot *b, const uint16_t *host, int op, int ce, size_t E, unsigned seed, int dtype,
		      const char *when)
{
	unsigned limit = ub_small_limit(dtype, b->n);
	long bad = 0;

	for (int q = 0; q < b->n; q++)
		for (size_t i = 0; i < E; i++) {
			uint16_t want = expect_of(op, b->rank, b->n, q, i, seed, dtype, limit);
			uint16_t got = host[(size_t)q * E + i];
			if (got != want && bad++ == 0)
				ub_log(b, "MISMATCH %s%s %s: chunk %d element %zu is 0x%04x, wanted 0x%04x",
				       ce ? "copy-engine " : "", op_names[op], when, q, i, got, want);
		}
	return bad;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Fill, run, check one (op, variant, iteration). Returns mismatches, or -1. */
static long one_iter(struct ub_comm *c, int h, int op, int ce, int it, const struct opts *o, uint16_t *host)
{
	int n = c->n, me = c->me;
	size_t E = o->elems, chunk = E * 2;
	unsigned seed = seed_of(op, it, 0), limit = ub_small_limit(o->dtype, n);
	char when[32];

	for (int q = 0; q < n; q++)
		for (size_t i = 0; i < E; i++)
			host[(size_t)q * E + i] = input_of(op, me, q, i, seed, o->dtype, limit);
	UB_CU(c->b, cuMemcpyHtoD(c->reg[h].ptr[me], host, chunk * (size_t)n));
	UB_CU(c->b, cuCtxSynchronize());
	if (ub_barrier(c->b) != 0)
		return -1;
	int rc = op == OP_AG ? ub_ag(c, h, chunk, ce, 1)
		 : op == OP_RS ? ub_rs(c, h, chunk, o->dtype, ce, 1) : ub_ring(c, h, chunk, ce, 1);
	if (rc != 0 || ub_sync_check(c, 0) != 0)
		return -1;
	UB_CU(c->b, cuMemcpyDtoH(host, c->reg[h].ptr[me], chunk * (size_t)n));
	snprintf(when, sizeof when, "iter %d", it);
	long bad = check_buf(c->b, host, op, ce, E, seed, o->dtype, when);
	if (ub_barrier(c->b) != 0) /* nobody pushes the next iteration into a buffer being checked */
		return -1;
	return bad;
}

static int run_collectives(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	struct ub_comm c;
	int fail = 0, h;
	uint16_t *host = malloc(o->elems * 2 * (size_t)b->n);
	static const struct {
		const char *name;
		int op, ce;
	} cases[] = { { "ag", OP_AG, 0 },     { "rs", OP_RS, 0 },     { "ring", OP_RING, 0 },
		      { "ce-ag", OP_AG, 1 }, { "ce-rs", OP_RS, 1 }, { "ce-ring", OP_RING, 1 } };

	if (!host || ub_comm_create(&c, b, d, o->multicast) != 0) {
		free(host);
		return 1;
	}
	if ((h = ub_register(&c, o->elems * 2 * (size_t)b->n)) < 0)
		fail = 1;
	for (size_t k = 0; !fail && k < sizeof cases / sizeof *cases; k++) {
		if (strcmp(o->mode, "all") != 0 && strcmp(o->mode, cases[k].name) != 0)
			continue;
		long bad = 0;
		for (int it = 0; it < o->iters && bad == 0; it++)
			bad = one_iter(&c, h, cases[k].op, cases[k].ce, it, o, host);
		if (bad != 0) {
			ub_log(b, "FAIL %s (%s): %s", cases[k].name, o->dtype == UB_BF16 ? "bf16" : "fp16",
			       bad < 0 ? "error or timeout" : "wrong data");
			fail = 1;
		} else if (b->rank == 0)
			ub_log(b, "ok %s: %d ranks, %d iterations, %zu %s elements per rank, exact", cases[k].name, b->n,
			       o->iters, o->elems, o->dtype == UB_BF16 ? "bf16" : "fp16");
	}
	if (ub_comm_destroy(&c) != 0)
		fail = 1;
	free(host);
	return fail;
}

/* ---- back to back: K collectives of mixed kinds, no host synchronisation ---- */
#define BURST_K 8
static const struct {
	int op, ce;
} burst_ops[BURST_K] = { { OP_AG, 0 }, { OP_RS, 0 }, { OP_RING, 0 }, { OP_AG, 1 },
			 { OP_RS, 1 }, { OP_RING, 1 }, { OP_RS, 0 }, { OP_AG, 0 } };

struct burst {
	struct ub_comm c;
	int h[BURST_K];
	CUstream compute;
	CUevent in, out;
	CUdeviceptr results; /* iters x K copies of my buffer, made by the compute stream */
	size_t bytes;        /* one buffer: n chunks */
};

/* One iteration, all queued: the compute stream (after a delay) makes the K
 * inputs and records `in`; the comm stream waits on it, passes an entry
 * barrier, runs the K collectives and an exit barrier, records `out`; the
 * compute stream waits on that and copies the K results away. */
static int burst_queue(struct burst *u, int it, const struct opts *o)
{
	struct ub_comm *c = &u->c;
	struct ub_dev *d = c->d;
	unsigned long long delay = 20000000ull; /* 20 ms: unordered work would read stale inputs */
	size_t E = o->elems, chunk = E * 2;
	unsigned limit = ub_small_limit(o->dtype, c->n);
	void *sa[] = { &delay };

	UB_CU(c->b, ub_launch_on(d, u->compute, d->sleep, 1, 1, sa));
	for (int k = 0; k < BURST_K; k++) {
		CUdeviceptr p = c->reg[u->h[k]].ptr[c->me];
		unsigned seed = seed_of(burst_ops[k].op, it, k);
		int kind = burst_ops[k].op == OP_RS, dtype = o->dtype;
		void *args[] = { &p, &c->me, &c->n, &E, &seed, &kind, &dtype, &limit };
		UB_CU(c->b, ub_launch_on(d, u->compute, d->pattern, (unsigned)d->sms, 256, args));
	}
	UB_CU(c->b, cuEventRecord(u->in, u->compute));
	UB_CU(c->b, cuStreamWaitEvent(d->stream, u->in, 0));
	if (ub_barrier_kernel(c, 1) != 0)
		return -1;
	for (int k = 0; k < BURST_K; k++) {
		int op = burst_ops[k].op, ce = burst_ops[k].ce, h = u->h[k];
		int rc = op == OP_AG ? ub_ag(c, h, chunk, ce, 1)
			 : op == OP_RS ? ub_rs(c, h, chunk, o->dtype, ce, 1) : ub_ring(c, h, chunk, ce, 1);
		if (rc != 0)
			return -1;
	}
	if (ub_barrier_kernel(c, 1) != 0)
		return -1;
	UB_CU(c->b, cuEventRecord(u->out, d->stream));
	UB_CU(c->b, cuStreamWaitEvent(u->compute, u->out, 0));
	for (int k = 0; k < BURST_K; k++)
		UB_CU(c->b, cuMemcpyDtoDAsync(u->results + (CUdeviceptr)(u->bytes * (size_t)(it * BURST_K + k)),
					      c->reg[u->h[k]].ptr[c->me], u->bytes, u->compute));
	return 0;
}

/* Every result of every iteration, checked once all are done. */
static int burst_check(struct burst *u, const struct opts *o)
{
	struct ub_boot *b = u->c.b;
	uint16_t *host = malloc(u->bytes);
	long bad = 0;
	char when[48];

	if (!host)
		return -1;
	for (int it = 0; it < o->iters && bad == 0; it++)
		for (int k = 0; k < BURST_K && bad == 0; k++) {
			CUdeviceptr r = u->results + (CUdeviceptr)(u->bytes * (size_t)(it * BURST_K + k));
			if (cuMemcpyDtoH(host, r, u->bytes) != CUDA_SUCCESS) {
				bad = -1;
				break;
			}
			snprintf(when, sizeof when, "back-to-back iter %d op %d", it, k);
			bad = check_buf(b, host, burst_ops[k].op, burst_ops[k].ce, o->elems,
					seed_of(burst_ops[k].op, it, k), o->dtype, when);
		}
	free(host);
	return bad == 0 ? 0 : -1;
}

static int burst_run(struct burst *u, struct ub_boot *b, const struct opts *o)
{
	struct ub_comm *c = &u->c;

	u->bytes = o->elems * 2 * (size_t)b->n;
	for (int k = 0; k < BURST_K; k++)
		if ((u->h[k] = ub_register(c, u->bytes)) < 0)
			return -1;
	if (ub_reserve_scratch(c, o->elems * 2 * (size_t)(b->n - 1)) != 0)
		return -1;
	UB_CU(b, cuStreamCreate(&u->compute, CU_STREAM_NON_BLOCKING));
	UB_CU(b, cuEventCreate(&u->in, CU_EVENT_DISABLE_TIMING));
	UB_CU(b, cuEventCreate(&u->out, CU_EVENT_DISABLE_TIMING));
	UB_CU(b, cuMemAlloc(&u->results, u->bytes * BURST_K * (size_t)o->iters));
	if (ub_barrier(b) != 0)
		return -1;
	for (int it = 0; it < o->iters; it++)
		if (burst_queue(u, it, o) != 0)
			return -1;
	UB_CU(b, cuStreamSynchronize(u->compute)); /* the only wait on the host */
	if (ub_sync_check(c, 0) != 0)
		return -1;
	return burst_check(u, o);
}

static int run_burst(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	struct burst u;
	int fail;

	memset(&u, 0, sizeof u);
	if (ub_comm_create(&u.c, b, d, o->multicast) != 0)
		return 1;
	fail = burst_run(&u, b, o) != 0;
	if (!fail && b->rank == 0)
		ub_log(b, "ok burst: %d ranks, %d iterations of %d collectives back to back (ag rs ring ce-ag ce-rs "
			  "ce-ring rs ag), %zu %s elements per chunk, exact", b->n, o->iters, BURST_K, o->elems,
		       o->dtype == UB_BF16 ? "bf16" : "fp16");
	else if (fail)
		ub_log(b, "FAIL burst: error, timeout or wrong data");
	if (u.results)
		cuMemFree(u.results);
	if (u.in)
		cuEventDestroy(u.in);
	if (u.out)
		cuEventDestroy(u.out);
	if (u.compute)
		cuStreamDestroy(u.compute);
	if (ub_comm_destroy(&u.c) != 0)
		fail = 1;
	return fail;
}

/* The negative test: rank W withholds its signals; its peers must report a
 * timeout (all-gather: every other rank; ring: only W's successor). */
static int run_timeout(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	struct ub_comm c;
	int W = o->withhold, me = b->rank, fail = 0, h;
	size_t chunk = o->elems * 2;

	if (ub_comm_create(&c, b, d, 0) != 0)
		return 1;
	if ((h = ub_register(&c, chunk * (size_t)b->n)) < 0)
		fail = 1;
	for (int ce = 0; !fail && ce < 2; ce++) {
		const char *what = ce ? "ce-ring" : "ag";
		int expect = ce ? me == (W + 1) % b->n : me != W;
		double t0 = now_s();
		if (ub_barrier(b) != 0)
			return 1;
		int rc = ce ? ub_ring(&c, h, chunk, 1, me != W) : ub_ag(&c, h, chunk, 0, me != W);
		int got = rc == 0 ? ub_sync_check(&c, !expect) != 0 : -1;
		double dt = now_s() - t0;
		if (rc != 0)
			fail = 1;
		else if (expect && got) {
			ub_log(b, "ok timeout %s: timed out as expected (rank %d withheld its signal)", what, W);
			ub_log(b, "the timeout came after %.1f s", dt);
		}
		else if (expect) {
			ub_log(b, "FAIL: %s did not time out although rank %d withheld its signal", what, W);
			fail = 1;
		} else if (got) {
			ub_log(b, "FAIL: %s timed out on a rank that should have completed", what);
			fail = 1;
		}
		/* Clear the error word for the next case. */
		if (cuMemsetD32(c.reg[0].ptr[me] + UB_ERR * 4, 0, UB_ERR_WORDS) != CUDA_SUCCESS || cuCtxSynchronize())
			fail = 1;
	}
	if (ub_comm_destroy(&c) != 0)
		fail = 1;
	return fail;
}

/* memmap's buffers: 4 MiB each, rounded up to the granularity (*psize). Once
 * the fd socket (*psock) is open, rank 0 creates and exports the n buffers
 * (own, fds). 0, 1 or -1 (a driver call failed). */
static int memmap_create(struct ub_boot *b, struct ub_vmm *v, size_t *psize, int *psock,
			 CUmemGenericAllocationHandle *own, int *fds)
{
	int n = b->n, me = b->rank;
	CUmemAllocationProp prop = { 0 };
	size_t gran = 0, size;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0; /* the exporter's device: the first one */
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	UB_CU(b, v->granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	size = ((size_t)4 << 20) / gran * gran;
	if (size < ((size_t)4 << 20))
		size += gran;
	*psize = size;
	if ((*psock = ub_fd_socket(b)) < 0)
		return 1;
	if (me == 0)
		for (int i = 0; i < n; i++) {
			UB_CU(b, v->create(&own[i], size, &prop, 0));
			UB_CU(b, v->export_fd(&fds[i], own[i], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
		}
	return 0;
}

/* Once every rank is ready, rank 0 sends each peer all n descriptors in one
 * message; the others receive them into fds. 0 or 1. */
static int memmap_share(struct ub_boot *b, int sock, int *fds)
{
	int n = b->n, me = b->rank, nfd, from = -1;

	if (ub_barrier(b) != 0)
		return 1;
	if (me == 0) {
		for (int p = 1; p < n; p++)
			if (ub_fd_send(b, sock, p, fds, n) != 0)
				return 1;
	} else if ((nfd = ub_fd_recv(b, sock, fds, n, &from, 30000)) != n) {
		ub_log(b, "memmap: got %d fds from rank %d, wanted %d", nfd, from, n);
		return 1;
	}
	return 0;
}

/* Every rank maps the n buffers side by side at *pbase, closing each fd;
 * the importers release their handles right after mapping, the exporter once
 * every rank has mapped. 0, 1 or -1 (a driver call failed). */
static int memmap_map(struct ub_boot *b, struct ub_dev *d, size_t size, const CUmemGenericAllocationHandle *own,
		      const int *fds, CUdeviceptr *pbase)
{
	struct ub_vmm *v = &d->vmm;
	int n = b->n, me = b->rank;
	CUmemAccessDesc access = { 0 };
	CUdeviceptr base = 0;

	UB_CU(b, v->reserve(&base, size * (size_t)n, size, 0, 0));
	*pbase = base;
	for (int i = 0; i < n; i++) {
		CUmemGenericAllocationHandle hh = me == 0 ? own[i] : 0;
		if (me != 0) /* the exporter maps its own handles; it releases them after the barrier below */
			UB_CU(b, v->import_fd(&hh, (void *)(uintptr_t)fds[i], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
		UB_CU(b, v->map(base + (CUdeviceptr)(size * (size_t)i), size, 0, hh, 0));
		if (me != 0)
			UB_CU(b, v->release(hh)); /* right after mapping: the mapping keeps the memory */
		close(fds[i]);
	}
	access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	access.location.id = d->ordinal;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	UB_CU(b, v->set_access(base, size * (size_t)n, &access, 1));
	if (ub_barrier(b) != 0)
		return 1;
	if (me == 0)
		for (int i = 0; i < n; i++)
			UB_CU(b, v->release(own[i]));
	return 0;
}

/* The staggered writes: in step i rank me fills buffer (i+me)%n with its data
 * (word k: ub_memmap_word(me, k)), then
 * every rank waits for the others (--corrupt: the last rank skips its last
 * write). 0, 1 or -1 (a driver call failed). */
static int memmap_fill(struct ub_boot *b, struct ub_dev *d, const struct opts *o, CUdeviceptr base, size_t size,
		       size_t words)
{
	int n = b->n, me = b->rank;

	for (int i = 0; i < n; i++) {
		if (!(o->corrupt && me == n - 1 && i == n - 1)) {
			CUdeviceptr p = base + (CUdeviceptr)(size * (size_t)((i + me) % n));
			int val_ = me;
			void *args[] = { &p, &val_, &words };
			if (ub_launch_kernel(d, d->fill_i32, (unsigned)d->sms, 256, args) != 0)
				return 1;
		}
		UB_CU(b, cuStreamSynchronize(d->stream));
		if (ub_barrier(b) != 0)
			return 1;
	}
	return 0;
}

/* Counts into *pbad the words of my own buffer that do not hold rank
 * (me+1)%n's data (word k: ub_memmap_word((me+1)%n, k)), logging the first. 0, 1 (no host memory) or -1 (a driver call failed). */
static int memmap_check(struct ub_boot *b, CUdeviceptr base, size_t size, size_t words, long *pbad)
{
	int n = b->n, me = b->rank;
	long bad = 0;
	int *host = malloc(size);

	if (!host)
		return 1;
	UB_CU(b, cuMemcpyDtoH(host, base + (CUdeviceptr)(size * (size_t)me), size));
	for (size_t i = 0; i < words; i++)
		if (host[i] != ub_memmap_word((me + 1) % n, i) && bad++ == 0)
			ub_log(b, "MISMATCH memmap: buffer %d word %zu is %d, wanted %d (rank %d's word)", me, i, host[i],
			       ub_memmap_word((me + 1) % n, i), (me + 1) % n);
	free(host);
	*pbad = bad;
	return 0;
}

/* memMapIPCDrv: one exporter; every rank maps all buffers and releases its
 * handles right after mapping; staggered writes with barriers; rank id must end
 * up holding (id+1)%n. A mismatch exits non-zero (the original exits 0). */
static int run_memmap(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	struct ub_vmm *v = &d->vmm;
	int n = b->n, me = b->rank, fds[UB_MAX_RANKS], sock = -1, rc;
	CUmemGenericAllocationHandle own[UB_MAX_RANKS];
	CUdeviceptr base = 0;
	size_t size = 0, words;
	long bad = 0;

	if ((rc = memmap_create(b, v, &size, &sock, own, fds)) != 0)
		return rc;
	words = size / 4;
	if ((rc = memmap_share(b, sock, fds)) != 0)
		return rc;
	close(sock);
	if ((rc = memmap_map(b, d, size, own, fds, &base)) != 0 || (rc = memmap_fill(b, d, o, base, size, words)) != 0 ||
	    (rc = memmap_check(b, base, size, words, &bad)) != 0)
		return rc;
	if (ub_barrier(b) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		UB_CU(b, v->unmap(base + (CUdeviceptr)(size * (size_t)i), size));
	UB_CU(b, v->addr_free(base, size * (size_t)n));
	if (bad)
		ub_log(b, "FAIL memmap: %ld words wrong", bad);
	else if (me == 0)
		ub_log(b, "ok memmap: %d ranks, every buffer holds rank (id+1)%%n's index-dependent words", n);
	return bad ? 1 : 0;
}

/* Opens this rank's device and passes the build's multicast guard; rank 0 also
 * says where the VMM calls come from and checks the driver's error names,
 * which every message of the sample relies on. 0, or the rank's exit status:
 * 77 to skip (1 with CUSHIM_TEST_REQUIRE_GPU=1), else 1. */
static int rank_open(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	const char *req = getenv("CUSHIM_TEST_REQUIRE_GPU");
	int rc = ub_dev_open(b, d, o->gpus, o->route, o->timeout);

	if (rc == 77) {
		if (req && strcmp(req, "1") == 0) {
			ub_log(b, "CUSHIM_TEST_REQUIRE_GPU=1: failing instead of skipping");
			return 1;
		}
		return 77;
	}
	if (rc != 0)
		return 1;
	if (ub_mc_guard(b) != 0) {
		ub_dev_close(d);
		return 1;
	}
	if (b->rank == 0) {
		Dl_info di;
		const char *where = dladdr((void *)d->vmm.create, &di) && di.dli_fname ? di.dli_fname : "?";
		ub_log(b, "device %d, %d SMs; VMM calls by route '%s': cuMemCreate at %p in %s", d->ordinal, d->sms,
		       d->vmm.route, (void *)d->vmm.create, where);
#ifdef RTROUTE
		ub_log(b, "driver calls through the runtime: %s", rtroute_describe());
#endif
		/* The driver's error names: every message of the sample relies on them. */
		const char *name = NULL;
		if (cuGetErrorName(CUDA_ERROR_NOT_READY, &name) != CUDA_SUCCESS || !name ||
		    strcmp(name, "CUDA_ERROR_NOT_READY") != 0) {
			ub_log(b, "FAIL: cuGetErrorName(CUDA_ERROR_NOT_READY) gave %s", name ? name : "nothing");
			ub_dev_close(d);
			return 1;
		}
	}
	return 0;
}

/* The case --mode names: memmap, timeout, burst, or the collectives. */
static int run_mode(struct ub_boot *b, struct ub_dev *d, const struct opts *o)
{
	if (strcmp(o->mode, "memmap") == 0)
		return run_memmap(b, d, o);
	if (strcmp(o->mode, "timeout") == 0)
		return run_timeout(b, d, o);
	if (strcmp(o->mode, "burst") == 0)
		return run_burst(b, d, o);
	return run_collectives(b, d, o);
}

/* After the last cycle: the open descriptors and the free device memory must
 * be back at what they were before it (fd0, free0). 0 or 1; -1 when
 * cuMemGetInfo fails. */
static int check_baseline(struct ub_boot *b, const struct opts *o, int fd0, size_t free0)
{
	int fail = 0, fd1 = ub_count_fds();
	size_t free1 = 0, total = 0;

	UB_CU(b, cuMemGetInfo(&free1, &total));
	/* Free memory is device-wide: no rank may close its context (and free
	 * its memory) while another is still measuring. */
	if (ub_barrier(b) != 0)
		fail = 1;
	if (fd1 != fd0) {
		ub_log(b, "FAIL: %d open file descriptors after teardown, %d before", fd1, fd0);
		fail = 1;
	}
	if (free1 != free0 && !o->no_memcheck) {
		ub_log(b, "FAIL: free device memory %zu after teardown, %zu before (%+lld bytes)", free1, free0,
		       (long long)free1 - (long long)free0);
		fail = 1;
	}
	if (!fail && b->rank == 0)
		ub_log(b, "ok: descriptors (%d) and free memory (%zu MiB%s) back to baseline", fd1, free1 >> 20,
		       o->no_memcheck ? ", not checked" : "");
	return fail;
}

/* --mode place: where the ranks go on the GPUs and whether each reaches the
 * others, with nothing loaded (it runs on the fake driver's devices too). */
static int rank_place(struct ub_boot *b, const struct opts *o)
{
	struct ub_dev d;
	int khz = 0, rc = ub_dev_place(b, &d, o->gpus, &khz);

	if (rc != 0)
		return rc == 77 ? 77 : 1;
	ub_log(b, "ok place: rank %d of %d on device %d of %d, every other device of the job reachable", b->rank,
	       b->n, d.ordinal, o->gpus);
	return ub_barrier(b) != 0;
}

static int rank_main(struct ub_boot *b, void *arg)
{
	const struct opts *o = arg;
	struct ub_dev d;
	int fail = 0, rc;

	if (strcmp(o->mode, "place") == 0)
		return rank_place(b, o);
	if ((rc = rank_open(b, &d, o)) != 0)
		return rc;

	if (rc != 0)
		return rc;
	for (int cyc = 0; cyc < o->cycles && !fail; cyc++) {
		int last = cyc == o->cycles - 1, fd0 = 0;
		size_t free0 = 0, total = 0;
		if (ub_barrier(b) != 0)
			return 1;
		if (last) {
			fd0 = ub_count_fds();
			UB_CU(b, cuMemGetInfo(&free0, &total));
		}
		if (ub_barrier(b) != 0)
			return 1;
		fail = run_mode(b, &d, o);
		if (!fail && ub_barrier(b) != 0)
			fail = 1; /* a rank that cannot meet the others after a cycle fails */
		if (fail)
			break;
		if (!last)
			continue;
		if ((fail = check_baseline(b, o, fd0, free0)) < 0)
			return -1;
	}
	ub_dev_close(&d);
	return fail;
}

/* Where the value of an option taking a whole number goes, or NULL. */
static int *int_option(struct opts *o, const char *a)
{
	const struct {
		const char *name;
		int *to;
	} ints[] = { { "--ranks", &o->n }, { "--gpus", &o->gpus }, { "--iters", &o->iters },
		     { "--cycles", &o->cycles }, { "--withhold", &o->withhold } };

	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (strcmp(a, ints[i].name) == 0)
			return ints[i].to;
	return NULL;
}

/* Reads the command line into o: 1 when it asks for --features, 2 for
 * --mc-probe (what follows is not read), else 0; a word it does not know is usage(). */
static int parse_args(struct opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *to = int_option(o, a);
#define ARG(name) (strcmp(a, name) == 0 && v && ++i)
		if (strcmp(a, "--features") == 0)
			return 1;
		else if (strcmp(a, "--mc-probe") == 0)
			return 2;
		else if (strcmp(a, "--multicast") == 0)
			o->multicast = 1;
		else if (strcmp(a, "--corrupt") == 0)
			o->corrupt = 1;
		else if (strcmp(a, "--no-memcheck") == 0) /* for jobs sharing a GPU with another job */
			o->no_memcheck = 1;
		else if (to && v && ++i)
			*to = atoi(v);
		else if (ARG("--elems"))
			o->elems = strtoul(v, NULL, 0);
		else if (ARG("--timeout"))
			o->timeout = atof(v);
		else if (ARG("--mode"))
			o->mode = v;
		else if (ARG("--route"))
			o->route = v;
		else if (ARG("--dtype")) {
			if (strcmp(v, "bf16") == 0)
				o->dtype = UB_BF16;
			else if (strcmp(v, "fp16") == 0)
				o->dtype = UB_FP16;
			else
				usage();
		} else
			usage();
#undef ARG
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 2, .gpus = 1, .iters = 3, .dtype = UB_BF16, .withhold = -1, .cycles = 2,
			  .job_timeout = 240, .elems = 1 << 16, .timeout = 20, .mode = "all", .route = "direct" };
	const char *t = getenv("UB_TIMEOUT");

	if (t)
		o.timeout = atof(t);
	if ((t = getenv("UB_JOB_TIMEOUT")))
		o.job_timeout = atoi(t);
	setvbuf(stdout, NULL, _IOLBF, 0);
	switch (parse_args(&o, argc, argv)) {
	case 1:
		printf("multicast=%s mpi=%s\n", ub_mc_built(), ub_mpi_built());
		return 0;
	case 2:
		return ub_mc_probe();
	}
	/* Under mpirun: the world's size and this process's rank (or a refusal). */
	int rank = 0, mpi = ub_boot_init(&o.n, &rank);
	if (mpi < 0)
		return 1;
	/* TE's limits: 2..32 ranks, 2-byte elements in whole 16-byte lines. */
	if (o.n < 2 || o.n > UB_MAX_RANKS || o.gpus < 1 || o.gpus > o.n || o.iters < 1 || o.cycles < 1 ||
	    o.elems < 64 || o.elems % 8 || o.timeout <= 0) {
		ub_boot_fini();
		usage();
	}
	if (o.withhold < 0)
		o.withhold = o.n - 1;
	if (strcmp(o.mode, "timeout") == 0 && o.job_timeout < (int)(o.timeout * 4) + 30)
		o.job_timeout = (int)(o.timeout * 4) + 30; /* the job must outlive the expected timeouts */
	int rc = ub_launch(o.n, rank_main, &o, o.job_timeout);
	if (rank != 0) /* under mpirun every process has the job's status; rank 0 reports it */
		return rc;
	printf("ub-test: %s mode=%s ranks=%d gpus=%d dtype=%s iters=%d route=%s%s%s\n",
	       rc == 0 ? "PASS" : rc == 77 ? "SKIP" : "FAIL", o.mode, o.n, o.gpus, o.dtype == UB_BF16 ? "bf16" : "fp16",
	       o.iters, o.route, o.multicast ? " multicast-requested" : "", mpi ? " bootstrap=mpi" : "");
	return rc;
}
