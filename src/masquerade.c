/* Masquerade: cushim is the process's libcuda.so.1 (a folder holding a
 * libcuda.so.1 link to libcushim.so comes first on the library path), so that
 * a runtime's own dlopen and cuGetProcAddress reach it.  The real driver is
 * then opened by path, never cushim itself: CUSHIM_DRIVER, then where the
 * loader looks (ldsearch.c, the search `cushim doctor` predicts it with). */
#include "boot.h"
#include "ldsearch.h"
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is the libcuda.so.1 the process loaded cushim itself? */
int cushim_is_process_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int me = 0;
	if (h) {
		void *p = dlsym(h, "cushim_symbol_count");
		me = p && cushim_inside_self(p);
		dlclose(h);
	}
	return me;
}

static int same_file_as_self(const char *path)
{
	Dl_info info;
	struct stat a, b;
	if (!dladdr((void *)cushim_is_process_driver, &info) || !info.dli_fname)
		return 0;
	return stat(path, &a) == 0 && stat(info.dli_fname, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int open_real_driver(const char *path, struct cushim_source *src)
{
	void *h;

	if (access(path, R_OK) != 0 || same_file_as_self(path))
		return 0;
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		cushim_log(CUSHIM_LOG_INFO, "cannot load %s: %s", path, dlerror());
		return 0;
	}
	if (!cushim_driver_source(h, path, src)) {
		dlclose(h);
		return 0;
	}
	cushim_log(CUSHIM_LOG_INFO, "masquerade: cushim is libcuda.so.1; the real driver is %s", path);
	return 1;
}

/* The search's candidate: taken when it is a driver that loads and is not
 * cushim itself. */
static int accept_real_driver(const char *path, void *src)
{
	return open_real_driver(path, src);
}

int cushim_open_real_driver(struct cushim_source *src)
{
	if (cushim_conf.driver) {
		if (open_real_driver(cushim_conf.driver, src))
			return 1;
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_DRIVER=%s is not a usable driver (missing, unreadable, or "
			   "cushim itself); searching the usual places", cushim_conf.driver);
	}
	return cushim_ld_search("libcuda.so.1", NULL, NULL, accept_real_driver, src);
}
