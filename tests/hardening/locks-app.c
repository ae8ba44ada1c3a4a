/* What tests/hardening/locks runs, one case per run (argv[1]): a program
 * that meets cushim where it would wait on its own lock.
 *
 *   loader-version, loader-init: a thread makes a first call (cuDriverGetVersion:
 *     the bootstrap; cuInit: the adoption of a runtime) while the main thread
 *     is inside dlopen of libslowctor.so, whose constructor holds the
 *     loader's lock, lets the thread start, sleeps, and makes the same call.
 *     A lock held by the thread across its own loader calls, which the
 *     constructor then waits for, is a deadlock.
 *   handler-fork-boot, handler-fork-adopt, handler-fork-record,
 *   handler-init-record: a SIGUSR1 handler that forks (the child exits at
 *     once) or calls cuInit runs where cushim calls backtrace(3): in the
 *     bootstrap, in the adoption of a runtime, and in the record of the
 *     first cuInit.  This program defines backtrace, so cushim's calls come
 *     here; the signal is raised at the Nth call after the case arms it.
 *   handler-table: the handler calls cuGetExportTable for a runtime's
 *     validity check, raised where cushim writes its log (this program
 *     defines write) while it makes its copy of that table (emulating).
 *
 * Exits 0 when every call returned what it should; a wait on its own lock
 * hangs, and the test's timeout kills it. */
#include "cuda-all.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Set by libslowctor.so's constructor (it links against this program's). */
__attribute__((visibility("default"))) volatile int locks_go;

/* ---- where cushim calls backtrace(3) and write(2) ---- */
typedef int (*backtrace_fn)(void **, int);
static backtrace_fn real_backtrace;
static volatile int backtrace_skip = -1, write_armed; /* -1: not armed */

__attribute__((visibility("default"))) int backtrace(void **frames, int size)
{
	if (backtrace_skip >= 0 && backtrace_skip-- == 0)
		raise(SIGUSR1);
	return real_backtrace ? real_backtrace(frames, size) : 0;
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
	if (write_armed && fd > 0) {
		write_armed = 0;
		raise(SIGUSR1);
	}
	return syscall(SYS_write, fd, buf, n);
}

/* ---- the handlers ---- */
static volatile int handled, handler_rc = -1;

static void forks(int sig)
{
	int st = -1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	handler_rc = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	handled++;
}

static void inits(int sig)
{
	handler_rc = cuInit(0);
	handled++;
}

static const unsigned char integrity_id[16] = { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
						0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 };
static const void *handler_table;

static void asks_table(int sig)
{
	handler_rc = cuGetExportTable(&handler_table, (const CUuuid *)integrity_id);
	handled++;
}

static void on_usr1(void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* ---- the cases ---- */
static int version_is_13(void)
{
	int v = 0;
	return cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000;
}

static void *first_call(void *arg)
{
	while (!__atomic_load_n(&locks_go, __ATOMIC_ACQUIRE))
		;
	if (strcmp(arg, "init") == 0)
		return (void *)(intptr_t)(cuInit(0) == CUDA_SUCCESS);
	return (void *)(intptr_t)version_is_13();
}

static int loader(const char *call)
{
	pthread_t th;
	void *ok = NULL;
	if (strcmp(call, "init") == 0 && !version_is_13()) /* the bootstrap, before the race */
		return 1;
	setenv("SLOWCTOR_CALL", call, 1);
	pthread_create(&th, NULL, first_call, (void *)call);
	void *h = dlopen("libslowctor.so", RTLD_NOW);
	pthread_join(th, &ok);
	int *rc = h ? dlsym(h, "slowctor_rc") : NULL, *v = h ? dlsym(h, "slowctor_version") : NULL;
	printf("thread %s, constructor rc %d version %d\n", ok ? "ok" : "failed", rc ? *rc : -1, v ? *v : -1);
	return !h || !ok || !rc || *rc != 0 || (strcmp(call, "version") == 0 && *v != 13000);
}

/* skip: the signal comes at backtrace call skip + 1 after the bootstrap
 * (none: at the bootstrap's own). */
static int handler(void (*fn)(int), int at_boot, int skip, int (*call)(void))
{
	on_usr1(fn);
	if (!at_boot && !version_is_13())
		return 1;
	backtrace_skip = skip;
	int ok = call();
	printf("call %s, %d handled, handler rc %d\n", ok ? "ok" : "failed", handled, handler_rc);
	return !ok || handled != 1 || handler_rc != 0 || !version_is_13();
}

static int init_ok(void)
{
	return cuInit(0) == CUDA_SUCCESS;
}

static int table(void)
{
	const void *t = NULL;
	on_usr1(asks_table);
	if (cuInit(0) != CUDA_SUCCESS)
		return 1;
	write_armed = 1;
	CUresult rc = cuGetExportTable(&t, (const CUuuid *)integrity_id);
	printf("rc %d, %d handled, handler rc %d, same table %d\n", (int)rc, handled, handler_rc, t == handler_table);
	return rc != CUDA_SUCCESS || handled != 1 || handler_rc != CUDA_SUCCESS || t != handler_table || !t;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	real_backtrace = (backtrace_fn)dlsym(RTLD_NEXT, "backtrace");
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(c, "loader-version") == 0)
		return loader("version");
	if (strcmp(c, "loader-init") == 0)
		return loader("init");
	if (strcmp(c, "handler-fork-boot") == 0)
		return handler(forks, 1, 0, version_is_13);
	if (strcmp(c, "handler-fork-adopt") == 0)
		return handler(forks, 0, 1, init_ok); /* the record's backtrace, then the adoption's */
	if (strcmp(c, "handler-fork-record") == 0)
		return handler(forks, 0, 0, init_ok);
	if (strcmp(c, "handler-init-record") == 0)
		return handler(inits, 0, 0, init_ok);
	if (strcmp(c, "handler-table") == 0)
		return table();
	fprintf(stderr, "locks-app: unknown case %s\n", c);
	return 2;
}
