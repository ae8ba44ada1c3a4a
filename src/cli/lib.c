/* Finding libcushim.so and asking it what its bootstrap found. */
#include "config.h"
#include "cli.h"
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CUSHIM_LIBDIR
#define CUSHIM_LIBDIR "/usr/local/lib"
#endif

static int usable(const char *path, char *out, size_t size)
{
	char real[PATH_MAX];
	if (access(path, R_OK) != 0 || !realpath(path, real))
		return 0;
	snprintf(out, size, "%s", real);
	return 1;
}

/* In the build tree the command sits in the top build folder and libtool
 * leaves the library in .libs/ beside it; installed, it is in the configured
 * libdir. --lib overrides both. */
int cli_find_lib(const char *option, struct cli_lib *lib)
{
	char self[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t n;

	if (option) {
		if (!usable(option, lib->path, sizeof lib->path)) {
			cli_error("--lib=%s: %s", option, strerror(errno ? errno : ENOENT));
			return -1;
		}
		lib->how = "--lib";
		return 0;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof cand, "%s/.libs/libcushim.so", self);
			if (usable(cand, lib->path, sizeof lib->path)) {
				lib->how = "next to the command (build tree)";
				return 0;
			}
		}
	}
	snprintf(cand, sizeof cand, "%s/libcushim.so", CUSHIM_LIBDIR);
	if (usable(cand, lib->path, sizeof lib->path)) {
		lib->how = "the configured libdir";
		return 0;
	}
	cli_error("cannot find libcushim.so (looked beside this command in .libs/ and in %s); "
		  "use --lib=PATH", CUSHIM_LIBDIR);
	return -1;
}

int cli_load_shim(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize)
{
	/* The bootstrap runs in this process: keep it quiet and leave no log file
	 * or summary behind; the settings that change what it finds stay. */
	setenv("CUSHIM_LOG", "off", 1);
	unsetenv("CUSHIM_LOG_FILE");
	unsetenv("CUSHIM_SUMMARY");

	memset(shim, 0, sizeof *shim);
	shim->resolved = shim->missing = -1;
	shim->handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!shim->handle) {
		snprintf(err, errsize, "cannot load %s: %s", lib->path, dlerror());
		return -1;
	}
	int (*version)(void) = (int (*)(void))dlsym(shim->handle, "cushim_driver_version");
	if (!version) {
		snprintf(err, errsize, "%s has no cushim_driver_version: is it libcushim.so?", lib->path);
		return -1;
	}
	shim->driver_version = version();
	shim->real_pointer = (void *(*)(const char *))dlsym(shim->handle, "cushim_real_pointer");

	int (*fi)(void);
	const char *(*fs)(void);
	if ((fi = (int (*)(void))dlsym(shim->handle, "cushim_real_driver_version")))
		shim->real_driver_version = fi();
	if ((fi = (int (*)(void))dlsym(shim->handle, "cushim_exports_resolved")))
		shim->resolved = fi();
	if ((fi = (int (*)(void))dlsym(shim->handle, "cushim_exports_missing")))
		shim->missing = fi();
	if ((fs = (const char *(*)(void))dlsym(shim->handle, "cushim_driver_path")))
		shim->path = fs();
	if ((fs = (const char *(*)(void))dlsym(shim->handle, "cushim_entry_via")))
		shim->via = fs();
	return 0;
}
