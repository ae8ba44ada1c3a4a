/* Invisible until used, against the fake drivers and runtimes (which model
 * the real ones: a runtime's first entry-point call initialises the driver,
 * the driver answers CUDA_ERROR_NOT_INITIALIZED before cuInit and refuses
 * cuInit in a child forked from an initialised process):
 *  - nothing reaches the driver or loads a runtime before the first call;
 *  - the first call, and every call before the program's own cuInit, leaves
 *    the driver uninitialised and loads no runtime, and each answers what the
 *    driver answers without cushim;
 *  - the program's cuInit adopts a runtime's entry-point API;
 *  - a process that probes the driver and then forks: the child initialises
 *    and uses the driver, as without cushim (13.0 and 11.4 runtimes);
 *  - 64 threads making their first calls at once each reach their own
 *    function once, and the bootstrap ran once;
 *  - libcushim.so loaded, preloaded or opened with dlopen, with an output
 *    named, runs nothing of its own until the first driver call: the
 *    environment stays as it was, and it looks nothing up (an audit
 *    library, tests/blackbox/symaudit-lib.c, sees each dlsym of its). */
#include "cuda-all.h"
#include "../harness/harness.h"
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#define PATH_13 "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT
#define PATH_11 "LD_LIBRARY_PATH=" DRV("11.4") ":" RT("11.4") ":" NO_RT
#define ENV_13 { "LD_PRELOAD=" SHIM_SO, PATH_13, NULL }
#define SYMAUDIT ABS_TOP_BUILDDIR "/tests/blackbox/libsymaudit.so"
#define FIRST_CALL "-- the first call --\n"

static int runtime_loaded(void)
{
	static const char *const sonames[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" };
	for (size_t i = 0; i < 3; i++) {
		void *h = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
		if (h) {
			dlclose(h);
			return 1;
		}
	}
	return 0;
}

static int driver_initialised(void)
{
	return FAKE(fake_initialised)();
}

static void expect_untouched(const char *when)
{
	EXPECT(FAKE(fake_calls_total)() == 0, "%s: %ld calls reached the driver", when, FAKE(fake_calls_total)());
	EXPECT(FAKE(fake_lookups_total)() == 0, "%s: %d lookups reached the driver", when,
	       FAKE(fake_lookups_total)());
	EXPECT(!runtime_loaded(), "%s: a runtime is loaded", when);
}

/* What a program that probes the driver sees before its cuInit: the
 * driver's answers, printed so that the parent can compare them with a run
 * without cushim.  The driver stays uninitialised and no runtime loads. */
static void probe(const char *who)
{
	int v = 0, n = -1;
	CUcontext c = NULL;
	CUdevice d = -1;
	CUresult r1 = cuDriverGetVersion(&v), r2 = cuCtxGetCurrent(&c), r3 = cuDeviceGetCount(&n);
	CUresult r4 = cuDeviceGet(&d, 0);

	printf("%s probes: cuDriverGetVersion=%d(%d) cuCtxGetCurrent=%d cuDeviceGetCount=%d cuDeviceGet=%d\n",
	       who, (int)r1, v, (int)r2, (int)r3, (int)r4);
	EXPECT(!driver_initialised(), "%s: the driver was initialised behind the program's back", who);
	EXPECT(!runtime_loaded(), "%s: a runtime was loaded before the program's cuInit", who);
}

/* What a worker does: initialise the driver and use it. */
static void work(const char *who)
{
	CUdevice d = -1;
	CUcontext c = NULL;
	CUdeviceptr p = 0;
	CUresult r1 = cuInit(0), r2 = cuDeviceGet(&d, 0), r3 = cuDevicePrimaryCtxRetain(&c, d);
	CUresult r4 = cuMemAlloc_v2(&p, 1 << 20);

	printf("%s works: cuInit=%d cuDeviceGet=%d cuDevicePrimaryCtxRetain=%d cuMemAlloc=%d\n", who, (int)r1,
	       (int)r2, (int)r3, (int)r4);
}

static int child_lazy(const char *arg)
{
	void *fn = dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
	if (!FAKE(fake_calls_total) || !FAKE(fake_lookups_total)) {
		printf("FAIL: libcuda.so.1 is not the fake driver\n");
		return 1;
	}
	printf("shim %s\n", fn && strstr(object_of(fn), "libcushim") ? "preloaded" : "absent");
	expect_untouched("before the first call");
	probe("first");
	printf("runtime after probes: %s\n", runtime_loaded() ? "loaded" : "none");
	work("process");
	printf("runtime after cuInit: %s\n", runtime_loaded() ? "loaded" : "none");
	return child_failures != 0;
}

static int child_fork(const char *arg)
{
	int st = 0;
	pid_t pid;

	probe("parent");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		work("child");
		fflush(stdout);
		_exit(0);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "the forked child failed (status %#x)", st);
	work("parent");
	fflush(stdout);
	if ((pid = fork()) == 0) { /* after the parent's cuInit: refused, with or without cushim */
		work("late child");
		fflush(stdout);
		_exit(0);
	}
	EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "the late child failed (status %#x)", st);
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
	return !fake_answers(name) && FAKE(fake_export)(name) != NULL;
}

/* arg: how many threads */
static int child_threads(const char *arg)
{
	int n = atoi(arg);
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
		/* before cuInit: the driver's own answer */
		EXPECT(rcs[t] == CUDA_ERROR_NOT_INITIALIZED, "%s returned %d", picked[t], (int)rcs[t]);
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

/* ---- loaded, not used ---- */
/* Every variable of the environment, one after another; their number in *n. */
static char *environment(int *n)
{
	size_t len = 1;
	*n = 0;
	for (char **e = environ; *e; e++)
		len += strlen(*e) + 1;
	char *all = calloc(1, len), *p = all;
	for (char **e = environ; *e; e++, ++*n)
		p += sprintf(p, "%s\n", *e);
	return all;
}

/* This process's timeline file: CUSHIM_TIMELINE's DIR/tl.%p.json with its pid. */
static void own_timeline(char *path, size_t size)
{
	const char *t = getenv("CUSHIM_TIMELINE"), *p = t ? strstr(t, "%p") : NULL;
	snprintf(path, size, "%.*s%ld%s", p ? (int)(p - t) : 0, p ? t : "", (long)getpid(), p ? p + 2 : "");
}

/* arg: "preload" (libcushim.so is in LD_PRELOAD) or "dlopen" (this child
 * opens it).  Nothing of cushim's has run, until the first call, which
 * marks the run and opens the timeline (CUSHIM_TIMELINE is named). */
static int child_loaded(const char *arg)
{
	void *h = RTLD_DEFAULT;
	CUresult (*version)(int *);
	int v = 0;
	char tl[4200];

	if (strcmp(arg, "dlopen") == 0) {
		int n0, n1;
		char **was = environ, *before = environment(&n0);
		h = dlopen(SHIM_SO, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		char *after = environment(&n1);
		EXPECT(environ == was && strcmp(before, after) == 0,
		       "opening libcushim.so changed the environment: %d variables, then %d (CUSHIM_RUN=%s)", n0, n1,
		       getenv("CUSHIM_RUN") ? getenv("CUSHIM_RUN") : "unset");
		free(before), free(after);
	}
	EXPECT(!getenv("CUSHIM_RUN"), "loading libcushim.so set CUSHIM_RUN=%s", getenv("CUSHIM_RUN"));
	own_timeline(tl, sizeof tl);
	EXPECT(access(tl, F_OK) != 0, "loading libcushim.so created the timeline %s", tl);
	fflush(stdout);
	(void)!write(2, FIRST_CALL, sizeof FIRST_CALL - 1);
	*(void **)&version = dlsym(h, "cuDriverGetVersion"); /* (RTLD_DEFAULT: the preloaded one) */
	EXPECT(version && strstr(object_of((void *)version), "libcushim"), "cuDriverGetVersion is not cushim's");
	EXPECT(version && version(&v) == CUDA_SUCCESS && v == 13000, "cuDriverGetVersion gave %d", v);
	EXPECT(getenv("CUSHIM_RUN") != NULL, "tracing started, and the run is not marked");
	EXPECT(access(tl, F_OK) == 0, "tracing started, and the timeline %s is not there", tl);
	return child_failures != 0;
}

/* ---- the tests ---- */
static void expect_child(const char *mode, const char *arg, const char *const env[], struct run *keep)
{
	struct run r;
	run_self(&r, mode, arg, env, 60);
	ck_assert_msg(r.code == 0, "child %s %s exited %d:\n%s\n%s", mode, arg, r.code, r.out, r.err);
	printf("%s", r.out);
	if (keep)
		*keep = r;
	else
		run_free(&r);
}

/* The lines of out that start with "... probes:" or "... works:". */
static char *answers(const char *out)
{
	char *keep = calloc(1, strlen(out) + 1);
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		const char *colon = memchr(l, ':', n);
		if (colon && (strncmp(colon - 6, "probes", 6) == 0 || strncmp(colon - 5, "works", 5) == 0))
			strncat(keep, l, n + (l[n] == '\n'));
	}
	return keep;
}

/* The same child with and without cushim: the same answers, line for line. */
static void expect_same_as_without(const char *mode, const char *path, const char *must)
{
	const char *const with[] = { "LD_PRELOAD=" SHIM_SO, path, NULL }, *const without[] = { path, NULL };
	struct run a, b;
	expect_child(mode, "", with, &a);
	expect_child(mode, "", without, &b);
	char *x = answers(a.out), *y = answers(b.out);
	ck_assert_msg(strcmp(x, y) == 0, "with cushim:\n%s\nwithout:\n%s", x, y);
	ck_assert_msg(strstr(x, must), "no line says \"%s\":\n%s", must, x);
	free(x), free(y), run_free(&a), run_free(&b);
}

START_TEST(check_nothing_reaches_the_driver_before_the_first_call)
{
	struct run r;
	const char *const env[] = ENV_13;
	expect_child("lazy", "", env, &r);
	ck_assert_msg(strstr(r.out, "shim preloaded"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "runtime after probes: none"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "runtime after cuInit: loaded"), "the program's cuInit adopted no runtime:\n%s",
		      r.out);
	run_free(&r);
}
END_TEST

START_TEST(check_calls_before_cuInit_answer_as_the_driver_does)
{
	expect_same_as_without("lazy", PATH_13,
			       "first probes: cuDriverGetVersion=0(13000) cuCtxGetCurrent=3 cuDeviceGetCount=3 cuDeviceGet=3");
}
END_TEST

START_TEST(check_probe_then_fork_child_uses_cuda_13)
{
	expect_same_as_without("fork", PATH_13, "child works: cuInit=0 cuDeviceGet=0 cuDevicePrimaryCtxRetain=0 cuMemAlloc=0");
}
END_TEST

START_TEST(check_probe_then_fork_child_uses_cuda_11)
{
	expect_same_as_without("fork", PATH_11, "child works: cuInit=0 cuDeviceGet=0 cuDevicePrimaryCtxRetain=0 cuMemAlloc=0");
}
END_TEST

START_TEST(check_64_threads_first_calls_bootstrap_once)
{
	struct run one, many;
	int n1 = -1, n64 = -1, t;
	const char *const env[] = ENV_13;
	expect_child("threads", "1", env, &one);
	expect_child("threads", "64", env, &many);
	ck_assert(sscanf(strstr(one.out, "threads="), "threads=%d lookups=%d", &t, &n1) == 2 && t == 1);
	ck_assert(sscanf(strstr(many.out, "threads="), "threads=%d lookups=%d", &t, &n64) == 2 && t == 64);
	ck_assert_msg(n64 == n1, "64 threads made %d lookups, one thread %d", n64, n1);
	run_free(&one);
	run_free(&many);
}
END_TEST

/* Loading libcushim.so runs nothing of it, preloaded or opened, with
 * CUSHIM_TIMELINE named: the environment stays as it was, and the audit
 * library sees its first lookup after the first call began, not before.
 * No audit library under valgrind or a sanitizer's runtime: the namespace
 * of its own takes static TLS that libtsan then lacks. */
START_TEST(check_loading_runs_nothing_of_cushim)
{
	char dir[] = "/tmp/cushim-loaded.XXXXXX", tl[64];
	const char *audit = getenv("CUSHIM_TEST_VALGRIND") || getenv("CUSHIM_TEST_PRELOAD_FIRST") ?
				    NULL : "LD_AUDIT=" SYMAUDIT;
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(tl, sizeof tl, "CUSHIM_TIMELINE=%s/tl.%%p.json", dir);
	for (int k = 0; k < 2; k++) {
		const char *const preload[] = { "LD_PRELOAD=" SHIM_SO, PATH_13, tl, audit, NULL };
		const char *const opened[] = { PATH_13, tl, audit, NULL };
		const char *how = k ? "dlopen" : "preload";
		struct run r;
		run_self(&r, "loaded", how, k ? opened : preload, 60);
		ck_assert_msg(r.code == 0, "%s: the child exited %d:\n%s\n%s", how, r.code, r.out, r.err);
		const char *first = strstr(r.err, FIRST_CALL), *seen = strstr(r.err, "symaudit: libcushim.so looked up");
		ck_assert_msg(first != NULL, "%s: the child did not reach its first call:\n%s", how, r.err);
		ck_assert_msg(!audit || (seen && seen > first),
			      "%s: libcushim.so looked up %s before the first driver call:\n%s", how,
			      seen ? "symbols" : "nothing even", r.err);
		printf("%s: nothing before the first call (the environment, the timeline%s)\n", how,
		       audit ? ", the lookups" : "; the lookups not watched: no audit library here");
		run_free(&r);
	}
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[4352];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "lazy", child_lazy }, { "fork", child_fork }, { "threads", child_threads },
		{ "loaded", child_loaded }, { NULL },
	};
	const TTest *const tests[] = { check_nothing_reaches_the_driver_before_the_first_call,
				       check_calls_before_cuInit_answer_as_the_driver_does,
				       check_probe_then_fork_child_uses_cuda_13,
				       check_probe_then_fork_child_uses_cuda_11,
				       check_64_threads_first_calls_bootstrap_once,
				       check_loading_runs_nothing_of_cushim, NULL };
	const struct harness_tcase tcases[] = { { "lazy", 120, tests, NULL }, { NULL } };
	return harness_main(argc, argv, children, "lazy", tcases);
}
