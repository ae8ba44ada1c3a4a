/* ub-bench's two-GPU baselines (see ub.h): cuMemcpyPeer and
 * cuMemcpyPeerAsync of the same bytes from rank 0's GPU to GPU 1, against
 * which the all-gather and reduce-scatter over VMM peer mappings (ranks on
 * two GPUs) are measured in the same run. The source holds index-dependent
 * words; the destination is cleared before each kind and compared with the
 * source after it, so a copy that moved nothing or the wrong bytes fails. */
#include "ub.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	CUdevice dev1;
	CUcontext ctx1;
	CUdeviceptr src, dst;
	unsigned char *want, *got;
} pr;

/* Made once, for the largest size: 0 or -1. */
static int peer_setup(struct ub_boot *b, size_t max)
{
	CUcontext c;
	CUresult rc;

	if (pr.src)
		return 0;
	if (!(pr.want = malloc(max)) || !(pr.got = malloc(max))) {
		ub_log(b, "ub-bench: no host memory for the peer baselines (%zu bytes)", max);
		return -1;
	}
	for (size_t i = 0; i < max / 4; i++)
		((uint32_t *)(void *)pr.want)[i] = (uint32_t)i * 2654435761u ^ 0x5bd1e995u;
	UB_CU(b, cuDeviceGet(&pr.dev1, 1));
	UB_CU(b, cuDevicePrimaryCtxRetain(&pr.ctx1, pr.dev1));
	UB_CU(b, cuMemAlloc(&pr.src, max));
	UB_CU(b, cuMemcpyHtoD(pr.src, pr.want, max));
	UB_CU(b, cuCtxPushCurrent(pr.ctx1));
	rc = cuMemAlloc(&pr.dst, max);
	cuCtxPopCurrent(&c);
	UB_CU(b, rc);
	return 0;
}

static void peer_teardown(void)
{
	CUcontext c;

	if (pr.dst && cuCtxPushCurrent(pr.ctx1) == CUDA_SUCCESS) {
		cuMemFree(pr.dst);
		cuCtxPopCurrent(&c);
	}
	if (pr.src)
		cuMemFree(pr.src);
	if (pr.ctx1)
		cuDevicePrimaryCtxRelease(pr.dev1);
	free(pr.want);
	free(pr.got);
	memset(&pr, 0, sizeof pr);
}

static CUresult peer_copy(struct ub_dev *d, size_t s, int async)
{
	return async ? cuMemcpyPeerAsync(pr.dst, pr.ctx1, pr.src, d->ctx, s, d->stream)
		     : cuMemcpyPeer(pr.dst, pr.ctx1, pr.src, d->ctx, s);
}

/* One kind at size s: time per copy in *ms, the destination verified. 0 or -1. */
static int peer_time(struct ub_boot *b, struct ub_dev *d, size_t s, int iters, int async, double *ms)
{
	CUstream st = async ? d->stream : NULL;
	CUevent e0, e1;
	float t = 0;

	UB_CU(b, cuMemsetD8(pr.dst, 0, s));
	UB_CU(b, cuCtxSynchronize());
	UB_CU(b, cuEventCreate(&e0, CU_EVENT_DEFAULT));
	UB_CU(b, cuEventCreate(&e1, CU_EVENT_DEFAULT));
	UB_CU(b, peer_copy(d, s, async)); /* warm-up */
	UB_CU(b, cuCtxSynchronize());
	UB_CU(b, cuEventRecord(e0, st));
	for (int i = 0; i < iters; i++)
		UB_CU(b, peer_copy(d, s, async));
	UB_CU(b, cuEventRecord(e1, st));
	UB_CU(b, cuEventSynchronize(e1));
	UB_CU(b, cuEventElapsedTime(&t, e0, e1));
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	*ms = t / iters;
	UB_CU(b, cuMemcpyDtoH(pr.got, pr.dst, s));
	if (memcmp(pr.got, pr.want, s) != 0) {
		size_t i = 0;
		while (pr.got[i] == pr.want[i])
			i++;
		ub_log(b, "MISMATCH: after %s of %zu bytes, byte %zu of GPU 1's copy is %u, not %u",
		       async ? "cuMemcpyPeerAsync" : "cuMemcpyPeer", s, i, pr.got[i], pr.want[i]);
		return -1;
	}
	return 0;
}

int ub_bench_peer(struct ub_boot *b, struct ub_dev *d, const char *shim, size_t s, size_t max, int iters)
{
	for (int async = 0; async < 2; async++) {
		double ms = 0;

		if (peer_setup(b, max) != 0 || peer_time(b, d, s, iters, async, &ms) != 0) {
			peer_teardown();
			return -1;
		}
		double bw = (double)s / (ms * 1e-3) / 1e9;
		printf("ub-bench shim=%s op=%s variant=ce ranks=1 gpus=2 bytes=%zu iters=%d time_us=%.1f "
		       "algbw_GBps=%.2f busbw_GBps=%.2f verified=yes\n",
		       shim, async ? "memcpy_peer_async" : "memcpy_peer", s, iters, ms * 1e3, bw, bw);
	}
	if (s * 2 > max)
		peer_teardown();
	return 0;
}
