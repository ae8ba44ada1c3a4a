/* Userbuffers-style kernels, built by nvcc into a fatbin at build time and
 * loaded by the host with cuModuleLoadData. Flags live in the mapped region 0
 * (ub-layout.h); every wait is wrap-safe and gives up after `timeout` clock64
 * cycles, setting the error word in the waiter's own region 0. No multimem. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "ub-layout.h"

/* flag < want, wrap-safe (TE's CHECK_IDS) */
#define UB_BEFORE(flag, want) ((((unsigned)(flag)) - ((unsigned)(want))) & 0x80000000u)

__device__ static int ub_wait(volatile int *flag, int want, long long timeout, int *own, int op, int peer)
{
	volatile int *err = (volatile int *)(own + UB_ERR);
	long long start = clock64();
	int seen;

	while (UB_BEFORE(seen = *flag, want)) {
		if (*err)
			return -1; /* someone in this rank already timed out: do not wait again */
		if (clock64() - start > timeout) {
			if (atomicCAS(own + UB_ERR, 0, UB_ERR_TIMEOUT) == 0) {
				err[1] = op;
				err[2] = peer;
				err[3] = want;
				err[4] = seen;
				__threadfence_system();
				printf("[ub kernel] timeout: op %d waited for peer %d (flag %d, want %d)\n", op, peer,
				       seen, want);
			}
			return -1;
		}
	}
	return 0;
}

/* Threads 0..n-1 of one block: signal `id` into every peer's slot for `me`
 * (unless withheld), then wait for every peer's slot in our own region 0. */
__device__ static void ub_signal_wait(int *const *flagp, int me, int n, int id, long long timeout, int op,
				      int signal, int wait)
{
	int t = threadIdx.x;
	int *own = flagp[me];

	if (t < n && t != me) {
		if (signal) {
			__threadfence_system();
			((volatile int *)flagp[t])[UB_FLAGOFFSET + me] = id;
		}
		if (wait)
			ub_wait(own + UB_FLAGOFFSET + t, id, timeout, own, op, t);
	}
}

/* True in the last CTA to get here; every CTA's writes are fenced first. */
__device__ static bool ub_last_cta(int *ctr)
{
	__shared__ bool last;

	__threadfence_system();
	__syncthreads();
	if (threadIdx.x == 0) {
		int old = atomicAdd(ctr, 1);
		last = old == (int)gridDim.x - 1;
		if (last)
			atomicExch(ctr, 0);
	}
	__syncthreads();
	return last;
}

__device__ static void ub_copy16(uint4 *dst, const uint4 *src, size_t n16)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

template <typename T> __device__ static float ub_tof(T v);
template <> __device__ float ub_tof<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ float ub_tof<__half>(__half v) { return __half2float(v); }
template <typename T> __device__ static T ub_fromf(float v);
template <> __device__ __nv_bfloat16 ub_fromf<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __half ub_fromf<__half>(float v) { return __float2half_rn(v); }

/* Sum `nsrc` chunks into dst, 8 two-byte elements (one 16-byte line) at a time. */
template <typename T>
__device__ static void ub_sum_lines(uint4 *dst, const char *const *srcs, int nsrc, size_t off, size_t n16)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
		float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
		for (int s = 0; s < nsrc; s++) {
			uint4 v = ((const uint4 *)(srcs[s] + off))[i];
			const T *e = (const T *)&v;
			for (int j = 0; j < 8; j++)
				acc[j] += ub_tof<T>(e[j]);
		}
		uint4 out;
		T *o = (T *)&out;
		for (int j = 0; j < 8; j++)
			o[j] = ub_fromf<T>(acc[j]);
		dst[i] = out;
	}
}

extern "C" {

/* All-gather in place: push my chunk into every peer's buffer, then an exit
 * barrier (TE: userbuffers_fp16_sum_inplace_gpu_rw_ag). */
__global__ void ub_ag_push(int *const *flagp, char *const *datap, int me, int n, size_t chunk,
			   long long timeout, int signal)
{
	int *own = flagp[me];
	int id = ((volatile int *)own)[UB_REDUCE_ID] + 1;
	const uint4 *src = (const uint4 *)(datap[me] + (size_t)me * chunk);

	for (int k = 1; k < n; k++) {
		int p = (me + k) % n;
		ub_copy16((uint4 *)(datap[p] + (size_t)me * chunk), src, chunk / 16);
	}
	if (ub_last_cta(own + UB_SMS_DONE)) {
		ub_signal_wait(flagp, me, n, id, timeout, UB_OP_AG, signal, 1);
		__syncthreads();
		if (threadIdx.x == 0)
			((volatile int *)own)[UB_REDUCE_ID] = id;
	}
}

/* Reduce-scatter in place: entry barrier, pull my chunk from every rank and
 * sum it into my own chunk, exit barrier (so the buffers can be reused). */
__global__ void ub_rs_pullsum(int *const *flagp, char *const *datap, int me, int n, size_t chunk, int dtype,
			      long long timeout, int signal)
{
	int *own = flagp[me];
	int id = ((volatile int *)own)[UB_REDUCE_ID] + 1;
	__shared__ const char *srcs[UB_MAX_RANKS];

	if (threadIdx.x < n)
		srcs[threadIdx.x] = datap[threadIdx.x];
	ub_signal_wait(flagp, me, n, id, timeout, UB_OP_RS_ENTRY, signal && blockIdx.x == 0, 1);
	__syncthreads();
	if (!((volatile int *)own)[UB_ERR]) {
		uint4 *dst = (uint4 *)(datap[me] + (size_t)me * chunk);
		if (dtype == UB_BF16)
			ub_sum_lines<__nv_bfloat16>(dst, srcs, n, (size_t)me * chunk, chunk / 16);
		else
			ub_sum_lines<__half>(dst, srcs, n, (size_t)me * chunk, chunk / 16);
	}
	if (ub_last_cta(own + UB_SMS_DONE)) {
		ub_signal_wait(flagp, me, n, id + 1, timeout, UB_OP_RS_EXIT, signal, 1);
		__syncthreads();
		if (threadIdx.x == 0)
			((volatile int *)own)[UB_REDUCE_ID] = id + 1;
	}
}

/* Local sum for the copy-engine reduce-scatter: dst += the n-1 staged chunks. */
__global__ void ub_sum_local(char *dst, const char *scratch, int nsrc, size_t chunk, int dtype)
{
	__shared__ const char *srcs[UB_MAX_RANKS];

	if (threadIdx.x == 0)
		srcs[0] = dst;
	if (threadIdx.x < nsrc)
		srcs[threadIdx.x + 1] = scratch + (size_t)threadIdx.x * chunk;
	__syncthreads();
	if (dtype == UB_BF16)
		ub_sum_lines<__nv_bfloat16>((uint4 *)dst, srcs, nsrc + 1, 0, chunk / 16);
	else
		ub_sum_lines<__half>((uint4 *)dst, srcs, nsrc + 1, 0, chunk / 16);
}

/* One barrier over the collective block (the copy-engine variants' entry and
 * exit barriers); launch with one block of at least n threads. */
__global__ void ub_barrier(int *const *flagp, int me, int n, long long timeout, int signal)
{
	int *own = flagp[me];
	int id = ((volatile int *)own)[UB_REDUCE_ID] + 1;

	ub_signal_wait(flagp, me, n, id, timeout, UB_OP_BARRIER, signal, 1);
	__syncthreads();
	if (threadIdx.x == 0)
		((volatile int *)own)[UB_REDUCE_ID] = id;
}

/* P2P push: copy into the peer's mapping, then fence and bump its flag. */
__global__ void ub_p2p_send(int *const *flagp, char *const *datap, int me, int peer, int region, size_t src_off,
			    size_t dst_off, size_t bytes, int signal)
{
	int *own = flagp[me];

	ub_copy16((uint4 *)(datap[peer] + dst_off), (const uint4 *)(datap[me] + src_off), bytes / 16);
	if (ub_last_cta(own + UB_SEND_DONE) && threadIdx.x == 0 && signal) {
		__threadfence_system();
		atomicAdd_system(flagp[peer] + UB_P2P(me, region), 1);
	}
}

/* The copy-engine send's signal: the data went by cuMemcpyDtoDAsync before it. */
__global__ void ub_p2p_signal(int *const *flagp, int me, int peer, int region)
{
	__threadfence_system();
	atomicAdd_system(flagp[peer] + UB_P2P(me, region), 1);
}

/* P2P receive: one thread bumps the device-side recv_id and spins until the
 * sender's flag reaches it. */
__global__ void ub_p2p_recv(int *const *flagp, int *recv_id, int me, int src, int region, long long timeout)
{
	int *own = flagp[me];
	int id = ++recv_id[src * UB_MAX_REGIONS + region];

	ub_wait(own + UB_P2P(src, region), id, timeout, own, UB_OP_RECV, src);
}

/* The compute side of the back-to-back case and the benchmark: the inputs of
 * one collective, made on the GPU from the pattern of ub-layout.h. kind 0
 * (all-gather, ring): my chunk raw, the others the sentinel; kind 1
 * (reduce-scatter): every chunk small integers below `limit`. */
__global__ void ub_pattern(uint16_t *buf, int me, int n, size_t elems, unsigned seed, int kind, int dtype,
			   unsigned limit)
{
	size_t total = elems * (size_t)n;

	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
		int q = (int)(k / elems);
		size_t i = k % elems;
		buf[k] = (uint16_t)(kind == 0 ? (q == me ? ub_raw(me, 0, i, seed) : UB_SENTINEL)
					 : ub_half_bits(ub_small(me, q, i, seed, limit), dtype));
	}
}

/* The benchmark's check of its final buffers: after `reps` in-place
 * collectives on ub_pattern's inputs, all-gather leaves every rank's raw
 * chunk; reduce-scatter leaves my chunk at mine + reps * the others' sum and
 * the rest untouched. Counts mismatches in bad[0], the first index in bad[1]. */
__global__ void ub_verify(const uint16_t *buf, int me, int n, size_t elems, unsigned seed, int kind, int dtype,
			  unsigned limit, int reps, unsigned long long *bad)
{
	size_t total = elems * (size_t)n;

	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
		int q = (int)(k / elems);
		size_t i = k % elems;
		unsigned want;

		if (kind == 0) {
			want = ub_raw(q, 0, i, seed);
		} else if (q != me) {
			want = ub_half_bits(ub_small(me, q, i, seed, limit), dtype);
		} else {
			unsigned others = 0;
			for (int p = 0; p < n; p++)
				others += p == me ? 0 : ub_small(p, q, i, seed, limit);
			want = ub_half_bits(ub_small(me, q, i, seed, limit) + (unsigned)reps * others, dtype);
		}
		if (buf[k] != want && atomicAdd(bad, 1ull) == 0)
			bad[1] = k;
	}
}

/* A delay on the compute stream (%globaltimer, bounded by construction): work
 * queued behind it that is not ordered after it reads stale data. */
__global__ void ub_sleep(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		__nanosleep(10000);
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}

/* memMapIPCDrv's kernel: fill a buffer with one int. */
// memmap's writes: word i of rank r's data is ub_memmap_word(r, i) (ub-layout.h).
__global__ void ub_fill_i32(int *p, int r, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = ub_memmap_word(r, i);
}

} /* extern "C" */
