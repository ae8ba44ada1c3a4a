/* Loads and launches the suite's kernels; see cufuture-kernels.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cufuture-kernels.h"

#include <pthread.h>

enum { K_SLEEP, K_FILL, K_ADD, K_COPY, K_FSCALE, K_FFILL, NK };
static const char *const knames[NK] = { "cuf_sleep", "cuf_fill", "cuf_add", "cuf_copy", "cuf_fscale", "cuf_ffill" };
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

/* An elementwise kernel over n elements, whose arguments are (*x, *y, n): at
 * least two blocks. */
static cufuture_status launch_n(int dev, int k, CUstream s, void *x, void *y, size_t n)
{
	void *a[] = { x, y, &n };
	unsigned grid = grid_for(n);

	return launch(dev, k, s, grid < 2 ? 2 : grid, a);
}

cufuture_status cufk_fill(int dev, CUstream s, CUdeviceptr p, int v, size_t n)
{
	return launch_n(dev, K_FILL, s, &p, &v, n);
}

cufuture_status cufk_add(int dev, CUstream s, CUdeviceptr p, int v, size_t n)
{
	return launch_n(dev, K_ADD, s, &p, &v, n);
}

cufuture_status cufk_copy(int dev, CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	return launch_n(dev, K_COPY, s, &dst, &src, n);
}

cufuture_status cufk_fscale(int dev, CUstream s, CUdeviceptr p, float k, size_t n)
{
	return launch_n(dev, K_FSCALE, s, &p, &k, n);
}

cufuture_status cufk_ffill(int dev, CUstream s, CUdeviceptr p, float v, size_t n)
{
	return launch_n(dev, K_FFILL, s, &p, &v, n);
}
