/* Finding a library the way the dynamic loader does: DT_RPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH, the loader cache (as `ldconfig -p` prints it), the default
 * folders; only files for this machine count. */
#include "config.h"
#include "cli.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TRIPLET "x86_64-linux-gnu"
#define PLATFORM "x86_64"
#elif defined(__aarch64__)
#define TRIPLET "aarch64-linux-gnu"
#define PLATFORM "aarch64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define TRIPLET "powerpc64le-linux-gnu"
#define PLATFORM "powerpc64le"
#else
#define TRIPLET ""
#define PLATFORM ""
#endif

int cli_elf_native(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	struct stat st;
	const char *why;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		elf_version(EV_CURRENT);
		Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
		ok = elf && cli_elf_machine_ok(elf, &why);
		elf_end(elf);
	}
	close(fd);
	return ok;
}

static void append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			abort();
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

char *cli_ld_expand(const char *list, const char *origin)
{
	static const struct { const char *token, *value; } tokens[] = {
		{ "ORIGIN", NULL }, { "LIB", "lib/" TRIPLET }, { "PLATFORM", PLATFORM },
	};
	char *buf = NULL;
	size_t len = 0, cap = 0;

	append(&buf, &len, &cap, "", 0);
	for (const char *p = list; *p;) {
		if (*p == '$') {
			int brace = p[1] == '{';
			const char *t = p + 1 + brace;
			size_t k;
			for (k = 0; k < sizeof tokens / sizeof *tokens; k++) {
				size_t n = strlen(tokens[k].token);
				if (strncmp(t, tokens[k].token, n) == 0 && (!brace || t[n] == '}') &&
				    (brace || !((t[n] >= 'A' && t[n] <= 'Z') || t[n] == '_'))) {
					const char *v = k == 0 ? origin : tokens[k].value;
					append(&buf, &len, &cap, v, strlen(v));
					p = t + n + brace;
					break;
				}
			}
			if (k < sizeof tokens / sizeof *tokens)
				continue;
		}
		append(&buf, &len, &cap, p, 1);
		p++;
	}
	return buf;
}

/* Try name in each folder of a colon list; an empty entry is the current folder. */
static int in_dirs(const char *dirs, const char *name, int (*reject)(const char *), char *out, size_t size)
{
	if (!dirs)
		return -1;
	const char *p = dirs;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char path[8192];
		snprintf(path, sizeof path, "%.*s%s%s", (int)n, n ? p : ".", "/", name);
		if (cli_elf_native(path) && !(reject && reject(path))) {
			snprintf(out, size, "%s", path);
			return 0;
		}
		if (!end)
			return -1;
		p = end + 1;
	}
}

struct cache_entry {
	char *name, *path;
};
static struct cache_entry *cache;
static size_t ncache;
static int cache_read;

static void read_cache(void)
{
	static const char *const ldconfig[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	char cmd[64], line[8192];
	FILE *f = NULL;

	cache_read = 1;
	for (size_t i = 0; i < sizeof ldconfig / sizeof *ldconfig && !f; i++)
		if (access(ldconfig[i], X_OK) == 0) {
			snprintf(cmd, sizeof cmd, "%s -p 2>/dev/null", ldconfig[i]);
			f = popen(cmd, "r");
		}
	if (!f)
		return;
	/* "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1" */
	while (fgets(line, sizeof line, f)) {
		char *arrow = strstr(line, " => "), *name = line, *sp;
		if (!arrow || (line[0] != '\t' && line[0] != ' '))
			continue;
		while (*name == '\t' || *name == ' ')
			name++;
		if (!(sp = strchr(name, ' ')))
			continue;
		*sp = '\0';
		char *path = arrow + 4;
		path[strcspn(path, "\n")] = '\0';
		struct cache_entry *c = realloc(cache, (ncache + 1) * sizeof *cache);
		if (!c)
			break;
		cache = c;
		cache[ncache].name = strdup(name);
		cache[ncache].path = strdup(path);
		ncache++;
	}
	pclose(f);
}

int cli_ld_cache_lookup(const char *name, int (*reject)(const char *), char *out, size_t size)
{
	if (!cache_read)
		read_cache();
	for (size_t i = 0; i < ncache; i++)
		if (cache[i].name && cache[i].path && strcmp(cache[i].name, name) == 0 &&
		    cli_elf_native(cache[i].path) && !(reject && reject(cache[i].path))) {
			snprintf(out, size, "%s", cache[i].path);
			return 0;
		}
	return -1;
}

static const char default_dirs[] =
	"/lib/" TRIPLET ":/usr/lib/" TRIPLET ":/lib64:/usr/lib64:/lib:/usr/lib";

int cli_ld_search(const char *name, const char *rpath, const char *runpath,
		  int (*reject)(const char *), char *out, size_t size)
{
	if (strchr(name, '/')) {
		if (cli_elf_native(name) && !(reject && reject(name))) {
			snprintf(out, size, "%s", name);
			return 0;
		}
		return -1;
	}
	const char *ld_library_path = getenv("LD_LIBRARY_PATH");
	if (rpath && *rpath && in_dirs(rpath, name, reject, out, size) == 0)
		return 0;
	if (ld_library_path && *ld_library_path && in_dirs(ld_library_path, name, reject, out, size) == 0)
		return 0;
	if (runpath && *runpath && in_dirs(runpath, name, reject, out, size) == 0)
		return 0;
	if (cli_ld_cache_lookup(name, reject, out, size) == 0)
		return 0;
	return in_dirs(default_dirs, name, reject, out, size);
}
