// Kernels of the cufuture suite: built by nvcc to a fatbin at build time,
// embedded in the programs and loaded with cuModuleLoadData.
#include <stddef.h>

// Sleeps ns nanoseconds of %globaltimer on one thread, then returns: the
// spin is bounded by construction (its own timeout).
extern "C" __global__ void cuf_sleep(unsigned long long ns)
{
	unsigned long long t0, t;

	if (threadIdx.x || blockIdx.x)
		return;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		__nanosleep(10000);
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}

// Index-dependent data, so that an element read from the wrong place is
// caught: p[i] = CUFK_AT(v, i) (cufuture-kernels.h).
extern "C" __global__ void cuf_fill(int *p, int v, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = (int)((unsigned)v + 3u * (unsigned)i);
}

// p[i] = v * (1 + i % 1024): index-dependent floats that stay exact when
// scaled by small powers of two and by 10.
extern "C" __global__ void cuf_ffill(float *p, float v, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = v * (float)(1 + i % 1024);
}

extern "C" __global__ void cuf_add(int *p, int v, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] += v;
}

extern "C" __global__ void cuf_copy(int *dst, const int *src, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

extern "C" __global__ void cuf_fscale(float *p, float k, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] *= k;
}
