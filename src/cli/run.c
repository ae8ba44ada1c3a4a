/* cushim run: the program with libcushim.so added to LD_PRELOAD and the
 * options turned into CUSHIM_* variables; its exit status is ours. */
#include "config.h"
#include "cli.h"
#include "realdriver.h"
#include "settings.h"
#include "ldsearch.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

/* Pass on what someone sends us with kill(1); a signal from the terminal
 * (si_code SI_KERNEL) already went to the whole foreground group. */
static void forward(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	if (child_pid > 0 && (!info || info->si_code <= 0))
		kill((pid_t)child_pid, sig);
}

static const int forwarded[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM };

static const char *base_name(const char *p, size_t n)
{
	for (size_t i = n; i > 0; i--)
		if (p[i - 1] == '/')
			return p + i;
	return p;
}

/* Is a libcushim.so already in this LD_PRELOAD (spaces or colons between)? */
static int preloads_cushim(const char *list)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ": ");
		const char *b = base_name(p, n);
		if ((size_t)(p + n - b) == strlen("libcushim.so") && strncmp(b, "libcushim.so", n - (size_t)(b - p)) == 0)
			return 1;
		p += n;
		p += strspn(p, ": ");
	}
	return 0;
}


/* Is the first folder of LD_LIBRARY_PATH already a masquerade folder? */
static int path_starts_with_a_masquerade_folder(void)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	char path[PATH_MAX + 16];
	if (!llp || !*llp)
		return 0;
	snprintf(path, sizeof path, "%.*s/libcuda.so.1", (int)strcspn(llp, ":"), llp);
	return cli_is_cushim(path);
}

static char masq_dir[PATH_MAX];

static void masquerade_cleanup(void)
{
	char p[PATH_MAX + 32];
	if (!masq_dir[0])
		return;
	snprintf(p, sizeof p, "%s/libcuda.so.1", masq_dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/libcuda.so", masq_dir);
	unlink(p);
	rmdir(masq_dir);
	masq_dir[0] = '\0';
}

/* quiet: the folder is there so that the program loads on a machine
 * without a driver; the library says so itself, once, at its first call. */
static int setup_masquerade(const char *lib, const char *driver_opt, int quiet)
{
	char driver[PATH_MAX], p[PATH_MAX + 32];
	const char *bad;

	/* The real driver (--driver: set already), found as the library would
	 * find it, before our folder goes first on the path.  Where none is
	 * found, CUSHIM_DRIVER stays as it was and the library says the rest. */
	if (!driver_opt) {
		int found = cli_real_driver(p, sizeof p, &bad) >= 0 && realpath(p, driver);
		if (found && bad)
			cli_note("--masquerade: CUSHIM_DRIVER=%s " CUSHIM_DRIVER_UNUSABLE ": %s is used", bad, driver);
		if (found)
			setenv("CUSHIM_DRIVER", driver, 1);
		else if (!quiet)
			cli_note("--masquerade: no real CUDA driver (libcuda.so.1) found on the library path, in the "
				 "loader cache or the default folders; every driver call will return "
				 "CUDA_ERROR_NO_DEVICE (give one with --driver=PATH)");
	}
	if (path_starts_with_a_masquerade_folder())
		return 0; /* an outer cushim run already put its folder first */

	const char *tmp = getenv("TMPDIR");
	snprintf(masq_dir, sizeof masq_dir, "%s/cushim-masquerade.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(masq_dir)) {
		cli_error("--masquerade: cannot create a folder in %s: %s", tmp && *tmp ? tmp : "/tmp",
			  strerror(errno));
		masq_dir[0] = '\0';
		return -1;
	}
	static const char *const names[] = { "libcuda.so.1", "libcuda.so" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", masq_dir, names[i]);
		if (symlink(lib, p) != 0) {
			cli_error("--masquerade: cannot link %s: %s", p, strerror(errno));
			masquerade_cleanup();
			return -1;
		}
	}
	const char *llp = getenv("LD_LIBRARY_PATH");
	size_t n = strlen(masq_dir) + (llp ? strlen(llp) : 0) + 2;
	char *v = malloc(n);
	if (!v)
		abort();
	snprintf(v, n, "%s%s%s", masq_dir, llp && *llp ? ":" : "", llp && *llp ? llp : "");
	setenv("LD_LIBRARY_PATH", v, 1);
	free(v);
	return 0;
}

/* The report: a file in a folder of its own, where each process of the
 * program notes an output it could not write (CUSHIM_RUN_REPORT, the
 * library's log.c), for the line cushim run says when the program ends. */
static char report_dir[PATH_MAX], report_path[PATH_MAX + 16];

static void report_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(report_dir, sizeof report_dir, "%s/cushim-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(report_dir)) {
		report_dir[0] = '\0';
		return; /* no report: the log still says each loss */
	}
	snprintf(report_path, sizeof report_path, "%s/report", report_dir);
	if ((fd = open(report_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
		rmdir(report_dir);
		report_dir[0] = '\0';
		return;
	}
	close(fd);
	setenv("CUSHIM_RUN_REPORT", report_path, 1);
}

/* The exit line: what the program's processes could not write, when any
 * (lines "PID what"), then the report removed. */
static void report_end(const char *program)
{
	static char buf[65536];
	char line[8192];
	struct stat st;
	size_t len = 0, used = 0;
	int fd, shown = 0, more = 0;

	if (!report_dir[0])
		return;
	fd = open(report_path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		for (ssize_t r; len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0;)
			len += (size_t)r;
	if (fd >= 0)
		close(fd);
	buf[len] = '\0';
	for (char *p = buf, *nl; *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		const char *what = p + strspn(p, "0123456789");
		if (shown == 4 || used >= sizeof line - 600) {
			more++;
			continue;
		}
		used += (size_t)snprintf(line + used, sizeof line - used, "%s pid %.*s:%.500s", shown ? ";" : "",
					 (int)(what - p), p, what);
		shown++;
	}
	if (shown)
		cli_error("%s ended, but writes to its outputs failed (said on its log):%s%s", program, line,
			  more ? "; and more" : "");
	unlink(report_path);
	rmdir(report_dir);
	report_dir[0] = '\0';
}

/* The options of cushim run's own, after those of the settings table. */
static const struct option own_options[] = {
	{ "masquerade", no_argument, NULL, 'm' },
	{ "preload", no_argument, NULL, 'P' },
	{ "driver", required_argument, NULL, 'D' },
	{ "lib", required_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
};
#define NOWN (int)(sizeof own_options / sizeof *own_options)
#define SETTING_OPT 1000 /* getopt's value for the setting of row i: SETTING_OPT + i */
#define MAX_SETTING_OPTS 32

static void usage_run(FILE *f)
{
	fputs("Usage: cushim run", f);
	for (int i = 0; i < cushim_nsettings; i++)
		if (cushim_settings[i].option)
			fprintf(f, " [--%s]", cushim_settings[i].option);
	fputs(" [--masquerade|--preload] [--driver=PATH] [--lib=PATH] [--] PROGRAM [ARGS...]\n", f);
}

/* getopt's table: an option for each setting that names one ("log=LEVEL":
 * --log, required; "summary[=FILE]": optional), then run's own. */
static void setting_options(struct option *o, char names[MAX_SETTING_OPTS][32])
{
	int n = 0;
	for (int i = 0; i < cushim_nsettings; i++) {
		const char *opt = cushim_settings[i].option;
		if (!opt || n == MAX_SETTING_OPTS)
			continue;
		size_t len = strcspn(opt, "=[");
		snprintf(names[n], 32, "%.*s", (int)len, opt);
		o[n] = (struct option){ names[n], opt[len] == '[' ? optional_argument : required_argument, NULL,
					SETTING_OPT + i };
		n++;
	}
	memcpy(o + n, own_options, sizeof own_options);
	memset(o + n + NOWN, 0, sizeof *o);
}

/* --option=VALUE sets its CUSHIM_* variable, checked as the library will
 * read it (the settings table): a bad value stops here, named. */
static int set_setting(int i, const char *value)
{
	const struct cushim_setting *s = &cushim_settings[i];
	const char *opt = s->option;
	if (!value) /* --summary alone */
		value = "1";
	if (cushim_setting_check(s, value) != 0) {
		cli_error("--%.*s=%s: not %s", (int)strcspn(opt, "=["), opt, value, s->accepted);
		return -1;
	}
	return setenv(s->name, value, 1);
}

struct run_args {
	const char *libopt, *driver;
	int masquerade, preload;
	int watching; /* a diagnostic or emulation option: masquerade, unless --preload */
};

/* Does setting i, at value, ask to see the program's calls (the trace, the
 * summary, the timeline, the recorder) or to emulate a driver?  A CUDA
 * runtime's calls reach cushim only in masquerade. */
static int watches(int i, const char *value)
{
	const char *n = cushim_settings[i].name;
	if (strcmp(n, "CUSHIM_LOG") == 0)
		return value && (strcmp(value, "errors") == 0 || strcmp(value, "trace") == 0);
	return strcmp(n, "CUSHIM_SUMMARY") == 0 || strcmp(n, "CUSHIM_TIMELINE") == 0 ||
	       strcmp(n, "CUSHIM_RECORD") == 0 || strcmp(n, "CUSHIM_DRIVER_VERSION") == 0;
}

/* The options: -1 to go on, else the exit status. */
static int parse_run(int argc, char **argv, struct run_args *a)
{
	struct option longopts[MAX_SETTING_OPTS + NOWN + 1];
	char names[MAX_SETTING_OPTS][32];
	int c;

	setting_options(longopts, names);
	/* "+": the program's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (c == 'm')
			a->masquerade = 1;
		else if (c == 'P')
			a->preload = 1;
		else if (c == 'D')
			a->driver = optarg;
		else if (c == 'L')
			a->libopt = optarg;
		else if (c == 'h')
			return usage_run(stdout), CLI_OK;
		else if (c >= SETTING_OPT && set_setting(c - SETTING_OPT, optarg) != 0)
			return RUN_USAGE;
		if (c >= SETTING_OPT)
			a->watching |= watches(c - SETTING_OPT, optarg);
		if (c == '?' || c == ':')
			return usage_run(stderr), RUN_USAGE;
	}
	if (optind >= argc) {
		cli_error("run needs a PROGRAM: cushim run [OPTIONS] -- PROGRAM [ARGS...]");
		return RUN_USAGE;
	}
	if (a->masquerade && a->preload) {
		cli_error("--masquerade and --preload: one or the other");
		return RUN_USAGE;
	}
	if (a->watching && !a->preload)
		a->masquerade = 1; /* so that a CUDA runtime's own calls are seen too */
	return -1;
}

/* LD_PRELOAD, CUSHIM_DRIVER and masquerade for the program: 0 or -1. */
static int prepare_environment(const struct cli_lib *lib, const struct run_args *a)
{
	static char driver_real[PATH_MAX];
	const char *driver = a->driver, *pre = getenv("LD_PRELOAD");
	char found[PATH_MAX];

	if (driver) {
		void *h = realpath(driver, driver_real) ? cushim_real_driver_open(driver_real) : NULL;
		if (!h) {
			cli_error("--driver=%s " CUSHIM_DRIVER_UNUSABLE, driver);
			return -1;
		}
		dlclose(h);
		setenv("CUSHIM_DRIVER", driver_real, 1);
		driver = driver_real;
	}
	if (!preloads_cushim(pre)) { /* add, never replace; and never twice */
		size_t n = strlen(lib->path) + (pre ? strlen(pre) : 0) + 2;
		const char *sep = pre && *pre ? ":" : "", *rest = pre && *pre ? pre : "";
		char *v = malloc(n);
		if (!v)
			abort();
		/* First, so that the program's calls reach cushim before any other
		 * library that defines driver functions; in masquerade last, so that
		 * such a library (HAMi-core's libvgpu.so) reaches the driver through
		 * cushim, its libcuda.so.1, and the program's calls reach it first. */
		if (a->masquerade)
			snprintf(v, n, "%s%s%s", rest, sep, lib->path);
		else
			snprintf(v, n, "%s%s%s", lib->path, sep, rest);
		setenv("LD_PRELOAD", v, 1);
		free(v);
	}
	/* No libcuda.so.1 at all: without one the loader refuses a program linked
	 * to it, so cushim stands in for it (every call: CUDA_ERROR_NO_DEVICE). */
	int no_driver = !a->masquerade && cli_ld_search("libcuda.so.1", NULL, NULL, cli_is_cushim, found, sizeof found) != 0;
	if ((a->masquerade || no_driver) && setup_masquerade(lib->path, driver, no_driver) != 0)
		return -1;
	return 0;
}

/* In the child: default signals, the parent's mask, then the program. */
static void exec_program(char **argv, const sigset_t *old)
{
	struct sigaction dfl = { 0 };
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
		sigaction(forwarded[i], &dfl, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	execvp(argv[0], argv);
	int e = errno;
	if (e == ENOENT && !strchr(argv[0], '/'))
		cli_error("cannot run %s: no such program in PATH", argv[0]);
	else
		cli_error("cannot run %s: %s", argv[0], strerror(e));
	_exit(RUN_NOEXEC);
}

/* Start the program with the signals it gets forwarded; its exit status. */
static int run_program(char **argv)
{
	struct sigaction sa = { 0 };
	sigset_t block, old;
	int st;

	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* Blocked from here until the child's pid is known: a signal in between
	 * would otherwise be forwarded to nobody and lost. */
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
		sigaction(forwarded[i], &sa, NULL);
		sigaddset(&block, forwarded[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		exec_program(argv, &old);
	if (pid > 0)
		child_pid = pid; /* before unblocking: what came meanwhile goes to the program */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		cli_error("cannot start %s: fork: %s", argv[0], strerror(errno));
		return RUN_NOEXEC;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			cli_error("waiting for %s: %s", argv[0], strerror(errno));
			return RUN_NOEXEC;
		}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : RUN_NOEXEC;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { NULL, NULL, 0, 0, 0 };
	struct cli_lib lib;
	int rc = parse_run(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (cli_find_lib(a.libopt, &lib) != 0 || cli_run_check_lib(lib.path) != 0 || cli_run_check_settings() != 0 ||
	    prepare_environment(&lib, &a) != 0)
		return RUN_USAGE;
	report_setup();
	rc = run_program(argv + optind);
	report_end(argv[optind]);
	masquerade_cleanup();
	return rc;
}
