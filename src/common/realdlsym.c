/* cushim's own symbol lookups go to the C library's dlsym, never to a dlsym
 * that another preloaded library defines.  An interposer such as HAMi-core's
 * libvgpu.so overrides dlsym and answers every "cu..." name with its own
 * hooks (or with whatever the process finds first, which may be cushim): a
 * cushim that looked the driver up through it would forward to itself, or
 * to a hook that forwards back to cushim.  glibc 2.34 and later define
 * dlsym in libc.so.6 at version GLIBC_2.34; older versions (GLIBC_2.2.5 on
 * x86-64, GLIBC_2.17 on AArch64) remain there for old binaries. */
#include "realdriver.h"
#include <dlfcn.h>
#include <stddef.h>

typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn libc_dlsym;

static dlsym_fn find_libc_dlsym(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	dlsym_fn f = NULL;

	/* The library's own scope: an unversioned dlsym preloaded ahead of libc
	 * would satisfy a versioned lookup in the global scope. */
	for (size_t i = 0; libc && !f && i < sizeof versions / sizeof *versions; i++)
		f = (dlsym_fn)dlvsym(libc, "dlsym", versions[i]);
	if (libc)
		dlclose(libc);
	return f ? f : dlsym;
}

/* RTLD_NEXT keeps its meaning: glibc takes the object it searches after
 * from the caller's address, which is in libcushim.so either way. */
void *cushim_dlsym(void *handle, const char *name)
{
	dlsym_fn f = __atomic_load_n(&libc_dlsym, __ATOMIC_ACQUIRE);

	if (!f) {
		f = find_libc_dlsym();
		__atomic_store_n(&libc_dlsym, f, __ATOMIC_RELEASE);
	}
	return f(handle, name);
}
