/* See harness.h. */
#include <config.h>
#include "harness.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
int child_failures;

static char *slurp_fd(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	for (;;) {
		if (!buf || (n + 1 >= cap && !(buf = realloc(buf, cap *= 2))))
			abort(); /* the harness cannot judge a child without its output */
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	return buf;
}

char *const *target_argv(const char *const argv[])
{
	const char *wrapper = getenv("EXE_WRAPPER");
	size_t n = 0, k = 0;
	while (argv[n])
		n++;
	char *words = strdup(wrapper ? wrapper : ""), **out = calloc(n + strlen(words) / 2 + 2, sizeof *out);
	for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		out[k++] = w;
	for (size_t i = 0; i <= n; i++)
		out[k++] = (char *)argv[i];
	return out;
}

/* How much slower than the plain build a child runs: under valgrind, or with
 * a sanitizer's runtime preloaded (TSan makes the fork storm several times
 * slower).  A timeout catches a hang, not a slow machine. */
static long slowdown(void)
{
	if (getenv("CUSHIM_TEST_VALGRIND"))
		return 20;
	return getenv("CUSHIM_TEST_PRELOAD_FIRST") ? 4 : 1;
}

/* A child's environment: this process's, less LD_PRELOAD, LD_LIBRARY_PATH
 * and CUSHIM_*, then env's entries. */
static char **child_env(const char *const env[])
{
	char **keep = calloc(4096, sizeof *keep);
	int n = 0;
	for (char **e = environ; *e && n < 4000; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) && strncmp(*e, "LD_LIBRARY_PATH=", 16) &&
		    strncmp(*e, "CUSHIM_", 7))
			keep[n++] = *e;
	/* CUSHIM_TEST_PRELOAD_FIRST (sanitizer builds): the sanitizer's
	 * runtime must come first in every LD_PRELOAD a child gets */
	const char *first = getenv("CUSHIM_TEST_PRELOAD_FIRST");
	for (int i = 0; env && env[i] && n < 4095; i++) {
		keep[n] = (char *)env[i];
		if (first && *first && strncmp(env[i], "LD_PRELOAD=", 11) == 0 &&
		    asprintf(&keep[n], "LD_PRELOAD=%s:%s", first, env[i] + 11) < 0)
			keep[n] = (char *)env[i];
		n++;
	}
	return keep;
}

/* CUSHIM_TEST_VALGRIND=FILE (make check-valgrind): every child runs under
 * valgrind; any invalid access or definite leak exits 97, and valgrind's
 * report goes to FILE, not into the output tests read.  Returns only when
 * valgrind cannot be run. */
static void exec_valgrind(const char *vg, const char *const argv[], char **keep)
{
	static char self[4096], logopt[4200];
	const char *vargv[64];
	int k = 0;
	ssize_t len = readlink(argv[0], self, sizeof self - 1);
	snprintf(logopt, sizeof logopt, "--log-file=%s.%%p", vg);
	vargv[k++] = "valgrind";
	vargv[k++] = "-q";
	vargv[k++] = "--error-exitcode=97";
	vargv[k++] = "--leak-check=full";
	vargv[k++] = "--errors-for-leak-kinds=definite";
	vargv[k++] = "--show-leak-kinds=definite";
	vargv[k++] = "--trace-children=no";
	vargv[k++] = logopt;
	if (len > 0 && strcmp(argv[0], "/proc/self/exe") == 0) { /* not valgrind's own */
		self[len] = '\0';
		vargv[k++] = self;
	} else {
		vargv[k++] = argv[0];
	}
	for (int i = 1; argv[i] && k < 63; i++)
		vargv[k++] = argv[i];
	vargv[k] = NULL;
	execvpe("valgrind", (char *const *)vargv, keep);
}

/* In the forked child: stdout and stderr to out and err, then argv runs in
 * its environment (child_env); exits 126 when it cannot. */
static void exec_child(FILE *out, FILE *err, const char *const argv[], const char *const env[])
{
	char **keep = child_env(env);

	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	const char *vg = getenv("CUSHIM_TEST_VALGRIND");
	if (vg && *vg)
		exec_valgrind(vg, argv, keep);
	char *const *av = target_argv(argv);
	execve(av[0], av, keep);
	fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
	_exit(126);
}

/* Polls pid every 5 ms until it ends: its exit status, or 128 + the signal
 * that killed it.  -1 when waiting fails, or when it outlives timeout_s
 * (times slowdown()) and is killed. */
static int wait_child(pid_t pid, int timeout_s)
{
	struct timespec t = { 0, 5 * 1000 * 1000 };
	long waited = 0;
	int st = 0;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (w < 0 && errno != EINTR)
			return -1;
		if (waited++ > timeout_s * 200L * slowdown()) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		nanosleep(&t, NULL);
	}
}

void run_child(struct run *r, const char *const argv[], const char *const env[], int timeout_s)
{
	FILE *out = tmpfile(), *err = tmpfile();
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		exec_child(out, err, argv, env);
	r->code = pid > 0 ? wait_child(pid, timeout_s) : -1;
	r->out = slurp_fd(fileno(out));
	r->err = slurp_fd(fileno(err));
	fclose(out);
	fclose(err);
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

void run_self(struct run *r, const char *mode, const char *arg, const char *const env[], int timeout_s)
{
	static char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	const char *argv[] = { self, "--child", mode, arg, NULL };
	run_child(r, argv, env, timeout_s);
}

int count_lines_with(const char *text, const char *needle)
{
	int n = 0;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, len);
		n += strstr(copy, needle) != NULL;
		free(copy);
		line = end ? end + 1 : line + len;
	}
	return n;
}

/* ---- the oracle ---- */
struct orow {
	char symbol[80], ret[80];
	int flags, from, result, status;
};
static struct orow *orows;
static int norows;

static void oracle_load(void)
{
	FILE *f;
	char line[512];

	if (orows)
		return;
	if (!(f = fopen(ORACLE_TSV, "r"))) {
		perror(ORACLE_TSV);
		abort();
	}
	orows = calloc(20000, sizeof *orows);
	if (!fgets(line, sizeof line, f) || strncmp(line, "symbol\tflags\tcuda_version_from", 30))
		abort();
	while (norows < 20000 && fgets(line, sizeof line, f)) {
		struct orow *o = &orows[norows];
		if (sscanf(line, "%79s %d %d %d %d %79s", o->symbol, &o->flags, &o->from, &o->result, &o->status,
			   o->ret) == 6)
			norows++;
	}
	fclose(f);
}

const char *oracle_answer(const char *symbol, int version, unsigned long long flags, int *result, int *status)
{
	const struct orow *best = NULL;

	oracle_load();
	for (int i = 0; i < norows; i++)
		if (strcmp(orows[i].symbol, symbol) == 0 && (unsigned long long)orows[i].flags == flags &&
		    orows[i].from <= version && (!best || orows[i].from > best->from))
			best = &orows[i];
	if (result)
		*result = best ? best->result : -1;
	if (status)
		*status = best ? best->status : -1;
	return best && strcmp(best->ret, "-") ? best->ret : NULL;
}

int oracle_first_version(const char *name)
{
	int first = 0;
	oracle_load();
	for (int i = 0; i < norows; i++)
		if (orows[i].status == 0 && strcmp(orows[i].ret, name) == 0 && (!first || orows[i].from < first))
			first = orows[i].from;
	return first;
}

const char *version_text(int v, char buf[16])
{
	snprintf(buf, 16, "%d.%d", v / 1000, v % 1000 / 10);
	return buf;
}

/* ---- ELF ---- */
int elf_dynamic_symbols(const char *path, int defined, char ***names)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *e;
	Elf_Scn *scn = NULL;

	*names = NULL;
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t count = sh.sh_size / sh.sh_entsize;
		*names = calloc(count + 1, sizeof **names);
		for (size_t i = 1; i < count; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			int bind = GELF_ST_BIND(s.st_info);
			if (bind != STB_GLOBAL && bind != STB_WEAK)
				continue;
			if (defined ? s.st_shndx == SHN_UNDEF : s.st_shndx != SHN_UNDEF)
				continue;
			/* defined: every kind of symbol, so that stray data shows up too */
			if (!defined && GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_NOTYPE)
				continue;
			(*names)[n++] = strdup(elf_strptr(e, sh.sh_link, s.st_name));
		}
	}
	elf_end(e);
	close(fd);
	return n;
}

int has_name(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

int elf_for_this_machine(const char *path)
{
#if defined(__x86_64__)
	const int machine = EM_X86_64;
#elif defined(__aarch64__)
	const int machine = EM_AARCH64;
#else
	const int machine = -1;
#endif
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	Elf *e;
	GElf_Ehdr eh;

	if (fd < 0)
		return 0;
	if (elf_version(EV_CURRENT) != EV_NONE && (e = elf_begin(fd, ELF_C_READ, NULL))) {
		ok = gelf_getehdr(e, &eh) && eh.e_machine == machine;
		elf_end(e);
	}
	close(fd);
	return ok;
}

/* ---- the fakes, from inside a child ---- */
void *fake_sym(const char *name)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *p = h ? dlsym(h, name) : NULL;
	if (h)
		dlclose(h);
	return p;
}

void *fake_rt_sym(const char *soname, const char *name)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
	void *p = h ? dlsym(h, name) : NULL;
	if (h)
		dlclose(h);
	return p;
}

int fake_answers(const char *name)
{
	static const char *const answering[] = { "cuInit", "cuDriverGetVersion", "cuGetProcAddress",
						 "cuGetProcAddress_v2", "cuGetErrorName", "cuGetErrorString",
						 "cuGetExportTable" };
	for (size_t i = 0; i < sizeof answering / sizeof *answering; i++)
		if (strcmp(name, answering[i]) == 0)
			return 1;
	return 0;
}

const char *object_of(const void *fn)
{
	Dl_info info;
	return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "";
}

/* ---- a suite program's main ---- */
const char *harness_self;

static int run_child_mode(const struct harness_child children[], const char *mode, const char *arg)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; children && children[i].mode; i++)
		if (strcmp(children[i].mode, mode) == 0)
			return children[i].run(arg);
	printf("no child mode %s\n", mode);
	return 2;
}

static int runs_of(const TTest *test, const struct harness_loop loops[])
{
	for (int i = 0; loops && loops[i].test; i++)
		if (loops[i].test == test)
			return loops[i].runs;
	return 1;
}

static Suite *make_suite(const char *name, const struct harness_tcase tcases[])
{
	Suite *s = suite_create(name);
	for (const struct harness_tcase *c = tcases; c->name; c++) {
		TCase *tc = tcase_create(c->name);
		if (c->timeout_s > 0)
			tcase_set_timeout(tc, c->timeout_s);
		for (int i = 0; c->tests[i]; i++)
			tcase_add_loop_test(tc, c->tests[i], 0, runs_of(c->tests[i], c->loops));
		suite_add_tcase(s, tc);
	}
	return s;
}

int harness_main(int argc, char **argv, const struct harness_child children[], const char *suite,
		 const struct harness_tcase tcases[])
{
	harness_self = argv[0];
	if (argc >= 3 && strcmp(argv[1], "--child") == 0)
		return run_child_mode(children, argv[2], argc >= 4 ? argv[3] : "");
	SRunner *sr = srunner_create(make_suite(suite, tcases));
	srunner_run_all(sr, CK_VERBOSE);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

void shim_as_libcuda(char dir[], char link[4096])
{
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(link, 4096, "%s/libcuda.so.1", dir);
	ck_assert(symlink(SHIM_SO, link) == 0);
}
