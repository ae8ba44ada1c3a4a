/* Asks libcuda.so.1, as the loader finds it (a real driver, or cushim posing
 * as one), for every base name at every version and stream flag, and prints
 * each answer: the result, the query status and the exported name the
 * returned pointer is.  Two runs' outputs compare line by line.
 *
 * Usage: gpa-probe v1|v2 BASES VERSIONS, or gpa-probe version
 *   BASES, VERSIONS: files of one base name, or one CUDA version, a line.
 *   v2 asks cuGetProcAddress_v2 (status printed), v1 cuGetProcAddress (the
 *   status column is "-").
 * Prints "base<TAB>flags<TAB>version<TAB>result<TAB>status<TAB>returns", where
 * returns is the name dladdr(3) gives the pointer ("-" for NULL, "?" for a
 * pointer that is no symbol's start); "version" prints what
 * cuDriverGetVersion answers.  Exit 2 when the driver or the function
 * cannot be found; the driver is never initialised. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*gpa2_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*gpa1_fn)(const char *, void **, int, unsigned long long);
typedef int (*version_fn)(int *);

/* read_lines PATH N: the file's lines, their count in N; exits 2 on error. */
static char **read_lines(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	char buf[256], **v = NULL;
	int cap = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	for (*n = 0; fscanf(f, "%255s", buf) == 1; (*n)++) {
		if (*n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 256)* sizeof *v)))
			exit(2);
		if (!(v[*n] = strdup(buf)))
			exit(2);
	}
	fclose(f);
	return v;
}

static const char *name_of(void *p)
{
	Dl_info in;

	if (!p)
		return "-";
	return dladdr(p, &in) && in.dli_saddr == p && in.dli_sname ? in.dli_sname : "?";
}

/* The driver as the loader finds it, and its function name; exits 2 without. */
static void *driver_fn(const char *name)
{
	void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *f;

	if (!cu) {
		fprintf(stderr, "gpa-probe: %s\n", dlerror());
		exit(2);
	}
	if (!(f = dlsym(cu, name))) {
		fprintf(stderr, "gpa-probe: this driver has no %s\n", name);
		exit(2);
	}
	return f;
}

static int probe(int v2, const char *bases, const char *versions)
{
	void *g = driver_fn(v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress");
	int nb, nv;
	char **base = read_lines(bases, &nb), **ver = read_lines(versions, &nv);

	for (int b = 0; b < nb; b++)
		for (unsigned long long fl = 0; fl < 3; fl++)
			for (int i = 0; i < nv; i++) {
				void *p = NULL;
				int st = -1, rc, at = atoi(ver[i]);

				rc = v2 ? ((gpa2_fn)g)(base[b], &p, at, fl, &st) : ((gpa1_fn)g)(base[b], &p, at, fl);
				if (v2)
					printf("%s\t%llu\t%d\t%d\t%d\t%s\n", base[b], fl, at, rc, st, name_of(p));
				else
					printf("%s\t%llu\t%d\t%d\t-\t%s\n", base[b], fl, at, rc, name_of(p));
			}
	return 0;
}

int main(int argc, char **argv)
{
	int v = 0;

	if (argc == 2 && strcmp(argv[1], "version") == 0) {
		int rc = ((version_fn)driver_fn("cuDriverGetVersion"))(&v);
		printf("%d\n", rc ? -rc : v);
		return rc != 0;
	}
	if (argc == 4 && (strcmp(argv[1], "v1") == 0 || strcmp(argv[1], "v2") == 0))
		return probe(argv[1][1] == '2', argv[2], argv[3]);
	fprintf(stderr, "usage: gpa-probe v1|v2 BASES VERSIONS\n       gpa-probe version\n");
	return 2;
}
