/* Shared by cushim's black-box tests: run a child with a chosen fake driver,
 * runtime and LD_PRELOAD; read the oracle files; read ELF dynamic symbols;
 * reach the fakes' counters.  Nothing here uses cushim's own code or table. */
#ifndef CUSHIM_TEST_HARNESS_H
#define CUSHIM_TEST_HARNESS_H
#include <config.h>
#include "../fake/fake.h"
#include <stddef.h>

/* Paths fixed when this build was configured (config.h). */
#define SHIM_SO ABS_TOP_BUILDDIR "/.libs/libcushim.so"
#define FAKE_DIR ABS_TOP_BUILDDIR "/tests/fake"
#define DRV(level) FAKE_DIR "/drv-" level
#define RT(level) FAKE_DIR "/rt-" level
/* Last on every child's LD_LIBRARY_PATH: the runtime sonames as libraries
 * that never load, so that the machine's own libcudart stays out. */
#define NO_RT FAKE_DIR "/no-rt"
#define ORACLE_TSV ABS_TOP_SRCDIR "/tests/oracle/cuGetProcAddress-driver-580.159.04.tsv"
#define ORACLE_EXPORTS ABS_TOP_SRCDIR "/tests/oracle/libcuda-580.159.04-exports.txt"

/* ---- children ---- */
struct run {
	int code;  /* exit status; 128+signal if killed; -1 if it timed out */
	char *out; /* its stdout and stderr, NUL-terminated */
	char *err;
};
/* Run argv with the environment of this process minus LD_PRELOAD,
 * LD_LIBRARY_PATH and every CUSHIM_* variable, plus env ("NAME=value", NULL
 * terminated).  Kills it after timeout_s seconds.  With CUSHIM_TEST_PRELOAD_FIRST
 * set (a sanitizer's runtime), it is put first in the LD_PRELOAD of env. */
void run_child(struct run *r, const char *const argv[], const char *const env[], int timeout_s);
void run_free(struct run *r);
/* argv as this machine runs a program of this build: behind EXE_WRAPPER's
 * words when it is set (a cross build: the emulator), else argv itself.
 * Made before a fork or vfork; never freed. */
char *const *target_argv(const char *const argv[]);
/* Run this very program again: argv = {/proc/self/exe, "--child", mode, arg}. */
void run_self(struct run *r, const char *mode, const char *arg, const char *const env[], int timeout_s);
/* Number of lines of text that contain needle. */
int count_lines_with(const char *text, const char *needle);

/* ---- the oracle (parsed here, independently of the fake and of cushim) ---- */
/* The exported name cuGetProcAddress_v2 returned on the real driver for
 * (symbol, version, flags), NULL for a NULL pointer; *result and *status as
 * measured (status -1: untouched). */
const char *oracle_answer(const char *symbol, int version, unsigned long long flags, int *result, int *status);
/* The first cudaVersion at which the real driver returns name with status 0;
 * 0 if it never does. */
int oracle_first_version(const char *name);
/* "12.5" for 12050. */
const char *version_text(int v, char buf[16]);

/* ---- ELF ---- */
/* The dynamic symbols of an ELF file: every defined global (defined = 1) or
 * the undefined function references (defined = 0).  Returns the count; *names is a
 * malloc'd array of malloc'd names; -1 if the file cannot be read. */
int elf_dynamic_symbols(const char *path, int defined, char ***names);
int has_name(char **names, int n, const char *name);
/* Whether path is an ELF file for the machine this test was built for (a
 * toolkit's libraries are the build machine's in a cross build). */
int elf_for_this_machine(const char *path);

/* ---- in a child: the fakes' own counters ---- */
/* A symbol of the libcuda.so.1 this process loaded (NULL if it is not a fake). */
void *fake_sym(const char *name);
/* A symbol of a loaded runtime (soname, e.g. "libcudart.so.13"), NULL if not loaded. */
void *fake_rt_sym(const char *soname, const char *name);
#define FAKE(fn) ((fn##_fn)fake_sym(#fn))
/* Whether the fake driver's export name answers (cuInit, cuDriverGetVersion,
 * ...) rather than only record its call and return 0. */
int fake_answers(const char *name);
/* The shared object a function lives in ("" if unknown). */
const char *object_of(const void *fn);

/* A new folder (dir is a mkdtemp template) whose libcuda.so.1 is a link to
 * cushim, as masquerade mode sets up; link gets its path.  The caller
 * removes both. */
void shim_as_libcuda(char dir[], char link[4096]);

/* ---- a suite program's main ---- */
#include <check.h>
#if CHECK_MAJOR_VERSION == 0 && CHECK_MINOR_VERSION < 13
#error "the test harness needs Check 0.13 or later (tests as TTest pointers)"
#endif
/* A mode of this program run again as a child (run_self): run gets the
 * argument after the mode ("" if none) and returns the exit status. */
struct harness_child {
	const char *mode;
	int (*run)(const char *arg);
};
/* A loop test: run runs times, _i from 0 to runs - 1. */
struct harness_loop {
	const TTest *test;
	int runs;
};
/* A test case: tests in order (ended by NULL), each of which may take
 * timeout_s seconds (0: Check's default); those of them in loops (ended by
 * { NULL }; may be NULL) are loop tests, the others run once. */
struct harness_tcase {
	const char *name;
	int timeout_s;
	const TTest *const *tests;
	const struct harness_loop *loops;
};
/* argv[0] of this program as it was started. */
extern const char *harness_self;
/* The whole main of a suite program.  With --child MODE [ARG]: the run of
 * that mode in children (ended by { NULL }; may be NULL), stdout
 * line-buffered, or 2 for an unknown mode.  Else: runs the Check suite
 * named suite made of tcases (ended by { NULL }), printing every test, and
 * returns the exit status for Automake (0 every test passed, 1 one failed). */
int harness_main(int argc, char **argv, const struct harness_child children[], const char *suite,
		 const struct harness_tcase tcases[]);

/* Child-side assertion: prints and counts, the parent checks the exit code. */
extern int child_failures;
#define EXPECT(cond, ...)                                                                     \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			child_failures++;                                                     \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
			printf(__VA_ARGS__);                                                  \
			printf("\n");                                                         \
		}                                                                             \
	} while (0)
#endif
