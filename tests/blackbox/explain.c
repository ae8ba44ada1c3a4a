/* The causes cushim names at run time, black box against the fake drivers
 * and runtimes, each said once with its text and never on success:
 *  - a forked child of a process that initialised CUDA (the program's own
 *    cuInit, or a runtime's, in LD_PRELOAD mode and in masquerade);
 *  - module images the fake driver refuses (FAKE_MODULE_REFUSE) with each
 *    code cushim explains, on a GPU of compute capability 9.0 (FAKE_GPU_CC);
 *  - a runtime of CUDA 13.0 under CUSHIM_DRIVER_VERSION=12.4 in masquerade,
 *    loaded (libcudart.so.13) or linked into the program (static-rt-app);
 *  - the timeline's instant event and the summary's "causes" section. */
#include <cuda.h>
#include "../harness/harness.h"
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- children ---- */
/* Through the runtime (fake-cudart.c), which initialises the driver. */
static int runtime_lookup(void)
{
	void *rt = dlopen("libcudart.so.13", RTLD_NOW);
	int (*get)(const char *, void **, unsigned long long, int *) = rt ? dlsym(rt, "cudaGetDriverEntryPoint") : NULL;
	void *fn = NULL;
	int st = -1;
	return get ? get("cuMemAlloc", &fn, 0, &st) : -1;
}

/* arg "own": the program's cuInit; "runtime": the runtime's; then fork and,
 * in the child, cuInit.  "quiet": initialised, forked, the child uses no CUDA. */
static int child_fork(const char *arg)
{
	int v = 0;
	cuDriverGetVersion(&v); /* cushim starts */
	if (strcmp(arg, "fresh") == 0) { /* fork first: the child may initialise */
		pid_t pid = fork();
		if (pid == 0)
			exit(cuInit(0) == CUDA_SUCCESS ? 0 : 1);
		int st = 0;
		waitpid(pid, &st, 0);
		printf("child exit %d\n", WEXITSTATUS(st));
		return 0;
	}
	printf("init %d\n", strcmp(arg, "runtime") == 0 ? runtime_lookup() : (int)cuInit(0));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (strcmp(arg, "quiet") != 0)
			printf("child cuInit %d, again %d\n", (int)cuInit(0), (int)cuInit(0));
		exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("parent cuInit %d\n", (int)cuInit(0));
	return 0;
}

/* A fatbin of one SASS image for sm_ARCH (its payload no cubin). */
static unsigned char fatbin[16 + 64 + 16];
static void *sass_fatbin(int arch)
{
	unsigned char *e = fatbin + 16;
	memcpy(fatbin, "\x50\xed\x55\xba\x01\x00\x10\x00", 8);
	fatbin[8] = 64 + 16;
	e[0] = 2;               /* SASS */
	e[4] = 64;              /* header size */
	e[8] = 16;              /* payload size */
	e[28] = (unsigned char)arch;
	e[40] = 0x11;           /* 64-bit, Linux */
	return fatbin;
}

static const char ptx99[] = ".version 9.9\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
static const char ptx80[] = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tbogus;\n}\n";

/* Loads the image the mode names twice (said once per image), once more
 * another way; prints the codes. */
static int child_module(const char *arg)
{
	CUmodule m;
	CUlinkState ls = NULL;
	char path[] = "/tmp/cushim-ptx.XXXXXX";
	int fd = mkstemp(path), r1 = -1, r2 = -1;
	if (fd < 0 || write(fd, ptx80, sizeof ptx80 - 1) != (ssize_t)(sizeof ptx80 - 1))
		return 3;
	close(fd);
	cuInit(0);
	for (int k = 0; k < 2; k++) {
		int r = -1;
		if (strcmp(arg, "sass100") == 0)
			r = cuModuleLoadData(&m, sass_fatbin(100));
		else if (strcmp(arg, "ptx99") == 0)
			r = cuModuleLoadDataEx(&m, ptx99, 0, NULL, NULL);
		else if (strcmp(arg, "ptx80") == 0)
			r = cuModuleLoadData(&m, ptx80);
		else if (strcmp(arg, "garbage") == 0)
			r = cuLibraryLoadData((CUlibrary *)&m, "garbage", NULL, NULL, 0, NULL, NULL, 0);
		else if (strcmp(arg, "source") == 0)
			r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)"xyz", 3, "x.ptx", 0, NULL, NULL);
		else if (strcmp(arg, "nojit") == 0)
			r = cuModuleLoad(&m, path);
		*(k ? &r2 : &r1) = r;
	}
	unlink(path);
	printf("rc %d %d\n", r1, r2);
	return 0;
}

/* Through the runtime in masquerade: its cuDriverGetVersion reaches cushim. */
static int child_runtime(const char *arg)
{
	printf("runtime %d\n", runtime_lookup());
	return 0;
}

/* ---- running them ---- */
static struct run preloaded(const char *mode, const char *arg, const char *v1, const char *v2)
{
	struct run r;
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT,
				    "FAKE_GPU_CC=9.0", v1, v2, NULL };
	run_self(&r, mode, arg, env, 30);
	return r;
}

/* cushim as the child's libcuda.so.1, in front of the fake 13.0 driver,
 * with the runtime rt ("13.0"). */
static struct run masquerade(const char *mode, const char *arg, const char *rt, const char *v1)
{
	char dir[] = "/tmp/cushim-masq.XXXXXX", link[4096], ld[4200];
	struct run r;
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s/rt-%s:%s", dir, FAKE_DIR, rt, NO_RT);
	const char *const env[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", v1, NULL };
	run_self(&r, mode, arg, env, 30);
	unlink(link);
	rmdir(dir);
	return r;
}

#define FORKED "returned CUDA_ERROR_NOT_INITIALIZED in process "
#define ADVICE "Initialise CUDA only after fork, in the child, or start workers with spawn or forkserver"

/* The child's one message: its parent's pid, where, what to do. */
static void assert_fork_message(const struct run *r, const char *where)
{
	char parent[64];
	ck_assert_msg(r->code == 0, "exit %d\n%s%s", r->code, r->out, r->err);
	ck_assert_msg(strstr(r->out, "child cuInit 3, again 3\n"), "%s", r->out);
	ck_assert_msg(strstr(r->out, "parent cuInit 0\n"), "%s", r->out);
	ck_assert_msg(count_lines_with(r->err, FORKED) == 1, "not said once:\n%s", r->err);
	ck_assert_msg(count_lines_with(r->err, ADVICE) == 1, "%s", r->err);
	ck_assert_msg(count_lines_with(r->err, where) == 1, "no %s in:\n%s", where, r->err);
	/* the parent is this test's child: its pid is the one that ran the mode */
	const char *p = strstr(r->err, "forked from process ");
	ck_assert_msg(p && sscanf(p, "forked from process %63[0-9]", parent) == 1, "%s", r->err);
	snprintf(parent, sizeof parent, "Process %d initialised CUDA", atoi(p + 20));
	ck_assert_msg(strstr(r->err, parent), "the parent's pid is not the one that initialised:\n%s", r->err);
	ck_assert_int_eq(count_lines_with(r->err, "cushim:"), 1);
}

START_TEST(check_fork_after_the_programs_cuinit_is_named_once)
{
	struct run r = preloaded("fork", "own", NULL, NULL);
	assert_fork_message(&r, "initialised CUDA through cuInit called from ");
	ck_assert_msg(strstr(r.err, "/tests/blackbox/explain"), "the program's frame is not named:\n%s", r.err);
	run_free(&r);
}
END_TEST

START_TEST(check_fork_after_a_runtimes_cuinit_is_named_preloaded)
{
	struct run r = preloaded("fork", "runtime", NULL, NULL);
	assert_fork_message(&r, "a call cushim did not see, with the CUDA runtime " RT("13.0") "/libcudart.so.13 loaded");
	run_free(&r);
}
END_TEST

START_TEST(check_fork_after_a_runtimes_cuinit_is_named_in_masquerade)
{
	struct run r = masquerade("fork", "runtime", "13.0", NULL);
	/* the runtime's own cuInit came through cushim: its frames are named
	 * (after a sanitizer's interceptor, in a sanitizer build) */
	assert_fork_message(&r, "initialised CUDA through cuInit called from ");
	ck_assert_msg(strstr(r.err, "called from ") && strstr(strstr(r.err, "called from "), RT("13.0") "/libcudart.so.13+0x"),
		      "the runtime's frames are not named:\n%s", r.err);
	run_free(&r);
}
END_TEST

START_TEST(check_fork_is_quiet_when_nothing_fails)
{
	struct run r = preloaded("fork", "quiet", NULL, NULL);
	ck_assert_msg(r.code == 0 && strstr(r.out, "parent cuInit 0\n"), "%s%s", r.out, r.err);
	ck_assert_msg(!strstr(r.err, "cushim:"), "%s", r.err);
	run_free(&r);
	r = preloaded("fork", "fresh", NULL, NULL);
	ck_assert_msg(strstr(r.out, "child exit 0\n"), "a child of an uninitialised process failed: %s", r.out);
	ck_assert_msg(!strstr(r.err, "cushim:"), "%s", r.err);
	run_free(&r);
}
END_TEST

/* ---- modules ---- */
static const struct {
	const char *mode, *code, *fn, *holds, *why;
} refusals[] = {
	{ "sass100", "209", "cuModuleLoadData returned CUDA_ERROR_NO_BINARY_FOR_GPU for a fatbin in memory at 0x",
	  "it holds SASS for sm_100; no PTX; none compressed.",
	  "It has no SASS for sm_90 and no PTX that can be compiled for it" },
	{ "ptx99", "222", "cuModuleLoadDataEx returned CUDA_ERROR_UNSUPPORTED_PTX_VERSION for PTX in memory at 0x",
	  "it holds no SASS; PTX ISA 9.9 for compute_90; none compressed.",
	  "Its only code for this GPU is PTX of ISA 9.9, newer than this driver compiles (ISA 9.0)" },
	{ "ptx80", "218", "cuModuleLoadData returned CUDA_ERROR_INVALID_PTX for PTX in memory at 0x",
	  "it holds no SASS; PTX ISA 8.0 for compute_90; none compressed.",
	  "The driver's PTX compiler rejected its PTX" },
	{ "garbage", "200", "cuLibraryLoadData returned CUDA_ERROR_INVALID_IMAGE for an image of unknown form in memory",
	  "it holds no SASS; no PTX; none compressed.",
	  "cushim cannot read it either: not a fatbin, a cubin, an ELF object or PTX." },
	{ "source", "300", "cuLinkAddData_v2 returned CUDA_ERROR_INVALID_SOURCE for an image of unknown form in memory",
	  "it holds no SASS; no PTX", "cushim cannot read it either" },
	{ "nojit", "221", "cuModuleLoad returned CUDA_ERROR_JIT_COMPILER_NOT_FOUND for /tmp/cushim-ptx.",
	  "it holds no SASS; PTX ISA 8.0 for compute_90; none compressed.",
	  "The driver cannot load its PTX JIT compiler (libnvidia-ptxjitcompiler.so.1)" },
};
#define NREFUSALS (int)(sizeof refusals / sizeof *refusals)

START_TEST(check_each_refused_image_is_explained_once)
{
	char refuse[64], rc[64];
	snprintf(refuse, sizeof refuse, "FAKE_MODULE_REFUSE=%s", refusals[_i].code);
	struct run r = preloaded("module", refusals[_i].mode, refuse, NULL);
	snprintf(rc, sizeof rc, "rc %s %s\n", refusals[_i].code, refusals[_i].code);
	ck_assert_msg(strstr(r.out, rc), "%s: %s%s", refusals[_i].mode, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, refusals[_i].fn) == 1, "%s:\n%s", refusals[_i].mode, r.err);
	ck_assert_msg(strstr(r.err, refusals[_i].holds), "%s:\n%s", refusals[_i].mode, r.err);
	ck_assert_msg(strstr(r.err, "This GPU is sm_90 and the driver CUDA 13.0, which compiles PTX up to ISA 9.0."),
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, refusals[_i].why), "%s:\n%s", refusals[_i].mode, r.err);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	run_free(&r);
	/* the same load succeeding says nothing */
	r = preloaded("module", refusals[_i].mode, NULL, NULL);
	ck_assert_msg(strstr(r.out, "rc 0 0\n") && !strstr(r.err, "cushim:"), "%s%s", r.out, r.err);
	run_free(&r);
}
END_TEST

/* ---- the runtime's gate ---- */
#define GATE "cuDriverGetVersion answers CUDA 12.4 (emulated by CUSHIM_DRIVER_VERSION; the driver is CUDA 13.0), " \
	"but the CUDA runtime 13.0 in " RT("13.0") "/libcudart.so.13 needs a driver of CUDA 13.0 or later (branch 580 " \
	"or later) and refuses this one (cudaErrorInsufficientDriver). cushim cannot lift that gate"

START_TEST(check_a_runtime_refusing_the_emulated_driver_is_named)
{
	struct run r = masquerade("runtime", "", "13.0", "CUSHIM_DRIVER_VERSION=12.4");
	ck_assert_msg(strstr(r.out, "runtime 35\n"), "the runtime did not refuse: %s%s", r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, GATE) == 1, "%s", r.err);
	ck_assert_msg(strstr(r.err, "Unset CUSHIM_DRIVER_VERSION or set it to 13.0 or later"), "%s", r.err);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	run_free(&r);
	r = masquerade("runtime", "", "13.0", NULL); /* not emulated: accepted, nothing said */
	ck_assert_msg(strstr(r.out, "runtime 0\n") && !strstr(r.err, "cushim:"), "%s%s", r.out, r.err);
	run_free(&r);
	r = masquerade("runtime", "", "13.0", "CUSHIM_DRIVER_VERSION=13.0");
	ck_assert_msg(strstr(r.out, "runtime 0\n") && !strstr(r.err, "cushim:"), "%s%s", r.out, r.err);
	run_free(&r);
}
END_TEST

START_TEST(check_a_runtime_linked_statically_is_named)
{
	char dir[] = "/tmp/cushim-masq.XXXXXX", link[4096], ld[4200];
	struct run r;
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", dir, NO_RT);
	const char *const argv[] = { ABS_TOP_BUILDDIR "/tests/blackbox/static-rt-app", NULL };
	const char *const env[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", "CUSHIM_DRIVER_VERSION=12.4",
				    NULL };
	run_child(&r, argv, env, 30);
	ck_assert_msg(strstr(r.out, "driver 12040\n"), "%s%s", r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, "but the CUDA runtime 13.0 linked statically into " ABS_TOP_BUILDDIR
				       "/tests/blackbox/static-rt-app needs a driver of CUDA 13.0") == 1, "%s", r.err);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	run_free(&r);
	const char *const env13[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", NULL };
	run_child(&r, argv, env13, 30); /* not emulated: accepted, nothing said */
	ck_assert_msg(strstr(r.out, "driver 13000\n") && !strstr(r.err, "cushim:"), "%s%s", r.out, r.err);
	run_free(&r);
	unlink(link);
	rmdir(dir);
}
END_TEST

/* ---- the timeline and the summary ---- */
START_TEST(check_a_cause_reaches_the_timeline_and_the_summary)
{
	char dir[] = "/tmp/cushim-cause.XXXXXX", tl[256], js[256], vtl[300], vjs[300];
	ck_assert(mkdtemp(dir));
	snprintf(tl, sizeof tl, "%s/t.json", dir);
	snprintf(js, sizeof js, "%s/s.json", dir);
	snprintf(vtl, sizeof vtl, "CUSHIM_TIMELINE=%s", tl);
	snprintf(vjs, sizeof vjs, "CUSHIM_SUMMARY=%s", js);
	struct run r = preloaded("module", "sass100", "FAKE_MODULE_REFUSE=209", vtl);
	run_free(&r);
	r = preloaded("module", "sass100", "FAKE_MODULE_REFUSE=209", vjs);
	run_free(&r);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "grep -c '\"name\":\"cushim: module\",\"cat\":\"cause\",\"ph\":\"i\"' %s", tl);
	FILE *p = popen(cmd, "r");
	int n = 0;
	ck_assert(p && fscanf(p, "%d", &n) == 1);
	pclose(p);
	ck_assert_msg(n == 1, "%d instant events in %s", n, tl);
	snprintf(cmd, sizeof cmd, "python3 -c \"import json,sys; d=json.load(open('%s')); "
		 "c=d['causes']; sys.exit(not (len(c)==1 and c[0]['cause']=='module' and "
		 "'NO_BINARY_FOR_GPU' in c[0]['message']))\"", js);
	ck_assert_msg(system(cmd) == 0, "no module cause in the summary %s", js);
	unlink(tl);
	unlink(js);
	rmdir(dir);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "fork", child_fork }, { "module", child_module }, { "runtime", child_runtime }, { NULL },
	};
	const TTest *const fork_[] = { check_fork_after_the_programs_cuinit_is_named_once,
				       check_fork_after_a_runtimes_cuinit_is_named_preloaded,
				       check_fork_after_a_runtimes_cuinit_is_named_in_masquerade,
				       check_fork_is_quiet_when_nothing_fails, NULL };
	const TTest *const module[] = { check_each_refused_image_is_explained_once,
					check_a_cause_reaches_the_timeline_and_the_summary, NULL };
	const struct harness_loop each[] = { { check_each_refused_image_is_explained_once, NREFUSALS }, { NULL } };
	const TTest *const runtime[] = { check_a_runtime_refusing_the_emulated_driver_is_named,
					 check_a_runtime_linked_statically_is_named, NULL };
	const struct harness_tcase tcases[] = {
		{ "Fork", 60, fork_, NULL },
		{ "Module", 60, module, each },
		{ "Runtime", 60, runtime, NULL },
		{ NULL },
	};
	return harness_main(argc, argv, children, "explain", tcases);
}
