/* The run a process belongs to: a process that no cushim process started,
 * with everything it starts.  The run's mark, CUSHIM_RUN=PID-SECONDS (a pid
 * of the run's and when it began), goes into what it starts, and every
 * process that has it is of that run, never its first; only a run's first
 * process may empty a stale output file of an earlier run (outputs.c).
 *
 * Nothing here runs at load: a program that loads libcushim.so and makes no
 * driver call, forks nothing and execs nothing keeps its environment as it
 * was.  The run is decided at the first of
 *   - the start of tracing, which also marks the process's environment
 *     where it names an output (CUSHIM_TIMELINE, CUSHIM_SUMMARY,
 *     CUSHIM_LOG_FILE), for what the C library starts on its own
 *     (posix_spawn, system, popen);
 *   - a fork, in the parent, so that the child is of its run;
 *   - an exec through libcushim.so's exec functions (exec.c), which pass
 *     the mark in the environment of the program they start and change the
 *     process's own not at all.
 * So a process that makes no driver call and starts others only through
 * the C library's own exec (posix_spawn) passes them no mark: each begins a
 * run of its own.
 *
 * The decision is one word, stored once by compare and swap: any thread,
 * a signal handler or a vfork child (whose store its parent then reads)
 * makes it without a lock, and all find the same. */
#include "conf.h"
#include "settings.h"
#include "callfmt.h"
#include "runmark.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* RUN_DECIDED | RUN_FIRST (this process began it) | pid << SEC_BITS | seconds */
#define RUN_DECIDED (1ull << 63)
#define RUN_FIRST (1ull << 62)
#define PID_BITS CUSHIM_RUN_PID_BITS
#define SEC_BITS CUSHIM_RUN_SEC_BITS
static uint64_t run_word;
static int run_forked;
static const char key[] = "CUSHIM_RUN=";

/* The run of the mark this process inherited, or 0 where it has none or
 * one that is not PID-SECONDS (then it begins a run, as SETTINGS.md says,
 * and the settings' check has said so). */
static uint64_t inherited(void)
{
	const char *p = cushim_setting_env("CUSHIM_RUN");
	unsigned long long pid, sec;

	if (!p || cushim_parse_run(p, &pid, &sec) != 0)
		return 0;
	return RUN_DECIDED | (uint64_t)pid << SEC_BITS | (uint64_t)sec;
}

static uint64_t decide(void)
{
	uint64_t w = __atomic_load_n(&run_word, __ATOMIC_ACQUIRE), none = 0;
	struct timespec now = { 0, 0 };

	if (w)
		return w;
	if (!(w = inherited())) {
		clock_gettime(CLOCK_REALTIME, &now);
		w = RUN_DECIDED | RUN_FIRST | ((uint64_t)getpid() & ((1ull << PID_BITS) - 1)) << SEC_BITS |
		    ((uint64_t)(now.tv_sec > 0 ? now.tv_sec : 0) & ((1ull << SEC_BITS) - 1));
	}
	if (!__atomic_compare_exchange_n(&run_word, &none, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		w = none; /* another thread's, the same run */
	return w;
}

size_t cushim_run_id(char *buf, size_t size)
{
	uint64_t w = decide();
	size_t n;

	if (size < CUSHIM_RUN_ID_MAX) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	n = cushim_format_decimal(buf, size, (w >> SEC_BITS) & ((1ull << PID_BITS) - 1), 0);
	buf[n++] = '-';
	n += cushim_format_decimal(buf + n, size - n, w & ((1ull << SEC_BITS) - 1), 0);
	buf[n] = '\0';
	return n;
}

int cushim_run_first(void)
{
	return (decide() & RUN_FIRST) && !__atomic_load_n(&run_forked, __ATOMIC_RELAXED);
}

/* Whether this process names an output, whose files its run shares. */
static int names_output(void)
{
	return cushim_setting_env("CUSHIM_TIMELINE") || cushim_setting_env("CUSHIM_SUMMARY") ||
	       cushim_setting_env("CUSHIM_LOG_FILE");
}

void cushim_run_start(void)
{
	char id[CUSHIM_RUN_ID_MAX];
	const char *mark;

	cushim_run_id(id, sizeof id);
	if (names_output() && (!(mark = cushim_setting_env("CUSHIM_RUN")) || strcmp(mark, id) != 0))
		setenv("CUSHIM_RUN", id, 1);
}

/* The first bytes of a /proc file (a regular file there, opened so that it
 * never blocks), NUL-terminated: their length, or -1. */
static ssize_t read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	ssize_t n;
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* When process pid began, in seconds since the epoch (now, less the time
 * since boot, plus when it began after boot); -1 unknown. */
static long long began(unsigned long long pid)
{
	char path[48], buf[1024], *p;
	unsigned long long ticks = 0;
	double up = 0;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec now;
	snprintf(path, sizeof path, "/proc/%llu/stat", pid);
	if (hz <= 0 || read_proc(path, buf, sizeof buf) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	/* after the name: state (field 3) ... starttime (field 22) */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 || read_proc("/proc/uptime", buf, sizeof buf) <= 0 ||
	    sscanf(buf, "%lf", &up) != 1 || clock_gettime(CLOCK_REALTIME, &now) != 0)
		return -1;
	return (long long)((double)now.tv_sec - up + (double)ticks / (double)hz);
}

int cushim_run_live(const char *text, size_t n)
{
	char mark[CUSHIM_RUN_ID_MAX];
	unsigned long long pid, sec;
	size_t k = 0;
	long long start;

	while (k < n && k + 1 < sizeof mark && (text[k] == '-' || (text[k] >= '0' && text[k] <= '9')))
		mark[k] = text[k], k++;
	mark[k] = '\0';
	if (cushim_parse_run(mark, &pid, &sec) != 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return 0;
	start = began(pid);
	return start < 0 || (unsigned long long)start <= sec + 2; /* the two clocks round apart */
}

void cushim_run_prefork(void)
{
	decide();
}

void cushim_run_forked(void)
{
	__atomic_store_n(&run_forked, 1, __ATOMIC_RELAXED);
}

size_t cushim_run_env_size(char *const envp[])
{
	char mark[CUSHIM_RUN_MARK_MAX];
	size_t n = 0;

	if (!names_output())
		return 0;
	memcpy(mark, key, sizeof key - 1);
	cushim_run_id(mark + sizeof key - 1, sizeof mark - (sizeof key - 1));
	for (; envp && envp[n]; n++)
		if (strcmp(envp[n], mark) == 0 || n == CUSHIM_RUN_ENV_MAX)
			return 0;
	return n + 2;
}

char *const *cushim_run_env(char *const envp[], char **copy, size_t size, char *mark)
{
	size_t k = 0;

	memcpy(mark, key, sizeof key - 1);
	cushim_run_id(mark + sizeof key - 1, CUSHIM_RUN_MARK_MAX - (sizeof key - 1));
	for (size_t j = 0; envp && envp[j] && k + 2 <= size; j++)
		if (strncmp(envp[j], key, sizeof key - 1) != 0)
			copy[k++] = envp[j];
	copy[k++] = mark;
	copy[k] = NULL;
	return copy;
}
