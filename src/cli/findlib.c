/* Finding a library the way the loader does, for the command: the library's
 * search (src/common/ldsearch.c), in which only files for this machine count, and
 * the real driver by the library's rule (src/common/realdriver.c). */
#include "config.h"
#include "cli.h"
#include "conf.h"
#include "realdriver.h"
#include "ldsearch.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_elf_native(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	struct stat st;
	const char *why;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		elf_version(EV_CURRENT);
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ok = elf && cli_elf_machine_ok(elf, &why);
		elf_end(elf);
	}
	close(fd);
	return ok;
}

char *cli_ld_expand(const char *list, const char *origin)
{
	char *s = cushim_ld_expand(list, origin);
	if (!s)
		abort();
	return s;
}

struct want {
	int (*reject)(const char *);
	char *out;
	size_t size;
};

static int accept_native(const char *path, void *ctx)
{
	struct want *w = ctx;
	if (!cli_elf_native(path) || (w->reject && w->reject(path)))
		return 0;
	snprintf(w->out, w->size, "%s", path);
	return 1;
}

int cli_ld_search(const char *name, const char *rpath, const char *runpath,
		  int (*reject)(const char *), char *out, size_t size)
{
	struct want w = { reject, out, size };
	return cushim_ld_search(name, rpath, runpath, accept_native, &w) ? 0 : -1;
}

static int accept_driver(const char *path, void *ctx)
{
	struct want *w = ctx;
	void *h = cushim_real_driver_open(path);
	if (!h)
		return 0;
	dlclose(h);
	snprintf(w->out, w->size, "%s", path);
	return 1;
}

int cli_real_driver(char *out, size_t size, const char **bad)
{
	struct cushim_conf c;
	struct want w = { NULL, out, size };

	cushim_conf_read(&c);
	cushim_conf_clear(&c);
	*bad = NULL;
	if (c.driver) {
		if (accept_driver(c.driver, &w))
			return 1;
		*bad = c.driver;
	}
	return cushim_ld_search("libcuda.so.1", NULL, NULL, accept_driver, &w) ? 0 : -1;
}
