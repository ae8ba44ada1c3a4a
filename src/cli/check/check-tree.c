/* cushim check on a folder: the files it judges there, walked once each, and
 * the tree's own libraries by name, so that what a file needs is found as
 * the loader finds it inside the tree. */
#include "config.h"
#include "check-tree.h"
#include "cli.h"
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_DEPTH 64

struct seen_dir {
	dev_t dev;
	ino_t ino;
};

/* A file found, under one of its names (link: a symbolic link's). */
struct hit {
	dev_t dev;
	ino_t ino;
	char *path;
	int link;
};

/* The kernel's and the running system's folders: what is in them is no
 * file to judge (and /proc alone holds every process's files). */
static const char *const system_dirs[] = { "/proc", "/sys", "/dev", "/run" };
#define NSYSTEM (sizeof system_dirs / sizeof *system_dirs)

struct walker {
	struct tree *t;
	struct seen_dir *dirs; /* the folders on the way down: a bind-mount loop stops */
	struct seen_dir system[NSYSTEM];
	int nsystem, skipped;
	int depth;
	struct hit *found;
	size_t nfound, capfound;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap * 2 + 16;
	if (!(p = realloc(p, *cap * size)))
		abort();
	return p;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* A shared library's name: libX.so or libX.so.N... */
static int lib_named(const char *path)
{
	const char *base = strrchr(path, '/'), *so;
	base = base ? base + 1 : path;
	return strncmp(base, "lib", 3) == 0 && (so = strstr(base, ".so")) && (so[3] == '\0' || so[3] == '.');
}

/* A development symlink's stand-in (libc.so): a linker script, not a library. */
static int linker_script(const unsigned char *h, ssize_t n)
{
	return n > 0 && (memchr("/IGO", h[0], 4) != NULL);
}

/* A name no ELF file has in practice (source, text, data, Python's own
 * files): not opened, so that a site-packages of tens of thousands of files
 * walks fast. */
static int text_named(const char *path)
{
	static const char *const ext[] = { ".py", ".pyc", ".pyi", ".pyx", ".pxd", ".h", ".hpp", ".cuh", ".c", ".cc",
					   ".cpp", ".cu", ".txt", ".md", ".rst", ".json", ".yaml", ".yml", ".toml",
					   ".cfg", ".ini", ".html", ".css", ".js", ".png", ".jpg", ".svg", ".gif",
					   ".gz", ".typed", ".csv", ".xml", ".pem", ".pickle", ".npy", ".npz" };
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strcmp(base, "RECORD") == 0 || strcmp(base, "METADATA") == 0 || strcmp(base, "WHEEL") == 0 ||
	    strcmp(base, "LICENSE") == 0 || strcmp(base, "INSTALLER") == 0)
		return 1;
	for (size_t k = 0; k < sizeof ext / sizeof *ext; k++)
		if (ends_with(base, ext[k]))
			return 1;
	return 0;
}

/* 3: named like a shared library, but not an ELF file (judged: it says so);
 * 2: a GPU code file by its name; 1: an ELF executable or shared object;
 * 0: not judged.  -1 (said) when it cannot be opened. */
static int judged_kind(const char *path)
{
	unsigned char h[18];
	if (ends_with(path, ".fatbin") || ends_with(path, ".cubin") || ends_with(path, ".ptx"))
		return 2;
	if (text_named(path))
		return 0;
	struct stat st;
	const char *what;
	int fd = cli_open_regular(path, &st, &what);
	if (fd < 0 && what)
		return 0; /* replaced by a FIFO or a device since the walk saw it: never opened */
	if (fd < 0) {
		cli_error("%s cannot be opened: %s", path, strerror(errno));
		return -1;
	}
	ssize_t n = pread(fd, h, sizeof h, 0);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
		return lib_named(path) && !linker_script(h, n) ? 3 : 0;
	unsigned type = h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[16] << 8 | h[17] : (unsigned)h[17] << 8 | h[16];
	return type == ET_EXEC || type == ET_DYN;
}

static void found(struct walker *w, const char *path, const struct stat *st, int link)
{
	w->found = grow(w->found, &w->capfound, w->nfound, sizeof *w->found);
	w->found[w->nfound].dev = st->st_dev;
	w->found[w->nfound].ino = st->st_ino;
	w->found[w->nfound].link = link;
	if (!(w->found[w->nfound++].path = strdup(path)))
		abort();
}

/* A symbolic link: the file it names counts; a loop is said. */
static void walk_link(struct walker *w, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ELOOP) {
			cli_error("%s is a symbolic link loop; not checked", path);
			w->t->errors++;
		}
		return; /* dangling: nothing is there to load */
	}
	if (S_ISREG(st.st_mode) && judged_kind(path) > 0)
		found(w, path, &st, 1);
}

static void walk_dir(struct walker *w, const char *dir, const struct stat *st);

static void walk_entry(struct walker *w, const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		cli_error("%s cannot be read: %s", path, strerror(errno));
		w->t->errors++;
	} else if (S_ISLNK(st.st_mode)) {
		walk_link(w, path);
	} else if (S_ISDIR(st.st_mode)) {
		walk_dir(w, path, &st);
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		int k = judged_kind(path);
		if (k > 0)
			found(w, path, &st, 0);
		w->t->errors += k < 0;
	}
}

static int on_the_way(const struct walker *w, const struct stat *st)
{
	for (int i = 0; i < w->depth; i++)
		if (w->dirs[i].dev == st->st_dev && w->dirs[i].ino == st->st_ino)
			return 1;
	return 0;
}

static int system_dir(const struct walker *w, const struct stat *st)
{
	for (int i = 0; i < w->nsystem; i++)
		if (w->system[i].dev == st->st_dev && w->system[i].ino == st->st_ino)
			return 1;
	return 0;
}

static void walk_dir(struct walker *w, const char *dir, const struct stat *st)
{
	DIR *d;
	struct dirent *e;
	char path[PATH_MAX];
	if (system_dir(w, st)) {
		w->skipped++;
		return;
	}
	if (w->depth >= WALK_DEPTH || on_the_way(w, st)) {
		cli_error("%s is %s; not walked", dir, w->depth >= WALK_DEPTH ? "too deep" : "a folder loop");
		w->t->errors++;
		return;
	}
	if (!(d = opendir(dir))) {
		cli_error("%s cannot be read: %s", dir, strerror(errno));
		w->t->errors++;
		return;
	}
	w->dirs[w->depth++] = (struct seen_dir){ st->st_dev, st->st_ino };
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name) >=
		    sizeof path)
			continue;
		walk_entry(w, path);
	}
	w->depth--;
	closedir(d);
}

static void add_lib(struct tree *t, const char *path, const char *real, int member)
{
	const char *slash = strrchr(path, '/');
	t->libs = grow(t->libs, &t->caplibs, t->nlibs, sizeof *t->libs);
	t->libs[t->nlibs].name = strdup(slash ? slash + 1 : path);
	t->libs[t->nlibs].member = member;
	t->libs[t->nlibs++].path = strdup(real);
}

void tree_add_member(struct tree *t, const char *member)
{
	const char *colon = strstr(member, ".whl:");
	t->files = grow(t->files, &t->capfiles, t->nfiles, sizeof *t->files);
	if (!(t->files[t->nfiles++] = strdup(member)))
		abort();
	add_lib(t, colon && !strchr(colon + 5, '/') ? colon + 5 : member, member, 1);
}

static int by_file(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->link != y->link)
		return x->link - y->link; /* the file's own path first */
	return strcmp(x->path, y->path);
}

/* Each file once, under its own path; every name it has goes into the
 * library index. */
static void take_found(struct walker *w)
{
	struct tree *t = w->t;
	if (w->nfound) /* (qsort takes no NULL, even for no elements) */
		qsort(w->found, w->nfound, sizeof *w->found, by_file);
	for (size_t i = 0, first = 0; i < w->nfound; i++) {
		if (i == 0 || w->found[i].dev != w->found[i - 1].dev || w->found[i].ino != w->found[i - 1].ino) {
			first = i;
			t->files = grow(t->files, &t->capfiles, t->nfiles, sizeof *t->files);
			t->files[t->nfiles++] = strdup(w->found[i].path);
		}
		add_lib(t, w->found[i].path, w->found[first].path, 0);
		free(w->found[i].path);
	}
	free(w->found);
}

static int is_image_root(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof p, "%s/etc/os-release", dir);
	if (lstat(p, &st) != 0) {
		snprintf(p, sizeof p, "%s/usr/lib/os-release", dir);
		if (lstat(p, &st) != 0)
			return 0;
	}
	snprintf(p, sizeof p, "%s/usr/lib", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(dir, "/") != 0;
}

int tree_walk(struct tree *t, const char *dir, int kind)
{
	struct seen_dir dirs[WALK_DEPTH];
	struct walker w = { .t = t, .dirs = dirs };
	struct stat st;
	size_t before = t->nfiles;
	int found = stat(dir, &st) == 0;
	if (!found || !S_ISDIR(st.st_mode)) {
		cli_error("%s cannot be walked: %s", dir, found ? "not a folder" : strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < NSYSTEM; i++) {
		struct stat sys;
		if (stat(system_dirs[i], &sys) == 0 && S_ISDIR(sys.st_mode))
			w.system[w.nsystem++] = (struct seen_dir){ sys.st_dev, sys.st_ino };
	}
	if (system_dir(&w, &st)) {
		cli_error("%s is the kernel's or the running system's (/proc, /sys, /dev, /run); not walked", dir);
		return -1;
	}
	t->image_root |= is_image_root(dir);
	walk_dir(&w, dir, &st);
	take_found(&w);
	struct tree_input *in = tree_input_add(t, dir, kind);
	in->files = t->nfiles - before;
	in->system = w.skipped;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct tree_lib *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->path, y->path);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tree_done(struct tree *t)
{
	if (t->nlibs)
		qsort(t->libs, t->nlibs, sizeof *t->libs, by_name);
	if (t->nfiles)
		qsort(t->files, t->nfiles, sizeof *t->files, by_path);
}

static const struct tree_lib *find(const struct tree *t, const char *name)
{
	size_t lo = 0, hi = t->nlibs;
	while (lo < hi) { /* the first of that name: paths sort it */
		size_t mid = (lo + hi) / 2;
		if (strcmp(t->libs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nlibs && strcmp(t->libs[lo].name, name) == 0 ? &t->libs[lo] : NULL;
}

const char *tree_lib_find(const struct tree *t, const char *name)
{
	const struct tree_lib *l = find(t, name);
	return l ? l->path : NULL;
}

struct tree_input *tree_input_add(struct tree *t, const char *path, int kind)
{
	t->inputs = grow(t->inputs, &t->capinputs, t->ninputs, sizeof *t->inputs);
	struct tree_input *in = &t->inputs[t->ninputs++];
	memset(in, 0, sizeof *in);
	if (!(in->path = strdup(path)))
		abort();
	in->kind = kind;
	return in;
}

void tree_input_drop(struct tree *t)
{
	if (!t->ninputs)
		return;
	t->ninputs--;
	free(t->inputs[t->ninputs].path);
	free(t->inputs[t->ninputs].about);
}

void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->ninputs; i++)
		free(t->inputs[i].path), free(t->inputs[i].about);
	free(t->inputs);

	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	for (size_t i = 0; i < t->nlibs; i++)
		free(t->libs[i].name), free(t->libs[i].path);
	free(t->files);
	free(t->libs);
	memset(t, 0, sizeof *t);
}

int tree_has_file(const struct tree *t, const char *path)
{
	const char *key = path;
	return t->nfiles && bsearch(&key, t->files, t->nfiles, sizeof *t->files, by_path) != NULL;
}

/* WHEEL:MEMBER with the member's path made plain ("a/b/../c" is "a/c"), as
 * the loader would resolve it on disk: 0, or -1 when it climbs out. */
static int plain_member(const char *path, char *out, size_t size)
{
	const char *colon = strstr(path, ".whl:") + 5;
	size_t n = (size_t)snprintf(out, size, "%.*s", (int)(colon - path), path), base = n;
	for (const char *p = colon; *p && n < size;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && strncmp(p, "..", 2) == 0) {
			if (n == base)
				return -1;
			while (n > base && out[n - 1] != '/')
				n--;
			n -= n > base; /* the '/' before it */
			out[n] = '\0';
		} else if (len && !(len == 1 && *p == '.')) {
			n += (size_t)snprintf(out + n, size - n, "%s%.*s", n > base ? "/" : "", (int)len, p);
		}
		p += len + (p[len] == '/');
	}
	return n < size ? 0 : -1;
}

/* What the loader makes of one path: a wheel's member is looked up among
 * the tree's files, a file on disk is judged where it lies. */
static int at_path(const struct tree *t, const char *path, char *out, size_t size, char *why, size_t whysize)
{
	if (strstr(path, ".whl:"))
		return plain_member(path, out, size) == 0 && tree_has_file(t, out) ? CLI_LD_LOADS : CLI_LD_SKIPPED;
	int v = cli_ld_candidate(path, why, whysize);
	if (v != CLI_LD_SKIPPED)
		snprintf(out, size, "%s", path);
	return v;
}

/* name in each folder of an expanded list, in turn. */
static int in_list(const struct tree *t, const char *list, const char *name, char *out, size_t size, char *why,
		   size_t whysize)
{
	char path[PATH_MAX];
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":");
		int v = CLI_LD_SKIPPED;
		if ((size_t)snprintf(path, sizeof path, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name) < sizeof path)
			v = at_path(t, path, out, size, why, whysize);
		if (v != CLI_LD_SKIPPED)
			return v;
		p += n + (p[n] == ':');
	}
	return CLI_LD_SKIPPED;
}

/* The tree's own libraries of that name: the first the loader would load;
 * else the first it would stop at (in broken), if any. */
static int own_library(const struct tree *t, const char *name, char *out, size_t size, char *broken,
		       size_t bsize, char *why, size_t whysize)
{
	char whynot[512];
	const struct tree_lib *l = find(t, name);
	broken[0] = '\0';
	for (; l && l < t->libs + t->nlibs && strcmp(l->name, name) == 0; l++) {
		int v = l->member ? CLI_LD_LOADS : cli_ld_candidate(l->path, whynot, sizeof whynot);
		if (v == CLI_LD_LOADS) {
			snprintf(out, size, "%s", l->path);
			return 1;
		}
		if (v == CLI_LD_STOPS && !broken[0]) {
			snprintf(broken, bsize, "%s", l->path);
			snprintf(why, whysize, "%s", whynot);
		}
	}
	return 0;
}

int tree_resolve(const struct tree *t, const char *name, const char *rpath, const char *runpath, char *out,
		 size_t size, char *why, size_t whysize)
{
	char broken[PATH_MAX], own_why[512];
	int v;
	if (strchr(name, '/'))
		return at_path(t, name, out, size, why, whysize);
	if ((v = in_list(t, rpath, name, out, size, why, whysize)) != CLI_LD_SKIPPED ||
	    (v = in_list(t, runpath, name, out, size, why, whysize)) != CLI_LD_SKIPPED)
		return v;
	if (own_library(t, name, out, size, broken, sizeof broken, own_why, sizeof own_why))
		return CLI_LD_LOADS;
	if (!t->image_root && (v = cli_ld_find(name, NULL, NULL, out, size, why, whysize)) != CLI_LD_SKIPPED)
		return v;
	if (!broken[0])
		return CLI_LD_SKIPPED;
	snprintf(out, size, "%s", broken); /* the tree's own copy, which nothing else stands in for */
	snprintf(why, whysize, "%s", own_why);
	return CLI_LD_STOPS;
}
