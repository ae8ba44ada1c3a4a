/* Lazy bootstrap, fork and concurrent first calls, against the fake 13.0
 * driver and the fake 13.0 runtime:
 *  - nothing reaches the driver or loads the runtime before the first call
 *    (the fake's counters are zero, dlopen(RTLD_NOLOAD) finds no runtime),
 *    and both are used after it (so the first check can see them);
 *  - a process that forks before its first call: child and parent both work;
 *  - 64 threads making their first calls at once all succeed, each reaches
 *    its own function once, and the driver sees no more lookups than with one
 *    thread: the bootstrap ran once. */
#include "cuda-all.h"
#include "harness.h"
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ENV_13 { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT, NULL }

static int runtime_loaded(void)
{
	void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	return h != NULL;
}

static void expect_untouched(const char *when)
{
	EXPECT(FAKE(fake_calls_total)() == 0, "%s: %ld calls reached the driver", when, FAKE(fake_calls_total)());
	EXPECT(FAKE(fake_lookups_total)() == 0, "%s: %d lookups reached the driver", when,
	       FAKE(fake_lookups_total)());
	EXPECT(!runtime_loaded(), "%s: a runtime is loaded", when);
}

static void expect_works(const char *who)
{
	int v = 0;
	CUdevice d = -1;
	EXPECT(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000, "%s: cuDriverGetVersion: %d", who, v);
	EXPECT(cuDeviceGet(&d, 0) == CUDA_SUCCESS, "%s: cuDeviceGet", who);
	EXPECT(FAKE(fake_calls)("cuDeviceGet") == 1, "%s: the driver's cuDeviceGet ran %ld times", who,
	       FAKE(fake_calls)("cuDeviceGet"));
	EXPECT(runtime_loaded() && FAKE(fake_lookups_total)() > 500, "%s: the bootstrap did not run", who);
}

static int child_lazy(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
	if (!FAKE(fake_calls_total) || !FAKE(fake_lookups_total)) {
		printf("FAIL: libcuda.so.1 is not the fake driver\n");
		return 1;
	}
	EXPECT(fn && strstr(object_of(fn), "libcushim"), "cushim is not preloaded");
	expect_untouched("before the first call");
	expect_works("the first call");
	return child_failures != 0;
}

static int child_fork(void)
{
	int st = 0;
	pid_t pid;

	expect_untouched("before fork");
	pid = fork();
	if (pid == 0) {
		expect_works("the child");
		fflush(stdout);
		_exit(child_failures != 0);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "the forked child failed (status %#x)", st);
	expect_untouched("the parent, after its child's first call");
	expect_works("the parent");
	/* and after the bootstrap, a fork still works on both sides */
	pid = fork();
	if (pid == 0) {
		CUcontext c;
		_exit(cuCtxGetCurrent(&c) != CUDA_SUCCESS);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a child forked after the bootstrap failed (status %#x)", st);
	return child_failures != 0;
}

/* ---- 64 threads ---- */
#define CUSHIM_SYM(i, name, ...) #name,
static const char *const names[] = {
#include "cushim-syms.h"
};
#undef CUSHIM_SYM
#define NNAMES ((int)(sizeof names / sizeof *names))

#define MAX_THREADS 64
static pthread_barrier_t barrier;
static const char *picked[MAX_THREADS];
static CUresult rcs[MAX_THREADS];
static unsigned char scratch[MAX_THREADS][8][256];

typedef CUresult (*generic_fn)(void *, void *, void *, void *, void *, void *);

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	/* through a generic pointer type: every argument a distinct scratch
	 * buffer, which the recording fake never reads */
	generic_fn f = (generic_fn)dlsym(RTLD_DEFAULT, picked[t]);
	pthread_barrier_wait(&barrier);
	rcs[t] = f ? f(scratch[t][0], scratch[t][1], scratch[t][2], scratch[t][3], scratch[t][4], scratch[t][5])
		   : (CUresult)-1;
	return NULL;
}

static int recorder_only(const char *name)
{
	static const char *const answering[] = { "cuInit", "cuDriverGetVersion", "cuGetProcAddress",
						 "cuGetProcAddress_v2", "cuGetErrorName", "cuGetErrorString",
						 "cuGetExportTable" };
	for (size_t i = 0; i < sizeof answering / sizeof *answering; i++)
		if (strcmp(name, answering[i]) == 0)
			return 0;
	return FAKE(fake_export)(name) != NULL;
}

static int child_threads(int n)
{
	pthread_t th[MAX_THREADS];
	int k = 0;

	expect_untouched("before the threads");
	for (int i = 0; i < NNAMES && k < n; i += NNAMES / MAX_THREADS)
		for (int j = i; j < NNAMES; j++)
			if (recorder_only(names[j])) {
				picked[k++] = names[j];
				break;
			}
	EXPECT(k == n, "only %d exports picked", k);
	pthread_barrier_init(&barrier, NULL, (unsigned)k);
	for (int t = 0; t < k; t++)
		pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
	for (int t = 0; t < k; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < k; t++) {
		EXPECT(rcs[t] == CUDA_SUCCESS, "%s returned %d", picked[t], (int)rcs[t]);
		EXPECT(FAKE(fake_calls)(picked[t]) == 1, "the driver's %s ran %ld times", picked[t],
		       FAKE(fake_calls)(picked[t]));
	}
	/* each (symbol, version, flags) asked once; the bootstrap's own use of
	 * cuDriverGetVersion (to learn the driver's version) may ask again */
	int total = FAKE(fake_lookups_total)();
	struct fake_lookup *log = calloc((size_t)total + 1, sizeof *log);
	for (int i = 0; i < total; i++)
		FAKE(fake_lookup_at)(i, &log[i]);
	for (int i = 0; i < total; i++) {
		int same = 0;
		for (int j = 0; j < total; j++)
			same += strcmp(log[i].symbol, log[j].symbol) == 0 && log[i].version == log[j].version &&
				log[i].flags == log[j].flags;
		if (strcmp(log[i].symbol, "cuDriverGetVersion") == 0)
			EXPECT(same <= 3, "cuDriverGetVersion asked %d times", same);
		else
			EXPECT(same == 1, "(%s, %d, %llu) asked %d times", log[i].symbol, log[i].version, log[i].flags,
			       same);
	}
	printf("threads=%d lookups=%d\n", k, total);
	free(log);
	return child_failures != 0;
}

/* ---- the tests ---- */
static void expect_child(const char *mode, const char *arg, struct run *keep)
{
	struct run r;
	const char *const env[] = ENV_13;
	run_self(&r, mode, arg, env, 60);
	ck_assert_msg(r.code == 0, "child %s %s exited %d:\n%s\n%s", mode, arg, r.code, r.out, r.err);
	printf("%s", r.out);
	if (keep)
		*keep = r;
	else
		run_free(&r);
}

START_TEST(check_nothing_reaches_the_driver_before_the_first_call)
{
	expect_child("lazy", "", NULL);
}
END_TEST

START_TEST(check_fork_before_the_first_call)
{
	expect_child("fork", "", NULL);
}
END_TEST

START_TEST(check_64_threads_first_calls_bootstrap_once)
{
	struct run one, many;
	int n1 = -1, n64 = -1, t;
	expect_child("threads", "1", &one);
	expect_child("threads", "64", &many);
	ck_assert(sscanf(strstr(one.out, "threads="), "threads=%d lookups=%d", &t, &n1) == 2 && t == 1);
	ck_assert(sscanf(strstr(many.out, "threads="), "threads=%d lookups=%d", &t, &n64) == 2 && t == 64);
	ck_assert_msg(n64 == n1, "64 threads made %d lookups, one thread %d", n64, n1);
	run_free(&one);
	run_free(&many);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "--child") == 0) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (strcmp(argv[2], "lazy") == 0)
			return child_lazy();
		if (strcmp(argv[2], "fork") == 0)
			return child_fork();
		if (strcmp(argv[2], "threads") == 0)
			return child_threads(atoi(argv[3]));
		return 2;
	}
	Suite *s = suite_create("lazy");
	TCase *tc = tcase_create("lazy");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, check_nothing_reaches_the_driver_before_the_first_call);
	tcase_add_test(tc, check_fork_before_the_first_call);
	tcase_add_test(tc, check_64_threads_first_calls_bootstrap_once);
	suite_add_tcase(s, tc);
	return run_suite(s, CK_VERBOSE);
}
