/* Finding libcushim.so and asking it what its bootstrap found. */
#include "config.h"
#include "cli.h"
#include "adapt.h"
#include "owners.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include "table.h"
#include "conf.h"
#include "settings.h"
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
 * leaves the library in .libs/ beside it.  Installed, it is in lib/ beside
 * the command's bin/ (a prefix moved as a whole, or the Python package,
 * which holds one), else in the configured libdir.  --lib overrides them. */
static int find_lib(const char *option, struct cli_lib *lib)
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
			snprintf(cand, sizeof cand, "%s/../lib/libcushim.so", self);
			if (usable(cand, lib->path, sizeof lib->path)) {
				lib->how = "in ../lib from the command's folder";
				return 0;
			}
		}
	}
	snprintf(cand, sizeof cand, "%s/libcushim.so", CUSHIM_LIBDIR);
	if (usable(cand, lib->path, sizeof lib->path)) {
		lib->how = "the configured libdir";
		return 0;
	}
	cli_error("cannot find libcushim.so (looked beside this command in .libs/ and ../lib/, and in %s); "
		  "use --lib=PATH", CUSHIM_LIBDIR);
	return -1;
}

static int probe_init; /* cli_load_shim_init: cuInit in the probe */

/* Where entry points come from now: path, way, and the exports by origin. */
static void probe_origin(void *h, char *path, size_t psize, char *via, size_t vsize, int origins[4])
{
	__typeof__(&cushim_driver_path) fs; /* cushim_entry_via's type too */
	__typeof__(&cushim_origin_counts) counts = CUSHIM_FN(h, cushim_origin_counts);
	const char *str;

	if ((fs = CUSHIM_FN(h, cushim_driver_path)) && (str = fs()))
		snprintf(path, psize, "%s", str);
	if ((fs = CUSHIM_FN(h, cushim_entry_via)) && (str = fs()))
		snprintf(via, vsize, "%s", str);
	if (counts)
		counts(origins);
}

static void probe_after_init(void *h, struct cli_shim *shim)
{
	int (*init)(unsigned int) = (int (*)(unsigned int))dlsym(h, "cuInit");

	shim->init_rc = init ? init(0) : -1;
	probe_origin(h, shim->init_path, sizeof shim->init_path, shim->init_via, sizeof shim->init_via,
		     shim->init_origins);
}

/* Each export's owner and origin, as the bootstrap left them. */
static void probe_owners(void *h, struct cli_shim *shim)
{
	static const char *const origins[4] = { "", "driver", "dlsym", "runtime" };
	__typeof__(&cushim_export_owner) owner = CUSHIM_FN(h, cushim_export_owner);
	__typeof__(&cushim_export_origin) origin = CUSHIM_FN(h, cushim_export_origin);
	if (!owner || !origin)
		return;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const char *o = origin(cushim_syms[i].name);
		int w = owner(cushim_syms[i].name);
		shim->owner[i] = (unsigned char)(w < 0 ? CUSHIM_OWNER_NONE : w);
		for (int k = 0; k < 4; k++)
			if (o && strcmp(o, origins[k]) == 0)
				shim->origin[i] = (unsigned char)k;
	}
	shim->have_owners = 1;
}

static void probe(const struct cli_lib *lib, int fd)
{
	struct cli_shim shim;
	void *h;

	memset(&shim, 0, sizeof shim);
	shim.resolved = shim.missing = shim.init_rc = -1;
	if (!(h = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL))) {
		dprintf(fd, "E%s", dlerror());
		_exit(1);
	}
	__typeof__(&cushim_driver_version) version = CUSHIM_FN(h, cushim_driver_version);
	if (!version) {
		dprintf(fd, "E%s has no cushim_driver_version: is it libcushim.so?", lib->path);
		_exit(1);
	}
	shim.driver_version = version();
	__typeof__(&cushim_real_driver_version) fi; /* the counts' type too */
	if ((fi = CUSHIM_FN(h, cushim_real_driver_version)))
		shim.real_driver_version = fi();
	if ((fi = CUSHIM_FN(h, cushim_exports_resolved)))
		shim.resolved = fi();
	if ((fi = CUSHIM_FN(h, cushim_exports_missing)))
		shim.missing = fi();
	probe_origin(h, shim.path, sizeof shim.path, shim.via, sizeof shim.via, shim.origins);
	__typeof__(&cushim_export_state) state = CUSHIM_FN(h, cushim_export_state);
	if (state) {
		shim.have_missing = 1;
		for (int i = 0; i < CUSHIM_NSYMS; i++) {
			int st = state(cushim_syms[i].name);
			shim.lacks[i] = st == 2 ? 1 : st == 1 ? 2 : 0;
			shim.adapted += st == 1;
		}
	}
	probe_owners(h, &shim);
	if (probe_init)
		probe_after_init(h, &shim);
	if (write(fd, "R", 1) != 1 || write(fd, &shim, sizeof shim) != (ssize_t)sizeof shim)
		_exit(1);
	_exit(0);
}

pid_t cli_quiet_child(int *fd, char *err, size_t errsize)
{
	int p[2];
	pid_t pid;
	if (pipe(p) != 0) {
		snprintf(err, errsize, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		snprintf(err, errsize, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* The bootstrap runs here: keep it quiet and leave no log file,
		 * summary or timeline behind; the settings that change what it
		 * finds stay. */
		close(p[0]);
		setenv("CUSHIM_LOG", "off", 1);
		unsetenv("CUSHIM_LOG_FILE");
		unsetenv("CUSHIM_SUMMARY");
		unsetenv("CUSHIM_TIMELINE");
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1), dup2(null, 2);
		*fd = p[1];
		return 0;
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

size_t cli_read_full(int fd, void *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	while (got < size && ((n = read(fd, (char *)buf + got, size - got)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	return got;
}

int cli_load_shim(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize)
{
	int fd, st;
	pid_t pid;

	memset(shim, 0, sizeof *shim);
	shim->resolved = shim->missing = -1;
	if ((pid = cli_quiet_child(&fd, err, errsize)) < 0)
		return -1;
	if (pid == 0)
		probe(lib, fd);
	char buf[1 + sizeof *shim];
	size_t got = cli_read_full(fd, buf, sizeof buf);
	close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof buf && buf[0] == 'R') {
		memcpy(shim, buf + 1, sizeof *shim);
		return 0;
	}
	if (got > 0 && buf[0] == 'E')
		snprintf(err, errsize, "cannot load %s: %.*s", lib->path, (int)(got - 1), buf + 1);
	else if (WIFSIGNALED(st))
		snprintf(err, errsize, "%s crashed (signal %d) while looking for a CUDA driver here; "
			 "try CUSHIM_LOG=info cushim run -- true", lib->path, WTERMSIG(st));
	else
		snprintf(err, errsize, "%s gave no answer about the CUDA driver here", lib->path);
	return -1;
}

int cli_load_shim_init(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize)
{
	probe_init = 1;
	int rc = cli_load_shim(lib, shim, err, errsize);
	probe_init = 0;
	return rc;
}

static char found_real[PATH_MAX];

int cli_find_lib(const char *option, struct cli_lib *lib)
{
	if (find_lib(option, lib) != 0)
		return -1;
	snprintf(found_real, sizeof found_real, "%s", lib->path);
	return 0;
}

int cli_is_cushim(const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return 0;
	const char *b = strrchr(real, '/');
	return strcmp(real, found_real) == 0 || strcmp(b ? b + 1 : real, "libcushim.so") == 0;
}

/* The command's view of the rule: a driver of that version has what the
 * table says came with it. */
static int version_has(int j, int driver)
{
	return cushim_syms[j].version <= driver;
}

const struct cushim_adapter *cli_adapter_for(int idx, int driver)
{
	static int adapt = -1;
	if (adapt < 0) {
		struct cushim_conf c;
		cushim_conf_read(&c);
		adapt = c.adapt;
		cushim_conf_clear(&c);
	}
	return adapt ? cushim_adapter_row(idx, driver, version_has) : NULL;
}
