/* Constructors, fork, vfork+exec and signals, against
 * the fake 13.0 driver and runtime, each case in a child with a timeout:
 *  - a library constructor calls the driver before main: the bootstrap runs
 *    there and gives the right answers, main and a forked child work after;
 *  - 8 threads fork 25 times each while 8 others make their first calls: no
 *    deadlock, every child and every call gets the right answer (plain and
 *    tracing: the fork handlers of the bootstrap and of the trace buffers);
 *  - vfork+exec of a program that uses the shim, while a thread bootstraps;
 *  - a tracing thread interrupted by signals whose handler calls the driver,
 *    on fresh threads (their first traced call allocates the buffer): no
 *    deadlock, every call traced once, every line whole. */
#include "cuda-all.h"
#include "../harness/harness.h"
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIBPATH "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT
#define ENV_13 "LD_PRELOAD=" SHIM_SO, LIBPATH
extern char **environ;

/* ---- children ---- */
typedef CUresult (*count_fn)(int *);
typedef CUresult (*init_fn)(unsigned int);

/* The fake driver's own functions, looked up once before any thread starts:
 * a dlopen in a child forked while another thread was inside dlopen hangs in
 * ThreadSanitizer's runtime (its library list lock is not reset at fork), so
 * no child of these tests calls dlopen itself. */
static fake_export_fn driver_export;

static void find_driver_exports(void)
{
	driver_export = FAKE(fake_export);
}

/* The shim answers as the driver does: the version, and after cuInit a
 * device count whose result is the driver's own answer at that moment (a
 * child forked from an initialised process is refused by the driver, with
 * or without cushim). */
static int works(void)
{
	int v = 0, n = -1;
	count_fn direct = driver_export ? (count_fn)driver_export("cuDeviceGetCount") : NULL;
	if (!direct || cuDriverGetVersion(&v) != CUDA_SUCCESS || v != 13000)
		return 0;
	CUresult init = cuInit(0), shim = cuDeviceGetCount(&n), driver = direct(&n);
	if (shim == driver && (init == CUDA_SUCCESS) == (shim == CUDA_SUCCESS))
		return 1;
	printf("pid %d: cuInit %d, cuDeviceGetCount %d through cushim, %d from the driver\n", (int)getpid(),
	       (int)init, (int)shim, (int)driver);
	return 0;
}

/* Initialise the fake driver behind cushim's back, so that a thread's first
 * call (the bootstrap) gets answers that need no cuInit of its own. */
static void initialise_driver_directly(void)
{
	init_fn init = driver_export ? (init_fn)driver_export("cuInit") : NULL;
	if (init)
		init(0);
}

#define NFORKERS 8
#define NFORKS 25
#define NCALLERS 8
static pthread_barrier_t barrier;
static int fork_failures, call_failures;

static void *forker(void *arg)
{
	pthread_barrier_wait(&barrier);
	for (int k = 0; k < NFORKS; k++) {
		int st = -1;
		pid_t pid = fork();
		if (pid == 0)
			exit(works() ? 0 : 1); /* exit, not _exit: the trace flushes at exit */
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			__atomic_add_fetch(&fork_failures, 1, __ATOMIC_RELAXED);
			printf("fork failure: pid %d, status %#x\n", (int)pid, st);
		}
	}
	return NULL;
}

static void *caller(void *arg)
{
	int t = (int)(intptr_t)arg, ok;
	CUdevice d = -1;
	CUcontext c;
	pthread_barrier_wait(&barrier);
	switch (t % 4) {
	case 0: ok = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&d, 0) == CUDA_SUCCESS; break;
	case 1: ok = cuInit(0) == CUDA_SUCCESS && cuCtxGetCurrent(&c) == CUDA_SUCCESS; break;
	case 2: ok = cuInit(0) == CUDA_SUCCESS; break;
	default: ok = works();
	}
	if (!ok)
		__atomic_add_fetch(&call_failures, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int child_forkstorm(const char *arg)
{
	pthread_t th[NFORKERS + NCALLERS];
	find_driver_exports();
	pthread_barrier_init(&barrier, NULL, NFORKERS + NCALLERS);
	for (int t = 0; t < NFORKERS; t++)
		pthread_create(&th[t], NULL, forker, NULL);
	for (int t = 0; t < NCALLERS; t++)
		pthread_create(&th[NFORKERS + t], NULL, caller, (void *)(intptr_t)t);
	for (int t = 0; t < NFORKERS + NCALLERS; t++)
		pthread_join(th[t], NULL);
	printf("forks=%d fork_failures=%d call_failures=%d\n", NFORKERS * NFORKS, fork_failures, call_failures);
	return fork_failures || call_failures || !works();
}

static void *bootstrapper(void *arg)
{
	CUdevice d;
	if (cuDeviceGet(&d, 0) != CUDA_SUCCESS)
		__atomic_add_fetch(&call_failures, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int child_vfork(const char *arg)
{
	find_driver_exports();
	pthread_t th;
	static int failures; /* static: not clobbered by vfork */
	initialise_driver_directly();
	pthread_create(&th, NULL, bootstrapper, NULL);
	const char *const argv[] = { harness_self, "--child", "exec-target", "", NULL };
	char *const *av = target_argv(argv);
	for (int k = 0; k < 40; k++) {
		int st = -1;
		pid_t pid = vfork();
		if (pid == 0) {
			execve(av[0], av, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failures++;
	}
	pthread_join(th, NULL);
	printf("vforks=40 failures=%d call_failures=%d\n", failures, call_failures);
	return failures || call_failures || !works();
}

/* ---- signals ---- */
static long handled, during_boot, traced_calls;
static int thread_done;

static void on_signal(int sig)
{
	CUdevice d;
	CUresult rc = cuDeviceGet(&d, 0);
	if (rc == CUDA_SUCCESS)
		__atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
	else if (rc == CUDA_ERROR_NOT_INITIALIZED)
		/* the signal came while this very thread ran the bootstrap: the
		 * shim cannot wait for itself, and says so (not traced) */
		__atomic_add_fetch(&during_boot, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&call_failures, 1, __ATOMIC_RELAXED);
}

static void *tracing_thread(void *arg)
{
	CUcontext c;
	for (int k = 0; k < 100; k++) {
		if (cuCtxGetCurrent(&c) != CUDA_SUCCESS)
			__atomic_add_fetch(&call_failures, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&traced_calls, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

#define SIGNALS_PER_ROUND 200
/* HARD_SIGNAL_ROUNDS rounds (300 if unset) */
static int child_signals(const char *arg)
{
	const char *env_rounds = getenv("HARD_SIGNAL_ROUNDS");
	int rounds = env_rounds ? atoi(env_rounds) : 300;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	long sent = 0;
	fake_lookups_total_fn lookups = FAKE(fake_lookups_total);
	if (!lookups) {
		printf("the fake driver's fake_lookups_total is missing\n");
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	find_driver_exports();
	initialise_driver_directly(); /* CUDA_ERROR_NOT_INITIALIZED then means "during the bootstrap" */
	for (int r = 0; r < rounds; r++) {
		pthread_t th;
		thread_done = 0;
		pthread_create(&th, NULL, tracing_thread, NULL);
		/* No signal before the thread's first call has begun the bootstrap:
		 * a handler that came first would run it (dlopen and malloc inside
		 * a signal handler: TSan says so, and no shim can make that safe).
		 * Signals during the bootstrap are the case under test. */
		while (lookups() == 0 && !__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE))
			;
		/* A burst of at most SIGNALS_PER_ROUND from the thread's birth,
		 * which covers its first traced call (the buffer's allocation) and
		 * what follows: bounded work (an unbounded flood made millions of
		 * trace lines, tens of seconds that varied threefold with load). */
		for (int k = 0; k < SIGNALS_PER_ROUND && !__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE); k++)
			if (pthread_kill(th, SIGUSR1) == 0)
				sent++;
		pthread_join(th, NULL);
	}
	printf("rounds=%d sent=%ld calls=%ld handled=%ld during_boot=%ld call_failures=%d\n", rounds, sent,
	       traced_calls, handled, during_boot, call_failures);
	return call_failures != 0;
}

/* ---- the tests ---- */
static struct run expect_child(const char *mode, const char *const env[], int timeout_s)
{
	struct run r;
	run_self(&r, mode, "", env, timeout_s);
	size_t n = r.err ? strlen(r.err) : 0;
	/* the end of stderr: where a sanitizer's report is */
	ck_assert_msg(r.code == 0, "child %s %s (status %d):\n%.1000s\n...%s", mode,
		      r.code < 0 ? "hung (killed after the timeout)" : "failed", r.code, r.out,
		      r.err ? r.err + (n > 3000 ? n - 3000 : 0) : "");
	printf("%s: %s", mode, r.out);
	return r;
}

START_TEST(constructor_calls_before_main)
{
	struct run r;
	const char *argv[] = { ABS_TOP_BUILDDIR "/tests/hardening/ctor-app", NULL };
	const char *const env[] = { ENV_13, NULL };
	int init, version, v, device, lookups, ctx, child;
	run_child(&r, argv, env, 30);
	ck_assert_msg(r.code == 0, "status %d:\n%s\n%s", r.code, r.out, r.err);
	ck_assert_msg(sscanf(r.out, "ctor init=%d version=%d v=%d device=%d lookups=%d\nmain ctx=%d child=%d", &init,
			     &version, &v, &device, &lookups, &ctx, &child) == 7, "%s", r.out);
	printf("%s", r.out);
	ck_assert_msg(init == 0 && version == 0 && v == 13000 && device == 0, "in the constructor: %s", r.out);
	ck_assert_msg(lookups > 500, "the bootstrap did not run in the constructor: %s", r.out);
	ck_assert_msg(ctx == 0 && child == 0, "after main started: %s", r.out);
	ck_assert_msg(!strstr(r.err, "cushim:"), "%s", r.err);
	run_free(&r);
}
END_TEST

START_TEST(fork_from_threads_during_first_calls)
{
	const char *const plain[] = { ENV_13, NULL };
	const char *const tracing[] = { ENV_13, "CUSHIM_LOG=trace", NULL };
	const char *first = getenv("CUSHIM_TEST_PRELOAD_FIRST");
	if (first && strstr(first, "libasan")) {
		/* gcc 12's ASan does not lock its allocator around fork: a child
		 * forked while another thread allocates hangs in the ASan runtime
		 * (seen here, not cushim's lock).  TSan and the plain build run it. */
		printf("SKIP fork_from_threads_during_first_calls under ASan\n");
		return;
	}
	struct run r = expect_child("forkstorm", plain, 60);
	run_free(&r);
	r = expect_child("forkstorm", tracing, 60);
	/* once in each child, in the callers that run works() and at the end:
	 * no line lost, none written twice by a child that inherited a buffer */
	int want = NFORKERS * NFORKS + NCALLERS / 4 + 1, got = count_lines_with(r.err, "cuDeviceGetCount(");
	ck_assert_msg(got == want, "%d cuDeviceGetCount lines traced, want %d", got, want);
	run_free(&r);
}
END_TEST

START_TEST(vfork_exec_during_bootstrap)
{
	const char *const env[] = { ENV_13, NULL };
	struct run r = expect_child("vfork", env, 60);
	run_free(&r);
}
END_TEST

/* Every line that mentions fn is one whole trace line. */
static int intact_lines(const char *text, const char *fn)
{
	int n = 0;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *l = strndup(line, len);
		if (strstr(l, fn)) {
			ck_assert_msg(strncmp(l, "cushim: ", 8) == 0 && !strstr(l + 8, "cushim:") &&
					      strstr(l, ") = CUDA_SUCCESS ") && len > 3 && strcmp(l + len - 3, " us") == 0,
				      "a broken line: [%s]", l);
			n++;
		}
		free(l);
		line = end ? end + 1 : line + len;
	}
	return n;
}

START_TEST(signal_handler_calls_while_tracing)
{
	const char *const env[] = { ENV_13, "CUSHIM_LOG=trace", NULL };
	struct run r = expect_child("signals", env, 120);
	long rounds, sent, calls, handled_n, boot_n;
	int failures;
	const char *line = strstr(r.out, "rounds=");
	ck_assert(line && sscanf(line, "rounds=%ld sent=%ld calls=%ld handled=%ld during_boot=%ld call_failures=%d",
				 &rounds, &sent, &calls, &handled_n, &boot_n, &failures) == 6);
	ck_assert_msg(handled_n > 0, "no signal reached the thread: %s", r.out);
	ck_assert_int_eq(count_lines_with(r.err, "cuDeviceGet was called while cushim was starting"), boot_n);
	ck_assert_int_eq(intact_lines(r.err, " cuCtxGetCurrent("), calls);
	ck_assert_int_eq(intact_lines(r.err, " cuDeviceGet("), handled_n);
	run_free(&r);
}
END_TEST

/* Run by child_vfork: a program that uses the shim, freshly executed. */
static int child_exec_target(const char *arg)
{
	find_driver_exports();
	return !works();
}

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "forkstorm", child_forkstorm }, { "vfork", child_vfork }, { "exec-target", child_exec_target },
		{ "signals", child_signals },     { NULL },
	};
	const TTest *const tests[] = { constructor_calls_before_main, fork_from_threads_during_first_calls,
				       vfork_exec_during_bootstrap, signal_handler_calls_while_tracing, NULL };
	const struct harness_tcase tcases[] = { { "threads", 300, tests, NULL }, { NULL } };
	return harness_main(argc, argv, children, "threads", tcases);
}
