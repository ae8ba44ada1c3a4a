/* Finding a library the way the loader does, for the command: the library's
 * search (src/common/ldsearch.c), in which only files for this machine count, and
 * the real driver by the library's rule (src/common/realdriver.c).  What the
 * loader makes of each file it meets on the way is judged from the file's
 * type and its ELF header, read without ever opening what is not a regular
 * file: a FIFO would block the open for ever, a device may act on it. */
#include "config.h"
#include "cli.h"
#include "conf.h"
#include "realdriver.h"
#include "ldsearch.h"
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

int cli_open_regular(const char *path, struct stat *st, const char **type)
{
	return cli_open_regular_as(path, O_RDONLY, st, type);
}

int cli_open_regular_as(const char *path, int how, struct stat *st, const char **type)
{
	int fd, flags;
	*type = NULL;
	if (stat(path, st) != 0)
		return -1;
	if (!S_ISREG(st->st_mode)) {
		*type = type_name(st->st_mode);
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, how | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) { /* replaced since the stat */
		*type = type_name(st->st_mode);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The ELF header at h (n bytes read): of this machine's class and machine? */
static int native_header(const unsigned char *h, ssize_t n)
{
	int cls, data;
	unsigned machine;
	cli_native_elf(&cls, &data, &machine);
	if (n < EI_NIDENT + 4 || memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_CLASS] != cls || h[EI_DATA] != data)
		return 0;
	return (data == ELFDATA2LSB ? (unsigned)h[18] | (unsigned)h[19] << 8 : (unsigned)h[18] << 8 | h[19]) ==
	       machine;
}

int cli_elf_native(const char *path)
{
	unsigned char h[EI_NIDENT + 4];
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, h, sizeof h, 0);
	close(fd);
	return native_header(h, n);
}

/* A regular file the loader opens: whether it loads it, passes over it
 * (another class or machine, as glibc's open_verify does) or stops there,
 * and why, in the loader's own words where it has them. */
static int judge_opened(int fd, const struct stat *st, char *why, size_t size)
{
	ElfW(Ehdr) eh;
	ssize_t n = pread(fd, &eh, sizeof eh, 0);
	if (n < (ssize_t)sizeof eh) {
		if (st->st_size == 0)
			snprintf(why, size, "it is empty (0 bytes): \"file too short\"");
		else
			snprintf(why, size, "it is %lld bytes, shorter than an ELF header: \"file too short\"",
				 (long long)st->st_size);
		return CLI_LD_STOPS;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(why, size, "it is not an ELF file: \"invalid ELF header\"");
		return CLI_LD_STOPS;
	}
	if (!native_header(eh.e_ident, n)) {
		int cls, data;
		unsigned machine;
		cli_native_elf(&cls, &data, &machine);
		if (eh.e_ident[EI_CLASS] != cls || eh.e_ident[EI_DATA] == data)
			return CLI_LD_SKIPPED; /* another word size or machine: the loader looks on */
		snprintf(why, size, "it is an ELF file of the other byte order: \"invalid ELF header\"");
		return CLI_LD_STOPS;
	}
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) {
		snprintf(why, size, "it is an ELF file of type %u, not a shared library: \"only ET_DYN and ET_EXEC "
			 "can be loaded\"", (unsigned)eh.e_type);
		return CLI_LD_STOPS;
	}
	return CLI_LD_LOADS;
}

/* A library cut short: its program headers, or a segment they map, lie
 * beyond its end (the loader fails, or the program dies of SIGBUS when it
 * touches the missing pages). */
static int cut_short(int fd, const struct stat *st, char *why, size_t size)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	off_t end = st->st_size;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
		return 0;
	int cut = eh.e_phentsize != sizeof ph || eh.e_phoff > (ElfW(Off))end ||
		  (ElfW(Off))eh.e_phnum * sizeof ph > (ElfW(Off))end - eh.e_phoff;
	for (unsigned i = 0; !cut && i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
			cut = 1;
		else if (ph.p_type == PT_LOAD && (ph.p_offset > (ElfW(Off))end || ph.p_filesz > end - ph.p_offset))
			cut = 1;
	}
	if (cut)
		snprintf(why, size, "it is truncated (%lld bytes; its program headers say it is longer): the loader "
			 "fails on it, or the program dies of SIGBUS", (long long)end);
	return cut;
}

int cli_ld_candidate(const char *path, char *why, size_t size)
{
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type), v;
	if (fd < 0) {
		if (!type || S_ISSOCK(st.st_mode))
			return CLI_LD_SKIPPED; /* absent, unreadable, or a socket (no open succeeds): the loader looks on */
		if (S_ISFIFO(st.st_mode))
			snprintf(why, size, "it is a FIFO: the loader blocks for ever opening it");
		else
			snprintf(why, size, "it is %s, not a library: the loader stops at it", type);
		return CLI_LD_STOPS;
	}
	v = judge_opened(fd, &st, why, size);
	if (v == CLI_LD_LOADS && cut_short(fd, &st, why, size))
		v = CLI_LD_STOPS;
	close(fd);
	return v;
}

char *cli_ld_expand(const char *list, const char *origin)
{
	char *s = cushim_ld_expand(list, origin);
	if (!s)
		abort();
	return s;
}

struct want {
	int (*reject)(const char *);
	char *out;
	size_t size;
	char *why;
	size_t whysize;
	int verdict;
};

static int accept_native(const char *path, void *ctx)
{
	struct want *w = ctx;
	if (!cli_elf_native(path) || (w->reject && w->reject(path)))
		return 0;
	snprintf(w->out, w->size, "%s", path);
	return 1;
}

int cli_ld_search(const char *name, const char *rpath, const char *runpath,
		  int (*reject)(const char *), char *out, size_t size)
{
	struct want w = { reject, out, size, NULL, 0, 0 };
	return cushim_ld_search(name, rpath, runpath, accept_native, &w) ? 0 : -1;
}

/* The first file the loader does not pass over ends the walk. */
static int accept_loaded(const char *path, void *ctx)
{
	struct want *w = ctx;
	if ((w->verdict = cli_ld_candidate(path, w->why, w->whysize)) == CLI_LD_SKIPPED)
		return 0;
	snprintf(w->out, w->size, "%s", path);
	return 1;
}

int cli_ld_find(const char *name, const char *rpath, const char *runpath, char *out, size_t size, char *why,
		size_t whysize)
{
	struct want w = { NULL, out, size, why, whysize, CLI_LD_SKIPPED };
	if (!cushim_ld_search(name, rpath, runpath, accept_loaded, &w))
		return CLI_LD_SKIPPED;
	return w.verdict;
}

static int accept_driver(const char *path, void *ctx)
{
	struct want *w = ctx;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* dlopen would open a FIFO, and block */
	void *h = cushim_real_driver_open(path);
	if (!h)
		return 0;
	dlclose(h);
	snprintf(w->out, w->size, "%s", path);
	return 1;
}

int cli_real_driver(char *out, size_t size, const char **bad)
{
	struct cushim_conf c;
	struct want w = { NULL, out, size, NULL, 0, 0 };

	cushim_conf_read(&c);
	cushim_conf_clear(&c);
	*bad = NULL;
	if (c.driver) {
		if (accept_driver(c.driver, &w))
			return 1;
		*bad = c.driver;
	}
	return cushim_ld_search("libcuda.so.1", NULL, NULL, accept_driver, &w) ? 0 : -1;
}
