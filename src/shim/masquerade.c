/* Masquerade: cushim is the process's libcuda.so.1 (a folder holding a
 * libcuda.so.1 link to libcushim.so comes first on the library path), so that
 * a runtime's own dlopen and cuGetProcAddress reach it.  The real driver is
 * then opened by path, never cushim itself: CUSHIM_DRIVER, then where the
 * loader looks (ldsearch.c, the search `cushim doctor` predicts it with). */
#include "conf.h"
#include "realdriver.h"
#include "log.h"
#include "source.h"
#include "masquerade.h"
#include "notes.h"
#include "ldsearch.h"
#include "realdlsym.h"
#include <dlfcn.h>

/* Is the libcuda.so.1 the process loaded cushim itself? */
int cushim_is_process_driver(void)
{
	void *h = cushim_dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int me = 0;
	if (h) {
		void *p = cushim_dlsym(h, "cushim_symbol_count");
		me = p && cushim_inside_self(p);
		dlclose(h);
	}
	return me;
}

static int open_real_driver(const char *path, struct cushim_source *src)
{
	void *h = cushim_real_driver_open(path);

	if (!h)
		return 0;
	if (!cushim_driver_source(h, path, src)) {
		dlclose(h);
		return 0;
	}
	cushim_note(CUSHIM_LOG_INFO, "masquerade: cushim is libcuda.so.1; the real driver is %s", path);
	return 1;
}

/* The search's candidate: taken when it is a driver that loads and is no
 * cushim. */
static int accept_real_driver(const char *path, void *src)
{
	return open_real_driver(path, src);
}

int cushim_open_real_driver(struct cushim_source *src)
{
	if (cushim_conf.driver) {
		if (open_real_driver(cushim_conf.driver, src))
			return 1;
		cushim_note(CUSHIM_LOG_WARN, "CUSHIM_DRIVER=%s " CUSHIM_DRIVER_UNUSABLE "; searching the usual places",
			    cushim_conf.driver);
	}
	return cushim_ld_search("libcuda.so.1", NULL, NULL, accept_real_driver, src);
}
