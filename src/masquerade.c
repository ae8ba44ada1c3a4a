/* Masquerade: cushim is the process's libcuda.so.1 (a folder holding a
 * libcuda.so.1 link to libcushim.so comes first on the library path), so that
 * a runtime's own dlopen and cuGetProcAddress reach it.  The real driver is
 * then opened by absolute path, never cushim itself: CUSHIM_DRIVER, then
 * LD_LIBRARY_PATH, the loader's configuration and the usual folders. */
#include "boot.h"
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int try_dir(const char *dir, size_t len, struct cushim_source *src)
{
	char path[4096];
	if (len == 0 || len > sizeof path - 16)
		return 0;
	snprintf(path, sizeof path, "%.*s/libcuda.so.1", (int)len, dir);
	return open_real_driver(path, src);
}

static int try_conf(const char *file, int depth, struct cushim_source *src);

static int try_include(const char *pat, int depth, struct cushim_source *src)
{
	char full[4096];
	glob_t g;
	int ok = 0;

	snprintf(full, sizeof full, "%s%s", *pat == '/' ? "" : "/etc/", pat);
	if (glob(full, 0, NULL, &g) == 0) {
		for (size_t k = 0; !ok && k < g.gl_pathc; k++)
			ok = try_conf(g.gl_pathv[k], depth + 1, src);
		globfree(&g);
	}
	return ok;
}

static int try_conf(const char *file, int depth, struct cushim_source *src)
{
	FILE *f = fopen(file, "re");
	char line[4096];
	int ok = 0;
	if (!f)
		return 0;
	while (!ok && fgets(line, sizeof line, f)) {
		char *s = line + strspn(line, " \t");
		s[strcspn(s, "#\r\n")] = '\0';
		if (strncmp(s, "include", 7) == 0 && depth < 2)
			ok = try_include(s + 7 + strspn(s + 7, " \t"), depth, src);
		else if (*s == '/')
			ok = try_dir(s, strcspn(s, " \t"), src);
	}
	fclose(f);
	return ok;
}

int cushim_open_real_driver(struct cushim_source *src)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					     "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/nvidia/lib64",
					     "/usr/local/nvidia/lib", "/usr/lib/wsl/lib" };
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (cushim_conf.driver) {
		if (open_real_driver(cushim_conf.driver, src))
			return 1;
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_DRIVER=%s is not a usable driver (missing, unreadable, or "
			   "cushim itself); searching the usual places", cushim_conf.driver);
	}
	for (const char *p = llp; p && *p; p += strcspn(p, ":"), p += *p == ':')
		if (try_dir(p, strcspn(p, ":"), src))
			return 1;
	if (try_conf("/etc/ld.so.conf", 0, src))
		return 1;
	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
		if (try_dir(dirs[k], strlen(dirs[k]), src))
			return 1;
	return 0;
}
