/* cushim's own symbol lookups go to the C library's dlsym, and the driver
 * it opens in masquerade to the C library's dlopen, never to those another
 * preloaded library defines:
 *   - HAMi-core's libvgpu.so overrides dlsym and answers every "cu..." name
 *     with its own hooks (or with whatever the process finds first, which
 *     may be cushim): a cushim that looked the driver up through it would
 *     forward to itself, or to a hook that forwards back to cushim;
 *   - Nsight Compute preloads a libcuda-injection.so that overrides dlopen
 *     and answers a "libcuda.so.N" with itself: a cushim that is the
 *     process's libcuda.so.1 would not know itself through it, and would
 *     take the tool, which forwards to libcuda.so.1, that is to cushim, for
 *     the real driver.
 * glibc 2.34 and later define both in libc.so.6 at version GLIBC_2.34, with
 * the older versions (GLIBC_2.2.5 on x86-64, GLIBC_2.17 on AArch64) kept for
 * old binaries; earlier glibc defines them in libdl.so.2 at those versions. */
#include "realdriver.h"
#include "realdlsym.h"
#include <dlfcn.h>
#include <stddef.h>

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);

/* The C library's own definition of name, at the newest version it has. */
static void *libc_function(const char *name)
{
	static const char *const libs[] = { "libc.so.6", "libdl.so.2" };
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	void *f = NULL;

	/* The library's own scope: an unversioned definition preloaded ahead
	 * of the C library would satisfy a versioned lookup in the global one. */
	for (size_t l = 0; !f && l < sizeof libs / sizeof *libs; l++) {
		void *lib = dlopen(libs[l], RTLD_LAZY | RTLD_NOLOAD);
		for (size_t i = 0; lib && !f && i < sizeof versions / sizeof *versions; i++)
			f = dlvsym(lib, name, versions[i]);
		if (lib)
			dlclose(lib);
	}
	return f;
}

/* The C library's name, found at the first use and kept in *slot;
 * fallback (the dlsym or dlopen the linker binds) where it has none. */
static void *kept(void **slot, const char *name, void *fallback)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!f) {
		if (!(f = libc_function(name)))
			f = fallback;
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* RTLD_NEXT keeps its meaning: glibc takes the object it searches after
 * from the caller's address, which is in libcushim.so either way. */
void *cushim_dlsym(void *handle, const char *name)
{
	static void *libc_dlsym;
	return ((dlsym_fn)kept(&libc_dlsym, "dlsym", (void *)dlsym))(handle, name);
}

/* The caller glibc sees is still libcushim.so (the call's return address),
 * so the search for a bare name is the one cushim's own dlopen would make. */
void *cushim_dlopen(const char *file, int mode)
{
	static void *libc_dlopen;
	return ((dlopen_fn)kept(&libc_dlopen, "dlopen", (void *)dlopen))(file, mode);
}
