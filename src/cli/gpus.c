/* The GPUs here and their architectures, asked of the driver through
 * libcushim.so in a child process (a crash in the driver cannot take the
 * command down): cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName and
 * cuDeviceGetAttribute for the compute capability, none of which needs a
 * context. */
#include "config.h"
#include "cli.h"
#include "enums.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*init_fn)(unsigned);
typedef int (*count_fn)(int *);
typedef int (*get_fn)(int *, int);
typedef int (*name_fn)(char *, int, int);
typedef int (*attr_fn)(int *, int, int);

static void say(int fd, const char *what, int code)
{
	const char *name = cushim_enum_name(CUSHIM_ENUM_ID_CUresult, code);
	dprintf(fd, "E%s returned %d%s%s%s", what, code, name ? " (" : "", name ? name : "", name ? ")" : "");
	_exit(1);
}

static void ask(const struct cli_lib *lib, int fd)
{
	void *h = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		dprintf(fd, "E%s", dlerror());
		_exit(1);
	}
	init_fn init = (init_fn)dlsym(h, "cuInit");
	count_fn count = (count_fn)dlsym(h, "cuDeviceGetCount");
	get_fn get = (get_fn)dlsym(h, "cuDeviceGet");
	name_fn name = (name_fn)dlsym(h, "cuDeviceGetName");
	attr_fn attr = (attr_fn)dlsym(h, "cuDeviceGetAttribute");
	struct cli_gpu g;
	int n = 0, rc, dev = 0;
	if (!init || !count || !get || !name || !attr) {
		dprintf(fd, "E%s lacks the cuDevice* functions", lib->path);
		_exit(1);
	}
	if ((rc = init(0)) != 0)
		say(fd, "cuInit", rc);
	if ((rc = count(&n)) != 0)
		say(fd, "cuDeviceGetCount", rc);
	for (int i = 0; i < n && i < CLI_MAX_GPUS; i++) {
		memset(&g, 0, sizeof g);
		g.ordinal = i;
		if ((rc = get(&dev, i)) != 0 || (rc = attr(&g.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
		    (rc = attr(&g.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
			say(fd, "cuDeviceGetAttribute", rc);
		if (g.major <= 0 || g.minor < 0 || g.minor > 9) {
			dprintf(fd, "Ethe driver gave GPU %d the compute capability %d.%d", i, g.major, g.minor);
			_exit(1);
		}
		if (name(g.name, (int)sizeof g.name - 1, dev) != 0)
			snprintf(g.name, sizeof g.name, "GPU %d", i);
		if (write(fd, "G", 1) != 1 || write(fd, &g, sizeof g) != (ssize_t)sizeof g)
			_exit(1);
	}
	_exit(0);
}

/* The child's answer: GPUs ('G' and a struct each), or 'E' and why. */
static int answer(int fd, struct cli_gpu *gpus, int max, char *why, size_t whysize)
{
	char buf[1 + sizeof *gpus];
	int n = 0;
	for (;;) {
		size_t got = cli_read_full(fd, buf, sizeof buf);
		if (got == sizeof buf && buf[0] == 'G' && n < max) {
			memcpy(&gpus[n++], buf + 1, sizeof *gpus);
			continue;
		}
		if (got > 0 && buf[0] == 'E') {
			snprintf(why, whysize, "%.*s", (int)got - 1, buf + 1);
			return -1;
		}
		return n;
	}
}

int cli_gpus(const struct cli_lib *lib, struct cli_gpu *gpus, int max, char *why, size_t whysize)
{
	int fd, st, n;
	pid_t pid = cli_quiet_child(&fd, why, whysize);
	if (pid < 0)
		return -1;
	if (pid == 0)
		ask(lib, fd);
	n = answer(fd, gpus, max, why, whysize);
	close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n >= 0 && WIFSIGNALED(st)) {
		snprintf(why, whysize, "the driver crashed (signal %d) while asked for its GPUs", WTERMSIG(st));
		return -1;
	}
	return n;
}
