/* The CUDA runtime a file carries.  Needed dynamically: a DT_NEEDED
 * libcudart.so.N (N.M before CUDA 11), used when the file imports a cuda*
 * function.  Linked statically: nvcc's default, which leaves the runtime's
 * libcudart_static_<hash> symbols and its error messages ("CUDA driver
 * version is insufficient for CUDA runtime version") in the file; its version
 * is the newest "Cuda compilation tools, release X.Y" string nvcc leaves with
 * the GPU code, and at least the newest driver function whose name the
 * runtime carries (a runtime cannot ask for a function younger than itself).
 * nvcc links that runtime even into a program that only uses the driver API;
 * the runtime refuses an old driver only once the program calls it. */
#include "config.h"
#include "cudart.h"
#include "table.h"
#include "rtmarks.h"
#include "fatbin.h"
#include "unpack.h"
#include "calls.h"
#include <ctype.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "libcudart.so.13" -> 13000 (major only), "libcudart.so.10.2" -> 10020. */
static int soname_version(const char *name, int *major_only)
{
	int major = 0, minor = 0, n = 0;
	const char *p = strstr(name, "libcudart.so.");
	if (!p || sscanf(p + 13, "%d%n", &major, &n) != 1 || major < 1 || major > 99)
		return 0;
	*major_only = major >= 11;
	if (major < 11 && p[13 + n] == '.')
		sscanf(p + 14 + n, "%d", &minor);
	return major * 1000 + (minor >= 0 && minor <= 9 ? minor * 10 : 0);
}

/* GPU code: nvcc's fatbins (.nv_fatbin; __nv_relfatbin in objects built
 * with -rdc).  Most of a large library's bytes, and none of its host data. */
static int gpu_code_section(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
	return name && (strcmp(name, ".nv_fatbin") == 0 || strcmp(name, "__nv_relfatbin") == 0);
}

/* Calls fn on each allocated, read-only data section with contents, GPU
 * code aside.  The marks searched for are the host's constant strings (a
 * PTX image's "release 12.8" comment is its compiler's), and what is
 * skipped is most of a large library: its fatbins, and the writable data in
 * which some keep their own GPU code (cuFFT: 278 MB of .ldata). */
void cli_each_data(Elf *elf, cli_data_fn fn, void *arg)
{
	size_t shstrndx = 0;
	int named = elf_getshdrstrndx(elf, &shstrndx) == 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & (SHF_EXECINSTR | SHF_WRITE)) || (named && gpu_code_section(elf, shstrndx, &sh)) ||
		    !(d = elf_rawdata(scn, NULL)) || !d->d_buf)
			continue;
		fn(d->d_buf, d->d_size, arg);
	}
}

struct marks {
	int release;      /* newest "release X.Y" */
	char release_text[64];
	int error_text;   /* the runtime's error message is there */
	int names;        /* newest driver function named */
	const char *newest_name;
	int unpacked;     /* the release came from a compressed image's head */
};

static void find_marks(const unsigned char *p, size_t n, void *arg)
{
	struct marks *m = arg;
	rt_find_release(p, n, &m->release, m->release_text, sizeof m->release_text);
	if (rt_has_runtime_mark(p, n))
		m->error_text = 1;
}

/* The driver functions named in the file's data: cu[A-Z]... strings. */
static void find_names(const unsigned char *p, size_t n, void *arg)
{
	struct marks *m = arg;
	char name[128];
	for (size_t i = 0; i + 3 < n; i++) {
		if ((i && p[i - 1]) || p[i] != 'c' || p[i + 1] != 'u' || !isupper(p[i + 2]))
			continue;
		size_t len = strnlen((const char *)p + i, n - i);
		if (len >= sizeof name || i + len >= n)
			continue;
		memcpy(name, p + i, len + 1);
		int idx = cushim_lookup_index(name);
		if (idx >= 0 && cushim_syms[idx].version > m->names) {
			m->names = cushim_syms[idx].version;
			m->newest_name = cushim_syms[idx].name;
		}
	}
}

/* Symbols: static runtime marks, and imported cuda* functions. */
static void scan_symbols(Elf *elf, int *static_mark, int *imports, char *first, size_t size)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 1; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *name;
			if (!gelf_getsym(d, (int)k, &s) || !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
				continue;
			if (s.st_shndx != SHN_UNDEF && strncmp(name, "libcudart_static_", 17) == 0)
				*static_mark = 1;
			else if (s.st_shndx == SHN_UNDEF && sh.sh_type == SHT_DYNSYM && cli_runtime_entry(name) &&
				 (*imports)++ == 0)
				snprintf(first, size, "%s", name);
		}
	}
}

static void dynamic_runtime(const struct cli_runtime_in *in, int imports, const char *first,
			    struct cli_runtime *rt)
{
	for (size_t i = 0; i < in->nneeded; i++) {
		int v = soname_version(in->needed[i], &rt->major_only);
		if (!v)
			continue;
		rt->linkage = RT_DYNAMIC;
		rt->version = v;
		snprintf(rt->library, sizeof rt->library, "%s", in->needed[i]);
		snprintf(rt->from, sizeof rt->from, "DT_NEEDED %s", in->needed[i]);
		rt->used = imports > 0;
		if (imports)
			snprintf(rt->used_why, sizeof rt->used_why, "it imports %s%s", first,
				 imports > 1 ? " and other runtime functions" : "");
		else
			snprintf(rt->used_why, sizeof rt->used_why, "it imports no cuda* function");
		return;
	}
}

/* The file is libcudart.so itself: its version from the file's real name
 * (libcudart.so.13.0.96), else from its soname. */
static void self_runtime(const struct cli_runtime_in *in, struct cli_runtime *rt)
{
	char real[PATH_MAX];
	int major, minor;
	const char *base = realpath(in->path, real) ? strrchr(real, '/') : NULL;
	rt->linkage = RT_SELF;
	rt->used = 1;
	snprintf(rt->used_why, sizeof rt->used_why, "it is the runtime");
	if (base && sscanf(base, "/libcudart.so.%d.%d", &major, &minor) == 2 && major > 0 && major < 100 &&
	    minor >= 0 && minor <= 9) {
		rt->version = major * 1000 + minor * 10;
		snprintf(rt->from, sizeof rt->from, "its file name %s", base + 1);
		return;
	}
	rt->version = soname_version(in->soname, &rt->major_only);
	snprintf(rt->from, sizeof rt->from, "its soname %s", in->soname);
}

/* The compiler's release line ("Cuda compilation tools, release 13.0") near
 * the start of each GPU image: nvcc writes it into the PTX it builds, and
 * links its own toolkit's static runtime beside it.  A compressed PTX
 * image's head is unpacked to read it (unpack.c), never more than that. */
#define IMAGE_HEAD 4096

static void find_release_in_head(const struct fb_head *h, void *arg)
{
	struct marks *m = arg;
	unsigned char head[IMAGE_HEAD];
	long n;
	if (!h->method) {
		int before = m->release;
		rt_find_release(h->p, h->n, &m->release, m->release_text, sizeof m->release_text);
		if (m->release != before)
			m->unpacked = 0;
	} else if (h->kind == FB_PTX && (n = cli_unpack_head(h->method, h->p, h->n, head, sizeof head)) > 0) {
		int before = m->release;
		rt_find_release(head, (size_t)n, &m->release, m->release_text, sizeof m->release_text);
		if (m->release != before)
			m->unpacked = 1;
	}
}

static void gpu_code_release(Elf *elf, struct marks *m)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && gpu_code_section(elf, shstrndx, &sh) &&
		    (d = elf_rawdata(scn, NULL)) && d->d_buf)
			fb_each_head(d->d_buf, d->d_size, IMAGE_HEAD, find_release_in_head, m);
	}
}

int cli_gpu_release(Elf *elf, char *text, size_t size, int *unpacked)
{
	struct marks m = { 0 };
	gpu_code_release(elf, &m);
	snprintf(text, size, "%s", m.release_text);
	*unpacked = m.unpacked;
	return m.release;
}

void cli_gpu_release_raw(const unsigned char *p, size_t n, int *release, char *text, size_t size, int *unpacked)
{
	struct marks m = { 0 };
	fb_each_head(p, n, IMAGE_HEAD, find_release_in_head, &m);
	*release = m.release;
	snprintf(text, size, "%s", m.release_text);
	*unpacked = m.unpacked;
}

/* The release: the host's own marks, else the line of the compiler that
 * built the GPU code linked with it; and the newest driver function named. */
static void static_version(Elf *elf, struct marks *m, struct cli_runtime *rt)
{
	if (!m->release)
		gpu_code_release(elf, m);
	cli_each_data(elf, find_names, m);
	size_t len = strlen(rt->from);
	rt->version = m->release > m->names ? m->release : m->names;
	rt->at_least = m->names > m->release;
	if (m->release)
		snprintf(rt->from + len, sizeof rt->from - len, ", \"%s\"", m->release_text);
	len = strlen(rt->from);
	if (m->names > m->release)
		snprintf(rt->from + len, sizeof rt->from - len, ", the name %s (CUDA %d.%d)", m->newest_name,
			 m->names / 1000, m->names % 1000 / 10);
}

void cli_runtime_detect(Elf *elf, const struct cli_runtime_in *in, struct cli_runtime *rt)
{
	struct marks m = { 0 };
	int static_mark = 0, imports = 0;
	char first[128] = "";

	memset(rt, 0, sizeof *rt);
	if (in->soname && strncmp(in->soname, "libcudart.so", 12) == 0) {
		self_runtime(in, rt);
		return;
	}
	scan_symbols(elf, &static_mark, &imports, first, sizeof first);
	dynamic_runtime(in, imports, first, rt);
	if (rt->linkage == RT_NONE && imports) {
		rt->linkage = RT_IMPORTED;
		rt->used = 1;
		snprintf(rt->used_why, sizeof rt->used_why, "it imports %s%s", first,
			 imports > 1 ? " and other runtime functions" : "");
		snprintf(rt->from, sizeof rt->from, "no DT_NEEDED libcudart");
	}
	cli_each_data(elf, find_marks, &m);
	if (!static_mark && !(m.error_text && (rt->linkage == RT_NONE || rt->linkage == RT_IMPORTED)))
		return;
	if (rt->linkage == RT_DYNAMIC) /* both: the static one is what the file's own calls reach */
		rt->library[0] = '\0';
	rt->linkage = RT_STATIC;
	rt->major_only = 0;
	snprintf(rt->from, sizeof rt->from, "%s", static_mark ? "libcudart_static symbols" :
		 "the runtime's error messages");
	static_version(elf, &m, rt);
	rt->used = cli_runtime_called(elf, rt->used_why, sizeof rt->used_why);
}
