/* What counts as the real driver behind masquerade (ldsearch.h): the rule
 * the library opens it by and the command predicts it with. */
#include "config.h"
#include "conf.h"
#include "realdriver.h"
#include "log.h"
#include "ldsearch.h"
#include "realdlsym.h"
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

void *cushim_real_driver_open(const char *path)
{
	struct stat st;
	void *h;

	if (access(path, R_OK) != 0 || stat(path, &st) != 0)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		/* the loader would open a FIFO and wait for a writer for ever */
		cushim_log(CUSHIM_LOG_WARN, "%s is not a regular file: not loaded as a driver", path);
		return NULL;
	}
	if (!(h = cushim_dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		cushim_log(CUSHIM_LOG_INFO, "cannot load %s: %s", path, dlerror());
		return NULL;
	}
	if (!cushim_dlsym(h, "cuInit") || cushim_dlsym(h, "cushim_symbol_count")) {
		dlclose(h);
		return NULL;
	}
	return h;
}
