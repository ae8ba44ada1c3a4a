/* The diagnostic mode, black box against the fake drivers:
 *  - the trace line format, against a golden file written by hand;
 *  - no torn or lost lines with 16 threads tracing at once, to a file and a pipe;
 *  - the summary counts exactly the calls made, from several threads;
 *  - emulating 12.0 on the fake 13.0 driver gives what the fake 12.0 gives;
 *  - CUSHIM_HIDE; masquerade tracing a program that dlopens libcuda.so.1;
 *  - masquerade with no driver anywhere; an unwritable log file;
 *  - each bad value: one warning naming the variable, and the program runs;
 *  - CUSHIM_LOG_FILE with %p across fork: a file per process, nothing twice;
 *  - the trace's clock (the TSC, AArch64's counter) keeps time with the wall.
 * The failing call they trace is cuCtxCreate_v4 on the 12.0 fake, with the
 * downgrade adapters off (CUSHIM_ADAPT=0): with them, it would be served. */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include "../harness/harness.h"
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LEGACY ABS_TOP_BUILDDIR "/tests/demo/newer-app"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The golden line as a regex: placeholders become patterns, the rest literal. */
static void golden_regex(const char *line, regex_t *re)
{
	static const struct { const char *ph, *rx; } subs[] = {
		{ "<T>", "[0-9]+\\.[0-9]{6}" }, { "<PID>", "[0-9]+" }, { "<TID>", "[0-9]+" },
		{ "<HEX>", "0x[0-9a-f]+" }, { "<US>", "[0-9]+\\.[0-9]{3}" },
	};
	char rx[4096] = "^";
	size_t o = 1;
	for (const char *p = line; *p && o < sizeof rx - 64;) {
		int done = 0;
		for (size_t k = 0; k < sizeof subs / sizeof *subs; k++)
			if (strncmp(p, subs[k].ph, strlen(subs[k].ph)) == 0) {
				o += (size_t)snprintf(rx + o, sizeof rx - o, "%s", subs[k].rx);
				p += strlen(subs[k].ph);
				done = 1;
				break;
			}
		if (done)
			continue;
		if (strchr(".[]()*+?{}|^$\\", *p))
			rx[o++] = '\\';
		rx[o++] = *p++;
	}
	rx[o++] = '$';
	rx[o] = '\0';
	ck_assert_msg(regcomp(re, rx, REG_EXTENDED | REG_NOSUB) == 0, "bad regex %s", rx);
}

/* ---- children ---- */
static int child_format(const char *arg)
{
	CUdeviceptr p = 0;
	CUfunction f;
	CUcontext c;
	int v;
	cuInit(0);
	cuMemAlloc(&p, 1048576);
	cuMemsetD32((CUdeviceptr)0xdeadbeef00ULL, 7, 16);
	cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, -1);
	cuModuleGetFunction(&f, (CUmodule)0x1234, "saxpy");
	cuModuleGetGlobal(NULL, NULL, (CUmodule)0xabc, "a \"quoted\"\nname");
	cuParamSetf((CUfunction)0x42, 8, 2.5f);
	cuMemsetD8(0, 255, (size_t)-1);
	cuCtxCreate(&c, NULL, 0, 0); /* on the fake 12.0 driver: missing */
	return 0;
}

#define NTHREADS 16
#define NCALLS 2000
static void *hammer(void *arg)
{
	CUcontext c;
	for (int i = 0; i < NCALLS; i++)
		cuCtxGetCurrent(&c);
	(void)arg;
	return NULL;
}

static int child_threads(const char *arg)
{
	pthread_t t[NTHREADS];
	cuInit(0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	/* and a few failing calls from the main thread */
	for (int i = 0; i < 5; i++)
		cuCtxCreate_v4(NULL, NULL, 0, 0);
	return 0;
}

/* The name of the export fn is, "null" or "other". */
static const char *export_name(void *fn)
{
	static const char *const names[] = { "cuCtxCreate", "cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate_v4" };
	if (!fn)
		return "null";
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		if (fn == dlsym(RTLD_DEFAULT, names[i]))
			return names[i];
	return "other";
}

/* What a program sees of the driver's version and lookups: "gpa SYMBOL
 * VERSION result status export" a line. */
static int child_emulate(const char *arg)
{
	static const struct { const char *symbol; int version; } asks[] = {
		{ "cuCtxCreate", 13050 }, { "cuCtxCreate", 12050 }, { "cuCtxCreate", 3020 },
		{ "cuCtxFromGreenCtx", 12000 }, { "cuCtxFromGreenCtx", 13000 },
	};
	int v = 0;
	cuDriverGetVersion(&v);
	printf("version %d\n", v);
	for (unsigned i = 0; i < sizeof asks / sizeof *asks; i++) {
		void *fn = (void *)1;
		CUdriverProcAddressQueryResult st = -1;
		CUresult r = cuGetProcAddress_v2(asks[i].symbol, &fn, asks[i].version, 0, &st);
		printf("gpa %s %d %d %d %s\n", asks[i].symbol, asks[i].version, (int)r, (int)st,
		       r == CUDA_SUCCESS ? export_name(fn) : "untouched");
	}
	return 0;
}

/* Two calls 300 ms apart (the trace's times must say so). */
static int child_clock(const char *arg)
{
	CUcontext c;
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	cuInit(0);
	cuCtxGetCurrent(&c);
	nanosleep(&pause, NULL);
	cuCtxGetCurrent(&c);
	return 0;
}

static int child_plain(const char *arg)
{
	CUcontext c;
	cuInit(0);
	printf("rc %d\n", (int)cuCtxGetCurrent(&c));
	return 0;
}

static int child_fork(const char *arg)
{
	CUcontext c;
	cuInit(0);
	cuCtxGetCurrent(&c);
	pid_t pid = fork();
	if (pid == 0) {
		cuDeviceGetCount(NULL);
		exit(0); /* _exit would lose the child's buffered lines: see the README */
	}
	waitpid(pid, NULL, 0);
	cuCtxSynchronize();
	printf("child %d\n", (int)pid);
	return 0;
}

/* ---- tests ---- */
/* This program run again in mode, with cushim on the fake 13.0 driver and
 * the variables var and more ("NAME=value"; NULL: none). */
static struct run run_on_13(const char *mode, const char *var, const char *more)
{
	struct run r;
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, var, more, NULL };
	run_self(&r, mode, "", env, 30);
	return r;
}

START_TEST(check_trace_line_format_matches_the_golden_file)
{
	struct run r;
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("12.0") ":" NO_RT,
				    "CUSHIM_LOG=trace", "CUSHIM_ADAPT=0", NULL };
	char *golden = slurp(ABS_TOP_SRCDIR "/tests/blackbox/trace-format.golden"), *save = NULL;
	run_self(&r, "format", "", env, 30);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
	/* the trace lines of the child, in order (the missing warning aside) */
	char *lines[64];
	int n = 0;
	for (char *l = strtok_r(r.err, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		if (strncmp(l, "cushim: ", 8) == 0 && l[8] >= '0' && l[8] <= '9')
			lines[n++] = l; /* trace lines; the info story and warnings aside */
	int k = 0;
	save = NULL;
	for (char *g = strtok_r(golden, "\n", &save); g; g = strtok_r(NULL, "\n", &save)) {
		regex_t re;
		if (*g == '#')
			continue;
		ck_assert_msg(k < n, "trace ends before: %s", g);
		golden_regex(g, &re);
		ck_assert_msg(regexec(&re, lines[k], 0, NULL, 0) == 0, "line %d\n  is: %s\nwant: %s", k, lines[k], g);
		regfree(&re);
		k++;
	}
	ck_assert_int_eq(k, n);
	free(golden);
	run_free(&r);
}
END_TEST

static void check_lines(const char *text, long want_ok, long want_err)
{
	regex_t re;
	long ok = 0, err = 0, other = 0;
	const char *p = text;
	ck_assert(regcomp(&re, "^cushim: [0-9]+\\.[0-9]{6} [0-9]+ [0-9]+ cu[A-Za-z_0-9]+\\(.*\\) = [A-Z_]+ [0-9]+\\.[0-9]{3} us$",
			  REG_EXTENDED | REG_NOSUB) == 0);
	while (*p) {
		const char *e = strchr(p, '\n');
		char line[1024];
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (regexec(&re, line, 0, NULL, 0) == 0) {
			if (strstr(line, " cuCtxGetCurrent(pctx=0x") && strstr(line, ") = CUDA_SUCCESS "))
				ok++;
			else if (strstr(line, " cuCtxCreate_v4(") && strstr(line, "CALL_REQUIRES_NEWER_DRIVER"))
				err++;
			else if (!strstr(line, " cuInit(") && !strstr(line, " cuDriverGetVersion("))
				other++;
		} else if (strncmp(line, "cushim: ", 8) != 0 || (line[8] >= '0' && line[8] <= '9')) {
			other++; /* a torn trace line: not a message of cushim's own either */
			fprintf(stderr, "torn or foreign line: %s\n", line);
		}
		p = e ? e + 1 : p + n;
	}
	regfree(&re);
	ck_assert_int_eq(ok, want_ok);
	ck_assert_int_eq(err, want_err);
	ck_assert_int_eq(other, 0);
}

START_TEST(check_no_torn_lines_with_16_threads_to_a_file)
{
	char path[] = "/tmp/cushim-trace.XXXXXX", var[64];
	int fd = mkstemp(path);
	struct run r;
	close(fd);
	unlink(path); /* cushim creates it, mode 0600 */
	snprintf(var, sizeof var, "CUSHIM_LOG_FILE=%s", path);
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("12.0") ":" NO_RT,
				    "CUSHIM_LOG=trace", "CUSHIM_ADAPT=0", var, NULL };
	run_self(&r, "threads", "", env, 60);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
	char *log = slurp(path);
	struct stat st;
	ck_assert(log != NULL);
	ck_assert(stat(path, &st) == 0);
	ck_assert_msg((st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	check_lines(log, NTHREADS * NCALLS, 5);
	free(log);
	unlink(path);
	run_free(&r);
}
END_TEST

/* The threads child on the 12.0 driver, its log on stderr (a pipe) at
 * level: ok_calls lines of the calls that succeed, 5 of those that fail. */
static void threads_to_a_pipe(const char *level, int ok_calls)
{
	struct run r;
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("12.0") ":" NO_RT, level,
				    "CUSHIM_ADAPT=0", NULL };
	run_self(&r, "threads", "", env, 60);
	ck_assert_msg(r.code == 0, "exit %d", r.code);
	check_lines(r.err, ok_calls, 5);
	run_free(&r);
}

START_TEST(check_no_torn_lines_with_16_threads_to_a_pipe)
{
	threads_to_a_pipe("CUSHIM_LOG=trace", NTHREADS * NCALLS);
}
END_TEST

START_TEST(check_errors_level_logs_only_failing_calls)
{
	threads_to_a_pipe("CUSHIM_LOG=errors", 0);
}
END_TEST

START_TEST(check_trace_clock_keeps_time_with_the_wall)
{
	struct run r = run_on_13("clock", "CUSHIM_LOG=trace", NULL);
	double t[2] = { -1, -1 };
	int n = 0;
	ck_assert_msg(r.code == 0, "exit %d", r.code);
	for (const char *l = r.err; l && *l && n < 2; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *eol = strchr(l, '\n'), *call = strstr(l, " cuCtxGetCurrent(");
		if (call && (!eol || call < eol))
			ck_assert(sscanf(l, "cushim: %lf", &t[n++]) == 1);
	}
	ck_assert_msg(n == 2, "two traced cuCtxGetCurrent calls wanted:\n%s", r.err);
	/* slept 300 ms; a clock off by its frequency is off by far more */
	ck_assert_msg(t[0] >= 0 && t[1] - t[0] >= 0.29 && t[1] - t[0] < 3.0, "the calls are %.6f s apart:\n%s",
		      t[1] - t[0], r.err);
	run_free(&r);
}
END_TEST

/* "name": "X", "calls": N */
static long json_calls(const char *json, const char *name)
{
	char key[128];
	const char *p;
	snprintf(key, sizeof key, "\"name\": \"%s\", \"calls\": ", name);
	p = strstr(json, key);
	return p ? atol(p + strlen(key)) : -1;
}

START_TEST(check_summary_counts_equal_the_calls_made)
{
	char path[] = "/tmp/cushim-summary.XXXXXX.json", var[80];
	int fd = mkstemps(path, 5);
	struct run r;
	close(fd);
	snprintf(var, sizeof var, "CUSHIM_SUMMARY=%s", path);
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("12.0") ":" NO_RT, var,
				    "CUSHIM_ADAPT=0", NULL };
	run_self(&r, "threads", "", env, 60);
	ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
	char *json = slurp(path);
	ck_assert(json != NULL);
	ck_assert_int_eq(json_calls(json, "cuCtxGetCurrent"), NTHREADS * NCALLS);
	ck_assert_int_eq(json_calls(json, "cuCtxCreate_v4"), 5);
	ck_assert_msg(strstr(json, "\"name\": \"cuCtxCreate_v4\", \"calls\": 5, \"errors\": 5"), "%s", json);
	free(json);
	unlink(path);
	run_free(&r);
	/* and the table on stderr */
	const char *const env2[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("12.0") ":" NO_RT,
				     "CUSHIM_SUMMARY=1", "CUSHIM_ADAPT=0", NULL };
	run_self(&r, "threads", "", env2, 60);
	ck_assert_msg(strstr(r.err, "32000        0"), "%s", r.err);
	ck_assert_msg(strstr(r.err, "  cuCtxGetCurrent\n"), "%s", r.err);
	run_free(&r);
}
END_TEST

/* The lines "<name> <code> ..." of newer-app, and the names cushim
 * reported missing. */
static void newer_app_run(const char *ld, const char *emulate, struct run *r)
{
	char l[4096], e[64];
	snprintf(l, sizeof l, "LD_LIBRARY_PATH=%s:%s", ld, NO_RT);
	snprintf(e, sizeof e, "CUSHIM_DRIVER_VERSION=%s", emulate ? emulate : "");
	const char *const argv[] = { LEGACY, NULL };
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, l, emulate ? e : NULL, NULL };
	run_child(r, argv, env, 30);
}

START_TEST(check_emulating_12_0_on_13_0_matches_the_12_0_driver)
{
	struct run real, emu;
	newer_app_run(DRV("12.0"), NULL, &real);
	newer_app_run(DRV("13.0"), "12.0", &emu);
	ck_assert_msg(strcmp(real.out, emu.out) == 0, "results differ:\n--- fake 12.0\n%s--- emulated\n%s", real.out,
		      emu.out);
	/* the same exports reported missing, each once */
	ck_assert_msg(count_lines_with(real.err, " needs a CUDA ") > 0, "%s", real.err);
	ck_assert_int_eq(count_lines_with(real.err, " needs a CUDA "), count_lines_with(emu.err, " needs a CUDA "));
	char *save = NULL;
	for (char *l = strtok_r(real.err, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, " needs a CUDA ")) {
			char name[128];
			sscanf(l, "cushim: %127s", name);
			ck_assert_msg(count_lines_with(emu.err, name) == 1, "%s not reported once under emulation", name);
		}
	run_free(&real);
	run_free(&emu);
}
END_TEST

/* As the real drivers of CUDA 12.x (tests/realdrv): a lookup above the
 * version is answered with the newest variant 12.0 has, a name 12.0 never
 * had is not found (status 1) at every version, not "version not
 * sufficient". */
START_TEST(check_emulation_answers_version_and_lookups_as_12_0)
{
	struct run r = run_on_13("emulate", "CUSHIM_DRIVER_VERSION=12000", NULL);
	ck_assert_msg(strstr(r.out, "version 12000\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxCreate 13050 0 0 cuCtxCreate_v3\n"), "above 12.0: %s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxCreate 12050 0 0 cuCtxCreate_v3\n"), "above 12.0: %s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxCreate 3020 0 0 cuCtxCreate_v2\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxFromGreenCtx 12000 0 1 null\n"), "unknown to 12.0: %s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxFromGreenCtx 13000 0 1 null\n"), "unknown to 12.0: %s", r.out);
	run_free(&r);
}
END_TEST

/* As the real 13.0 driver (tests/oracle): a lookup above the version is
 * refused, the status untouched. */
START_TEST(check_emulation_refuses_lookups_above_13_0)
{
	struct run r = run_on_13("emulate", "CUSHIM_DRIVER_VERSION=13000", NULL);
	ck_assert_msg(strstr(r.out, "version 13000\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxCreate 13050 1 -1 untouched\n"), "above 13.0: %s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxCreate 12050 0 0 cuCtxCreate_v4\n"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "gpa cuCtxFromGreenCtx 12000 0 2 null\n"), "too old: %s", r.out);
	run_free(&r);
}
END_TEST

START_TEST(check_hide_makes_exports_missing_and_never_reaches_the_driver)
{
	struct run r = run_on_13("plain", "CUSHIM_HIDE=cuCtxGet*,cuMemcpy3DPeer", NULL);
	ck_assert_msg(strstr(r.out, "rc 36\n"), "%s", r.out);
	ck_assert_msg(strstr(r.err, "cuCtxGetCurrent is hidden by CUSHIM_HIDE"), "%s", r.err);
	run_free(&r);
	r = run_on_13("plain", "CUSHIM_HIDE=cuMemcpy3DPeer", NULL);
	ck_assert_msg(strstr(r.out, "rc 0\n"), "an unrelated pattern hid cuCtxGetCurrent: %s", r.out);
	run_free(&r);
}
END_TEST


/* dlopen-app with cushim as its libcuda.so.1 in front of the fake 13.0
 * driver, and one more setting. */
static void run_masquerade_app(struct run *r, const char *setting)
{
	char dir[] = "/tmp/cushim-masq.XXXXXX", link[4096], ld[4200];
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", dir, NO_RT);
	const char *const argv[] = { ABS_TOP_BUILDDIR "/tests/blackbox/dlopen-app", NULL };
	const char *const env[] = { ld, "CUSHIM_DRIVER=" DRV("13.0") "/libcuda.so.1", setting, NULL };
	run_child(r, argv, env, 30);
	unlink(link);
	rmdir(dir);
}

START_TEST(check_masquerade_traces_a_program_that_dlopens_libcuda)
{
	struct run r;
	run_masquerade_app(&r, "CUSHIM_LOG=trace");
	ck_assert_msg(r.code == 0, "exit %d\n%s%s", r.code, r.out, r.err);
	ck_assert_msg(strstr(r.out, "alloc 0\n"), "%s", r.out);
	ck_assert_msg(count_lines_with(r.err, " cuGetProcAddress_v2(symbol=\"cuMemAlloc\"") == 1, "%s", r.err);
	ck_assert_msg(count_lines_with(r.err, " cuMemAlloc_v2(dptr=0x") == 1, "%s", r.err);
	ck_assert_msg(count_lines_with(r.err, "the real driver is " DRV("13.0")) == 1, "%s", r.err);
	run_free(&r);
}
END_TEST

/* A hidden export stays hidden from a lookup by base name and version (a
 * runtime's way), and the lookup says so, not the driver's pointer. */
START_TEST(check_masquerade_hides_from_the_programs_own_lookups)
{
	struct run r;
	run_masquerade_app(&r, "CUSHIM_HIDE=cuMemAlloc_v2");
	/* the app stops at the lookup of cuMemAlloc (exit 5), which answers NULL */
	ck_assert_msg(r.code == 5, "cuMemAlloc was not hidden from cuGetProcAddress: exit %d\n%s%s", r.code, r.out,
		      r.err);
	run_free(&r);
}
END_TEST

START_TEST(check_masquerade_without_a_driver_returns_no_device)
{
	char dir[] = "/tmp/cushim-masq.XXXXXX", link[4096], ld[4200];
	struct run r;
	if (access("/usr/lib/x86_64-linux-gnu/libcuda.so.1", F_OK) == 0 || access("/usr/lib64/libcuda.so.1", F_OK) == 0)
		return; /* a real driver is installed: this machine cannot show "none" */
	shim_as_libcuda(dir, link);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", dir, NO_RT);
	const char *const argv[] = { ABS_TOP_BUILDDIR "/tests/blackbox/dlopen-app", NULL };
	const char *const env[] = { ld, NULL };
	run_child(&r, argv, env, 30);
	/* cuGetProcAddress_v2 itself answers CUDA_ERROR_NO_DEVICE: the app stops there (5) */
	ck_assert_msg(r.code == 5, "exit %d\n%s%s", r.code, r.out, r.err);
	ck_assert_int_eq(count_lines_with(r.err, "CUDA_ERROR_NO_DEVICE"), 1);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	unlink(link);
	rmdir(dir);
	run_free(&r);
}
END_TEST

START_TEST(check_unwritable_log_file_falls_back_to_stderr)
{
	struct run r = run_on_13("plain", "CUSHIM_LOG=trace", "CUSHIM_LOG_FILE=/nonexistent/dir/log");
	ck_assert_msg(r.code == 0 && strstr(r.out, "rc 0\n"), "%s", r.out);
	ck_assert_int_eq(count_lines_with(r.err, "cannot open CUSHIM_LOG_FILE /nonexistent/dir/log"), 1);
	ck_assert_int_eq(count_lines_with(r.err, " cuCtxGetCurrent(pctx="), 1);
	run_free(&r);
}
END_TEST

static const struct {
	const char *var, *name;
} bad_values[] = {
	{ "CUSHIM_LOG=verbose", "CUSHIM_LOG" },
	{ "CUSHIM_DRIVER_VERSION=twelve", "CUSHIM_DRIVER_VERSION" },
	{ "CUSHIM_DRIVER_VERSION=12.", "CUSHIM_DRIVER_VERSION" },
	{ "CUSHIM_DRIVER_VERSION=14.0", "CUSHIM_DRIVER_VERSION" }, /* above the fake 13.0 */
	{ "CUSHIM_HIDE=", "CUSHIM_HIDE" },
	{ "CUSHIM_HIDE=cuA,,cuB", "CUSHIM_HIDE" },
	{ "CUSHIM_SUMMARY=yes", "CUSHIM_SUMMARY" },
	{ "CUSHIM_ADAPT=yes", "CUSHIM_ADAPT" },
};

START_TEST(check_each_bad_value_warns_once_and_the_program_runs)
{
	struct run r = run_on_13("plain", bad_values[_i].var, NULL);
	ck_assert_msg(r.code == 0 && strstr(r.out, "rc 0\n"), "%s: exit %d\n%s", bad_values[_i].var, r.code, r.out);
	ck_assert_msg(count_lines_with(r.err, "cushim:") == 1 && count_lines_with(r.err, bad_values[_i].name) == 1,
		      "%s:\n%s", bad_values[_i].var, r.err);
	run_free(&r);
}
END_TEST

START_TEST(check_log_file_per_process_across_fork)
{
	char dir[] = "/tmp/cushim-fork.XXXXXX", var[128], path[256];
	struct run r;
	int child = 0;
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(var, sizeof var, "CUSHIM_LOG_FILE=%s/log.%%p", dir);
	r = run_on_13("fork", "CUSHIM_LOG=trace", var);
	ck_assert_msg(r.code == 0 && sscanf(r.out, "child %d", &child) == 1, "%s%s", r.out, r.err);
	snprintf(path, sizeof path, "%s/log.%d", dir, child);
	char *clog = slurp(path);
	ck_assert_msg(clog != NULL, "no log file for the child %d", child);
	/* the child's file: only what the child did; the parent's lines were flushed before fork */
	ck_assert_int_eq(count_lines_with(clog, " cuDeviceGetCount("), 1);
	ck_assert_int_eq(count_lines_with(clog, " cuCtxGetCurrent("), 0);
	unlink(path);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cat %s/log.* 2>/dev/null", dir);
	FILE *p = popen(cmd, "r");
	char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	pclose(p);
	ck_assert_int_eq(count_lines_with(buf, " cuCtxGetCurrent("), 1);
	ck_assert_int_eq(count_lines_with(buf, " cuCtxSynchronize("), 1);
	ck_assert_int_eq(count_lines_with(buf, " cuDeviceGetCount("), 0);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert(system(cmd) == 0);
	free(clog);
	run_free(&r);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "format", child_format }, { "threads", child_threads }, { "emulate", child_emulate },
		{ "plain", child_plain },   { "clock", child_clock },     { "fork", child_fork },
		{ NULL },
	};
	const TTest *const trace[] = { check_trace_line_format_matches_the_golden_file,
				       check_no_torn_lines_with_16_threads_to_a_file,
				       check_no_torn_lines_with_16_threads_to_a_pipe,
				       check_errors_level_logs_only_failing_calls,
				       check_trace_clock_keeps_time_with_the_wall,
				       check_summary_counts_equal_the_calls_made,
				       check_log_file_per_process_across_fork,
				       check_unwritable_log_file_falls_back_to_stderr, NULL };
	const TTest *const emulate[] = { check_emulating_12_0_on_13_0_matches_the_12_0_driver,
					 check_emulation_answers_version_and_lookups_as_12_0,
					 check_emulation_refuses_lookups_above_13_0,
					 check_hide_makes_exports_missing_and_never_reaches_the_driver, NULL };
	const TTest *const masquerade[] = { check_masquerade_traces_a_program_that_dlopens_libcuda,
					    check_masquerade_hides_from_the_programs_own_lookups,
					    check_masquerade_without_a_driver_returns_no_device, NULL };
	const TTest *const config[] = { check_each_bad_value_warns_once_and_the_program_runs, NULL };
	const struct harness_loop each_bad_value[] = {
		{ check_each_bad_value_warns_once_and_the_program_runs, (int)(sizeof bad_values / sizeof *bad_values) },
		{ NULL },
	};
	const struct harness_tcase tcases[] = {
		{ "Trace", 120, trace, NULL },
		{ "Emulate", 60, emulate, NULL },
		{ "Masquerade", 60, masquerade, NULL },
		{ "Config", 0, config, each_bad_value },
		{ NULL },
	};
	return harness_main(argc, argv, children, "diag", tcases);
}
