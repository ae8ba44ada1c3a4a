/* The runtime gate of masquerade (cuDriverGetVersion's answer judged
 * against the CUDA runtimes in the process, src/shim/explain-runtime.c),
 * with cushim as the child's libcuda.so.1 in front of the fake 13.0 driver:
 *  - a thread calls cuDriverGetVersion in a loop while the main thread
 *    dlopens, 20 times, a library whose constructor calls it (the loader's
 *    lock held) while that thread's call is under way (asker-lib.c): no
 *    deadlock, 5 runs of 5, each under a timeout;
 *  - a program that made a page of its read-only data PROT_NONE runs, and
 *    the runtime linked into it, whose marks lie after that page and across
 *    a 4 KiB boundary, is still named when it refuses; made unreadable, the
 *    marks are absent: nothing is said;
 *  - the gate judges once: 1000 calls with two runtimes loaded make no
 *    realpath; and again after a load: a runtime loaded after the first
 *    call is named when it refuses, at its own first call, and at a call
 *    that comes through another object (cushim's trace) while it has not
 *    asked. */
#include "cuda-all.h"
#include "../harness/harness.h"
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBASKER ABS_TOP_BUILDDIR "/tests/hardening/libasker.so"
#define GUARD_APP ABS_TOP_BUILDDIR "/tests/hardening/guard-app"
#define REFUSED "cuDriverGetVersion answers CUDA 12.4 (emulated by CUSHIM_DRIVER_VERSION; the driver is CUDA 13.0), "
#define RT13 RT("13.0") "/libcudart.so.13"

/* ---- what cushim calls, counted: this program exports realpath, and
 * asker_calls (-rdynamic) ---- */
static long n_realpath;

char *realpath(const char *path, char *resolved)
{
	static char *(*next)(const char *, char *);
	if (!next)
		next = (char *(*)(const char *, char *))dlsym(RTLD_NEXT, "realpath");
	__atomic_add_fetch(&n_realpath, 1, __ATOMIC_RELAXED);
	return next(path, resolved);
}

/* ---- children ---- */
static int stop, failures;
long asker_calls; /* read by libasker.so's constructor */

static void *ask_in_a_loop(void *arg)
{
	int v = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (cuDriverGetVersion(&v) != CUDA_SUCCESS || v != 13000)
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&asker_calls, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A thread asks in a loop; the main thread loads and unloads libasker.so,
 * whose constructor asks too, while that thread's call is under way. */
static int child_dlopen_loop(const char *arg)
{
	pthread_t th;
	int v = 0, bad_ctor = 0, rounds = 20;

	cuDriverGetVersion(&v); /* cushim starts */
	pthread_create(&th, NULL, ask_in_a_loop, NULL);
	while (__atomic_load_n(&asker_calls, __ATOMIC_ACQUIRE) < 100)
		;
	for (int k = 0; k < rounds; k++) {
		void *h = dlopen(LIBASKER, RTLD_NOW | RTLD_LOCAL);
		const int *rc = h ? dlsym(h, "asker_rc") : NULL, *got = h ? dlsym(h, "asker_v") : NULL;
		if (!rc || !got || *rc != CUDA_SUCCESS || *got != 13000)
			bad_ctor++;
		if (h)
			dlclose(h);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("rounds=%d calls=%ld failures=%d constructor_failures=%d\n", rounds, asker_calls, failures, bad_ctor);
	return failures || bad_ctor;
}

/* Two runtimes loaded, one call to judge; then 1000 calls, counted. */
static int child_calls(const char *arg)
{
	int v = 0;
	long rp;

	if (!dlopen(RT("12.0") "/libcudart.so.12", RTLD_NOW) || !dlopen(RT13, RTLD_NOW)) {
		printf("cannot load the fake runtimes: %s\n", dlerror());
		return 1;
	}
	cuDriverGetVersion(&v);
	rp = __atomic_load_n(&n_realpath, __ATOMIC_RELAXED);
	for (int k = 0; k < 1000; k++)
		cuDriverGetVersion(&v);
	printf("1000 calls: realpath %ld\n", __atomic_load_n(&n_realpath, __ATOMIC_RELAXED) - rp);
	return 0;
}

/* A call, then the runtime loaded; arg "own": the runtime asks (its own
 * first call); "again": the program asks once more, the runtime not. */
static int child_later(const char *arg)
{
	int v = 0, (*get)(const char *, void **, unsigned long long, int *);
	void *rt, *fn = NULL;

	cuDriverGetVersion(&v);
	printf("before %d\n", v);
	fflush(stdout);
	if (!(rt = dlopen(RT13, RTLD_NOW)) ||
	    !(get = (int (*)(const char *, void **, unsigned long long, int *))dlsym(rt, "cudaGetDriverEntryPoint")))
		return 1;
	if (strcmp(arg, "again") == 0) {
		cuDriverGetVersion(&v);
		printf("again %d\n", v);
	} else {
		printf("runtime %d\n", get("cuMemAlloc", &fn, 0, NULL));
	}
	return 0;
}

/* ---- running them ---- */
/* cushim as the child's libcuda.so.1 in front of the fake 13.0 driver. */
static struct run masquerade(const char *mode, const char *arg, const char *v1, const char *v2, int timeout_s)
{
	char dir[] = "/tmp/cushim-gate.XXXXXX", link[4096], ld[4200];
	struct run r;
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", dir, NO_RT);
	const char *const env[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", v1, v2, NULL };
	if (strcmp(mode, "guard") == 0) {
		const char *const argv[] = { GUARD_APP, arg, NULL };
		run_child(&r, argv, env, timeout_s);
	} else {
		run_self(&r, mode, arg, env, timeout_s);
	}
	unlink(link);
	rmdir(dir);
	return r;
}

START_TEST(a_constructor_asks_while_a_thread_asks)
{
	for (int k = 1; k <= 5; k++) {
		struct run r = masquerade("dlopen-loop", "", NULL, NULL, 20);
		ck_assert_msg(r.code == 0, "run %d of 5 %s (status %d):\n%.1000s\n%.1000s", k,
			      r.code < 0 ? "deadlocked (killed after 20 s)" : "failed", r.code, r.out, r.err);
		ck_assert_msg(!strstr(r.err, "cushim:"), "%s", r.err);
		printf("run %d of 5: %s", k, r.out);
		run_free(&r);
	}
}
END_TEST

START_TEST(a_page_of_the_program_made_prot_none)
{
	struct run r = masquerade("guard", "before", "CUSHIM_DRIVER_VERSION=12.4", NULL, 30);
	if (r.code == 77) {
		printf("SKIP a_page_of_the_program_made_prot_none: %s", r.out);
		run_free(&r);
		return;
	}
	printf("a page before the marks: status %d: %s%s", r.code, r.out, r.err);
	ck_assert_msg(r.code == 0 && strstr(r.out, "driver 12040\n"), "status %d: %s%s", r.code, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, REFUSED "but the CUDA runtime 13.0 linked statically into " GUARD_APP
				       " needs a driver of CUDA 13.0") == 1, "%s", r.err);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	run_free(&r);
	r = masquerade("guard", "marks", "CUSHIM_DRIVER_VERSION=12.4", NULL, 30);
	printf("the marks' page: status %d: %s%s", r.code, r.out, r.err);
	ck_assert_msg(r.code == 0 && strstr(r.out, "driver 12040\n") && !strstr(r.err, "cushim:"), "status %d: %s%s",
		      r.code, r.out, r.err);
	run_free(&r);
	r = masquerade("guard", "before", NULL, NULL, 30); /* not emulated: accepted, nothing said */
	ck_assert_msg(r.code == 0 && strstr(r.out, "driver 13000\n") && !strstr(r.err, "cushim:"), "status %d: %s%s",
		      r.code, r.out, r.err);
	run_free(&r);
}
END_TEST

START_TEST(judged_once_and_again_after_a_load)
{
	long rp = -1;
	struct run r = masquerade("calls", "", NULL, NULL, 30);
	const char *line = strstr(r.out, "1000 calls: ");
	ck_assert_msg(r.code == 0 && line && sscanf(line, "1000 calls: realpath %ld", &rp) == 1,
		      "status %d: %s%s", r.code, r.out, r.err);
	printf("two runtimes loaded, %s", line);
	ck_assert_msg(rp == 0, "judged again on every call: %s", line);
	run_free(&r);
	/* the runtime's own first call */
	r = masquerade("later", "own", "CUSHIM_DRIVER_VERSION=12.4", NULL, 30);
	printf("a runtime loaded after the first call, its own call: %s", r.out);
	ck_assert_msg(r.code == 0 && strstr(r.out, "runtime 35\n"), "status %d: %s%s", r.code, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, REFUSED "but the CUDA runtime 13.0 in " RT13) == 1, "%s", r.err);
	run_free(&r);
	/* a call through another object (cushim's trace): judged again */
	r = masquerade("later", "again", "CUSHIM_DRIVER_VERSION=12.4", "CUSHIM_LOG=trace", 30);
	printf("a runtime loaded after the first call, a call through the trace: %s", r.out);
	ck_assert_msg(r.code == 0 && strstr(r.out, "again 12040\n"), "status %d: %s%s", r.code, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, REFUSED "but the CUDA runtime 13.0 in " RT13) == 1, "%s", r.err);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "dlopen-loop", child_dlopen_loop }, { "calls", child_calls }, { "later", child_later }, { NULL },
	};
	const TTest *const tests[] = { a_constructor_asks_while_a_thread_asks, a_page_of_the_program_made_prot_none,
				       judged_once_and_again_after_a_load, NULL };
	const struct harness_tcase tcases[] = { { "gate", 300, tests, NULL }, { NULL } };
	return harness_main(argc, argv, children, "gate", tcases);
}
