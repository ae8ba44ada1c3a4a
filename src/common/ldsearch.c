/* Where the dynamic loader looks for a library, in its order (ld.so(8)):
 * DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the loader cache, the default
 * folders.  The cache is not read: ldconfig builds it from the folders of
 * /etc/ld.so.conf, which are read here instead, because a library inside a
 * host program must not run commands.  Callers decide what a candidate must
 * be (a driver that loads, an ELF file for this machine). */
#include "config.h"
#include "ldsearch.h"
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This machine's multiarch triplet (Debian's folder names) and the loader's
 * $PLATFORM; $LIB is lib/TRIPLET where the triplet is known. */
#if defined(__x86_64__)
#define TRIPLET "x86_64-linux-gnu"
#define PLATFORM "x86_64"
#elif defined(__aarch64__)
#define TRIPLET "aarch64-linux-gnu"
#define PLATFORM "aarch64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define TRIPLET "powerpc64le-linux-gnu"
#define PLATFORM "powerpc64le"
#endif
#ifdef TRIPLET
#define LIB "lib/" TRIPLET
#else
#define LIB "lib"
#define PLATFORM ""
#endif

#define LD_SO_CONF "/etc/ld.so.conf"
/* ld.so.conf includes followed below the file itself (they may loop). */
#define CONF_DEPTH 2

/* The loader's own folders, then those where NVIDIA's container toolkit and
 * WSL put the driver (usually named by ld.so.conf too). */
static const char *const default_dirs[] = {
#ifdef TRIPLET
	"/lib/" TRIPLET, "/usr/lib/" TRIPLET,
#endif
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib",
};

struct walk {
	const char *name;
	cushim_ld_accept_fn accept;
	void *ctx;
};

/* Offers dir/name, dir being len bytes (none: the current folder). */
static int offer(const struct walk *w, const char *dir, size_t len)
{
	char path[4096];
	if (len == 0)
		dir = ".", len = 1;
	if (len + strlen(w->name) + 2 > sizeof path)
		return 0;
	snprintf(path, sizeof path, "%.*s/%s", (int)len, dir, w->name);
	return w->accept(path, w->ctx);
}

static int offer_list(const struct walk *w, const char *list)
{
	if (!list || !*list)
		return 0;
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ":");
		if (offer(w, p, n))
			return 1;
		p += n;
		if (!*p)
			return 0;
	}
}

static int offer_conf(const struct walk *w, const char *file, int depth);

/* An include pattern, relative to the including file's folder (as ldconfig). */
static int offer_include(const struct walk *w, const char *file, const char *pat, size_t len, int depth)
{
	const char *slash = strrchr(file, '/');
	int dirlen = *pat == '/' || !slash ? 0 : (int)(slash - file + 1);
	char full[4096];
	glob_t g;
	int ok = 0;

	snprintf(full, sizeof full, "%.*s%.*s", dirlen, file, (int)len, pat);
	if (glob(full, 0, NULL, &g) == 0) {
		for (size_t k = 0; !ok && k < g.gl_pathc; k++)
			ok = offer_conf(w, g.gl_pathv[k], depth + 1);
		globfree(&g);
	}
	return ok;
}

/* One line, its comment cut: "include PATTERN...", a folder, or else nothing. */
static int offer_conf_line(const struct walk *w, const char *file, const char *s, int depth)
{
	static const char blank[] = " \t";
	s += strspn(s, blank);
	if (strncmp(s, "include", 7) == 0 && s[7] && strchr(blank, s[7])) {
		if (depth >= CONF_DEPTH)
			return 0;
		for (s += 7; *(s += strspn(s, blank)); s += strcspn(s, blank))
			if (offer_include(w, file, s, strcspn(s, blank), depth))
				return 1;
		return 0;
	}
	return *s == '/' && offer(w, s, strcspn(s, blank));
}

static int offer_conf(const struct walk *w, const char *file, int depth)
{
	FILE *f = fopen(file, "re");
	char line[4096];
	int ok = 0;
	if (!f)
		return 0;
	while (!ok && fgets(line, sizeof line, f)) {
		line[strcspn(line, "#\r\n")] = '\0';
		ok = offer_conf_line(w, file, line, depth);
	}
	fclose(f);
	return ok;
}

int cushim_ld_search(const char *name, const char *rpath, const char *runpath, cushim_ld_accept_fn accept,
		     void *ctx)
{
	const struct walk w = { name, accept, ctx };

	if (strchr(name, '/'))
		return accept(name, ctx) != 0;
	if (offer_list(&w, rpath) || offer_list(&w, secure_getenv("LD_LIBRARY_PATH")) || offer_list(&w, runpath) ||
	    offer_conf(&w, LD_SO_CONF, 0))
		return 1;
	for (size_t k = 0; k < sizeof default_dirs / sizeof *default_dirs; k++)
		if (offer(&w, default_dirs[k], strlen(default_dirs[k])))
			return 1;
	return 0;
}

struct buf {
	char *s;
	size_t len, cap;
	int failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *bigger = realloc(b->s, cap);
		if (!bigger) {
			b->failed = 1;
			return;
		}
		b->s = bigger, b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* The value of the token at p ("$ORIGIN", "${LIB}", ...) and its length in
 * *n; NULL when p starts none. */
static const char *token_at(const char *p, const char *origin, size_t *n)
{
	static const struct { const char *name, *value; } tokens[] = {
		{ "ORIGIN", NULL }, { "LIB", LIB }, { "PLATFORM", PLATFORM },
	};
	int brace = p[1] == '{';
	const char *t = p + 1 + brace;

	for (size_t k = 0; k < sizeof tokens / sizeof *tokens; k++) {
		size_t len = strlen(tokens[k].name);
		char after = t[len];
		if (strncmp(t, tokens[k].name, len) != 0 || (k == 0 && !origin))
			continue;
		if (brace ? after != '}' : (after >= 'A' && after <= 'Z') || after == '_')
			continue;
		*n = 1 + 2 * (size_t)brace + len;
		return k == 0 ? origin : tokens[k].value;
	}
	return NULL;
}

char *cushim_ld_expand(const char *list, const char *origin)
{
	struct buf b = { NULL, 0, 0, 0 };
	size_t n;

	put(&b, "", 0);
	for (const char *p = list; *p;) {
		const char *v = *p == '$' ? token_at(p, origin, &n) : NULL;
		if (v) {
			put(&b, v, strlen(v));
			p += n;
		} else {
			put(&b, p++, 1);
		}
	}
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
