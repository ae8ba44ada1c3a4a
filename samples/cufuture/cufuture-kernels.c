/* Loads and launches the suite's kernels; see cufuture-kernels.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture-kernels.h"

#include <pthread.h>

enum { K_SLEEP, K_FILL, K_ADD, K_COPY, K_FSCALE, NK };
static const char *const knames[NK] = { "cuf_sleep", "cuf_fill", "cuf_add", "cuf_copy", "cuf_fscale" };
static pthread_mutex_t klock = PTHREAD_MUTEX_INITIALIZER;
static CUmodule mods[CUFUTURE_MAX_DEVICES];
static CUfunction fns[CUFUTURE_MAX_DEVICES][NK];

/* Pushes dev's context and returns kernel k of it, or NULL (nothing pushed). */
static CUfunction get(int dev, int k)
{
	CUcontext c = cufuture_context(dev), old;
	CUfunction f = NULL;

	if (!c || cuCtxPushCurrent(c) != CUDA_SUCCESS)
		return NULL;
	pthread_mutex_lock(&klock);
	if (!mods[dev] && cuModuleLoadData(&mods[dev], cufuture_kernels_fatbin) == CUDA_SUCCESS)
		for (int i = 0; i < NK; i++)
			if (cuModuleGetFunction(&fns[dev][i], mods[dev], knames[i]) != CUDA_SUCCESS)
				fns[dev][i] = NULL;
	f = fns[dev][k];
	pthread_mutex_unlock(&klock);
	if (!f)
		cuCtxPopCurrent(&old);
	return f;
}

static cufuture_status launch(int dev, int k, CUstream s, unsigned grid, void **args)
{
	CUfunction f = get(dev, k);
	CUcontext old;
	CUresult rc;

	if (!f)
		return CUFUTURE_EDRIVER;
	rc = cuLaunchKernel(f, grid, 1, 1, grid > 1 ? 256 : 1, 1, 1, 0, s, args, NULL);
	cuCtxPopCurrent(&old);
	return rc == CUDA_SUCCESS ? CUFUTURE_OK : CUFUTURE_EDRIVER;
}

static unsigned grid_for(size_t n)
{
	size_t g = (n + 255) / 256;

	return g < 1 ? 1 : g > 1024 ? 1024 : (unsigned)g;
}

cufuture_status cufk_sleep(int dev, CUstream s, unsigned long long ns)
{
	void *a[] = { &ns };

	return launch(dev, K_SLEEP, s, 1, a);
}

cufuture_status cufk_fill(int dev, CUstream s, CUdeviceptr p, int v, size_t n)
{
	void *a[] = { &p, &v, &n };

	return launch(dev, K_FILL, s, grid_for(n) < 2 ? 2 : grid_for(n), a);
}

cufuture_status cufk_add(int dev, CUstream s, CUdeviceptr p, int v, size_t n)
{
	void *a[] = { &p, &v, &n };

	return launch(dev, K_ADD, s, grid_for(n) < 2 ? 2 : grid_for(n), a);
}

cufuture_status cufk_copy(int dev, CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	void *a[] = { &dst, &src, &n };

	return launch(dev, K_COPY, s, grid_for(n) < 2 ? 2 : grid_for(n), a);
}

cufuture_status cufk_fscale(int dev, CUstream s, CUdeviceptr p, float k, size_t n)
{
	void *a[] = { &p, &k, &n };

	return launch(dev, K_FSCALE, s, grid_for(n) < 2 ? 2 : grid_for(n), a);
}
