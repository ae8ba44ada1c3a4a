/* A fake interposer, preloaded as HAMi-core's libvgpu.so is, for the tests
 * without a GPU (tests/hardening/interposer.sh).  Like HAMi-core it:
 *   - overrides dlsym: its own C library dlsym comes from
 *     dlvsym(RTLD_NEXT, "dlsym", ...); a name starting "cu" is first looked up
 *     in FAKE_VGPU_REDIRECT (HAMi's CUDA_REDIRECT, else its install path),
 *     which is NULL when unset: the global scope, whoever comes first there;
 *     the first such lookup initialises it;
 *   - keeps a table of the driver's functions, filled at initialisation from
 *     dlopen("libcuda.so.1") (in masquerade, cushim), and calls through it;
 *     a hook used before initialisation aborts (HAMi calls NULL);
 *   - hooks cuInit (which initialises it), cuDriverGetVersion, cuMemGetInfo_v2
 *     (which answers the limit as the device's memory, as HAMi-core does),
 *     cuMemAlloc_v2 (CUDA_DEVICE_MEMORY_LIMIT: an allocation above it fails
 *     with CUDA_ERROR_OUT_OF_MEMORY without reaching the driver),
 *     cuLaunchKernel, and cuGetProcAddress(_v2), which hand out these hooks.
 * With FAKE_VGPU_DLOPEN=1 it also overrides dlopen as Nsight Compute's
 * libcuda-injection.so does: a "libcuda.so..." asked for by anyone else is
 * answered with itself, while its own table comes through the C library's
 * dlopen.
 * A hook re-entered on its own thread (a cycle through another shim) aborts
 * with "fakevgpu: recursion".  fakevgpu_calls(name) counts each hook's calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VGPU_API __attribute__((visibility("default")))
typedef unsigned long long W;
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);

enum { OUT_OF_MEMORY = 2 };
enum { H_INIT, H_VERSION, H_MEMINFO, H_ALLOC, H_LAUNCH, H_GPA1, H_GPA2, NHOOKS };
/* name, the base name cuGetProcAddress is asked for, the version of this variant */
static const struct { const char *name, *base; int version; } hooked[NHOOKS] = {
	{ "cuInit", "cuInit", 2000 },
	{ "cuDriverGetVersion", "cuDriverGetVersion", 2020 },
	{ "cuMemGetInfo_v2", "cuMemGetInfo", 3020 },
	{ "cuMemAlloc_v2", "cuMemAlloc", 3020 },
	{ "cuLaunchKernel", "cuLaunchKernel", 4000 },
	{ "cuGetProcAddress", "cuGetProcAddress", 11030 },
	{ "cuGetProcAddress_v2", "cuGetProcAddress", 12000 },
};
static void *table[NHOOKS];
static long counts[NHOOKS];
static dlsym_fn real_dlsym;
static dlopen_fn real_dlopen;
static void *redirect;
static unsigned long long limit, used;
static pthread_once_t dlsym_once = PTHREAD_ONCE_INIT, init_once = PTHREAD_ONCE_INIT,
		      dlopen_once = PTHREAD_ONCE_INIT;
static __thread int depth[NHOOKS];

static void find_real_dlsym(void)
{
	static const char *const versions[] = { "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.34" };
	const char *r = getenv("FAKE_VGPU_REDIRECT");

	for (size_t i = 0; !real_dlsym && i < sizeof versions / sizeof *versions; i++)
		real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
	redirect = r && *r ? dlopen(r, RTLD_LAZY) : NULL;
}

static void find_real_dlopen(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };

	for (size_t i = 0; !real_dlopen && i < sizeof versions / sizeof *versions; i++)
		real_dlopen = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", versions[i]);
}

static unsigned long long parse_limit(const char *s)
{
	char *end;
	unsigned long long v = s ? strtoull(s, &end, 10) : 0;
	if (!s || end == s)
		return 0;
	return *end == 'g' || *end == 'G' ? v << 30 : *end == 'm' || *end == 'M' ? v << 20 : v;
}

static void init(void)
{
	pthread_once(&dlopen_once, find_real_dlopen);
	void *drv = real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_NODELETE);

	pthread_once(&dlsym_once, find_real_dlsym);
	for (int i = 0; i < NHOOKS; i++)
		if (!drv || !(table[i] = real_dlsym(drv, hooked[i].name)))
			table[i] = real_dlsym(RTLD_NEXT, hooked[i].name);
	limit = parse_limit(getenv("CUDA_DEVICE_MEMORY_LIMIT"));
}

/* Every hook enters and leaves through these. */
static void *enter(int h)
{
	if (depth[h]++) {
		fprintf(stderr, "fakevgpu: recursion in %s\n", hooked[h].name);
		abort();
	}
	__atomic_add_fetch(&counts[h], 1, __ATOMIC_RELAXED);
	if (!table[h]) {
		fprintf(stderr, "fakevgpu: %s used before initialisation\n", hooked[h].name);
		abort();
	}
	return table[h];
}

static int leave(int h, int rc)
{
	depth[h]--;
	return rc;
}

VGPU_API void *dlsym(void *handle, const char *symbol);
VGPU_API void *dlopen(const char *file, int mode);
VGPU_API int cuInit(unsigned flags);
VGPU_API int cuDriverGetVersion(int *v);
VGPU_API int cuMemGetInfo_v2(size_t *free_bytes, size_t *total);
VGPU_API int cuMemAlloc_v2(W *dptr, size_t size);
VGPU_API int cuLaunchKernel(W f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			    unsigned shmem, W stream, void **params, void **extra);
VGPU_API int cuGetProcAddress(const char *symbol, void **pfn, int version, W flags);
VGPU_API int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, W flags, int *status);
VGPU_API long fakevgpu_calls(const char *name);

VGPU_API void *dlsym(void *handle, const char *symbol)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	if (handle != RTLD_NEXT && symbol[0] == 'c' && symbol[1] == 'u') {
		void *f;
		if (strcmp(symbol, "cuGetExportTable") != 0)
			pthread_once(&init_once, init);
		if ((f = real_dlsym(redirect, symbol)))
			return f;
	}
	return real_dlsym(handle, symbol);
}

VGPU_API void *dlopen(const char *file, int mode)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	const char *on = getenv("FAKE_VGPU_DLOPEN");
	Dl_info self;

	pthread_once(&dlopen_once, find_real_dlopen);
	base = base ? base + 1 : file;
	if (on && *on == '1' && base && strncmp(base, "libcuda.so", 10) == 0 && dladdr((void *)dlopen, &self))
		return real_dlopen(self.dli_fname, mode | RTLD_NOLOAD);
	return real_dlopen(file, mode);
}

VGPU_API int cuInit(unsigned flags)
{
	pthread_once(&init_once, init);
	return leave(H_INIT, ((int (*)(unsigned))enter(H_INIT))(flags));
}

VGPU_API int cuDriverGetVersion(int *v)
{
	return leave(H_VERSION, ((int (*)(int *))enter(H_VERSION))(v));
}

VGPU_API int cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	int rc = ((int (*)(size_t *, size_t *))enter(H_MEMINFO))(free_bytes, total);
	if (rc == 0 && limit && free_bytes && total) { /* as HAMi-core: the limit is the device */
		*total = limit;
		*free_bytes = limit - __atomic_load_n(&used, __ATOMIC_RELAXED);
	}
	return leave(H_MEMINFO, rc);
}

VGPU_API int cuMemAlloc_v2(W *dptr, size_t size)
{
	int (*f)(W *, size_t) = (int (*)(W *, size_t))enter(H_ALLOC);
	int rc;

	if (limit && __atomic_load_n(&used, __ATOMIC_RELAXED) + size > limit)
		return leave(H_ALLOC, OUT_OF_MEMORY);
	if ((rc = f(dptr, size)) == 0)
		__atomic_add_fetch(&used, size, __ATOMIC_RELAXED);
	return leave(H_ALLOC, rc);
}

VGPU_API int cuLaunchKernel(W f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			    unsigned shmem, W stream, void **params, void **extra)
{
	int (*real)(W, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, W, void **, void **) =
		(int (*)(W, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, W, void **, void **))
			enter(H_LAUNCH);
	return leave(H_LAUNCH, real(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra));
}

/* The driver's answer, then this library's hook for a name it hooks. */
static void *hook_for(const char *symbol, int version, void *answer);

VGPU_API int cuGetProcAddress(const char *symbol, void **pfn, int version, W flags)
{
	int rc = ((int (*)(const char *, void **, int, W))enter(H_GPA1))(symbol, pfn, version, flags);
	if (rc == 0 && pfn && *pfn)
		*pfn = hook_for(symbol, version, *pfn);
	return leave(H_GPA1, rc);
}

VGPU_API int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, W flags, int *status)
{
	int rc = ((int (*)(const char *, void **, int, W, int *))enter(H_GPA2))(symbol, pfn, version, flags, status);
	if (rc == 0 && pfn && *pfn)
		*pfn = hook_for(symbol, version, *pfn);
	return leave(H_GPA2, rc);
}

static void *const hooks[NHOOKS] = { cuInit, cuDriverGetVersion, cuMemGetInfo_v2, cuMemAlloc_v2, cuLaunchKernel,
				     cuGetProcAddress, cuGetProcAddress_v2 };

static void *hook_for(const char *symbol, int version, void *answer)
{
	int best = -1;
	for (int i = 0; symbol && i < NHOOKS; i++)
		if (strcmp(hooked[i].base, symbol) == 0 && version >= hooked[i].version &&
		    (best < 0 || hooked[i].version > hooked[best].version))
			best = i;
	return best < 0 ? answer : hooks[best];
}

/* For the tests: the calls each hook took, -1 for a name it does not hook. */
VGPU_API long fakevgpu_calls(const char *name)
{
	for (int i = 0; i < NHOOKS; i++)
		if (strcmp(hooked[i].name, name) == 0)
			return __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
	return -1;
}
