/* cushim check: reading one file with libelf.  Its undefined cu* imports,
 * looked up in the symbol table cushim is built from; its DT_NEEDED, rpath
 * and soname; the CUDA runtime it carries; and the GPU code in its fatbins.
 * A .fatbin file is read for its GPU code alone. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "table.h"
#include "modimage.h"
#include "rtmarks.h"
#include "check-wheel.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAW_FATBIN_MAX (1u << 30)

#define set_error check_set_error
void check_set_error(struct result *r, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	free(r->error);
	r->error = strdup(buf);
}

/* A driver function: cu followed by a capital (cuInit, cuCtxCreate_v2); the
 * runtime (cudaMalloc) and the libraries (cublasCreate) are not. */
static int driver_name(const char *s)
{
	return s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z';
}

static int section_fits(const GElf_Shdr *sh, off_t size)
{
	if (sh->sh_type == SHT_NOBITS)
		return 1;
	return sh->sh_offset <= (GElf_Off)size && sh->sh_size <= (GElf_Off)size - sh->sh_offset;
}

/* A regular file that holds nothing: why, else NULL. */
static const char *empty_file(const struct stat *st)
{
	return st->st_size == 0 ? "is empty, not an ELF file" : NULL;
}

/* A GPU code file, judged for its code alone: a fatbin (it begins with the
 * fatbin magic), a cubin (an ELF file for EM_CUDA) or PTX text (a .ptx
 * file), from its first bytes h[0..n): RAW_FATBIN, RAW_CUBIN, RAW_PTX, or 0. */
static int raw_kind(const unsigned char *h, size_t n, const char *name)
{
	size_t len = strlen(name);
	if (n >= 4 && fb_le(h, 4) == FB_MAGIC)
		return RAW_FATBIN;
	if (n >= 20 && memcmp(h, ELFMAG, SELFMAG) == 0 && fb_le(h + 18, 2) == EM_CUDA)
		return RAW_CUBIN;
	return len > 4 && strcmp(name + len - 4, ".ptx") == 0 ? RAW_PTX : 0;
}

static int gpu_file(int fd, const char *path)
{
	unsigned char h[20];
	ssize_t n = pread(fd, h, sizeof h, 0);
	return raw_kind(h, n > 0 ? (size_t)n : 0, path);
}

/* GPU code on its own, in memory: its images, and its compiler's release
 * line (a fatbin's image heads, a PTX file's own first lines). */
static void read_raw_bytes(struct result *r, const unsigned char *p, size_t n)
{
	struct mi_image im;
	if (fb_le(p, 4) == FB_MAGIC) {
		cli_gpucode_read_raw(p, n, &r->gpu);
		cli_gpu_release_raw(p, n, &r->gpu_release, r->gpu_release_text, sizeof r->gpu_release_text,
				    &r->gpu_release_unpacked);
		return;
	}
	mi_read(p, n, &im);
	r->gpu.list = im.list;
	if (im.error[0] && !im.list.n)
		snprintf(r->gpu.error, sizeof r->gpu.error, "%s", im.error);
	if (r->raw_fatbin == RAW_PTX)
		rt_find_release(p, n < 4096 ? n : 4096, &r->gpu_release, r->gpu_release_text,
				sizeof r->gpu_release_text);
}

static int read_raw_image(struct result *r, int fd, off_t size, const char *path)
{
	if (!(r->raw_fatbin = gpu_file(fd, path)))
		return 0;
	if ((uint64_t)size > RAW_FATBIN_MAX) {
		set_error(r, "is GPU code of %lld bytes, more than cushim check reads (%u)", (long long)size,
			  RAW_FATBIN_MAX);
		return 1;
	}
	unsigned char *p = malloc((size_t)size);
	if (!p)
		abort();
	if (pread(fd, p, (size_t)size, 0) != (ssize_t)size)
		set_error(r, "cannot be read: %s", strerror(errno ? errno : EIO));
	else
		read_raw_bytes(r, p, (size_t)size);
	free(p);
	return 1;
}

/* Whether libelf can read it as a program or library of this machine. */
static int usable_elf(struct result *r, Elf *elf, GElf_Ehdr *eh)
{
	const char *why;
	if (elf_kind(elf) == ELF_K_AR) {
		set_error(r, "is an ar archive (a static library), not a program or shared library");
		return 0;
	}
	if (!(r->native = cli_elf_checkable(elf, &r->machine, &why))) {
		set_error(r, "is %s", why);
		return 0;
	}
	gelf_getehdr(elf, eh);
	if (eh->e_type == ET_CORE) {
		set_error(r, "is a core dump, not a program or shared library");
		return 0;
	}
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN && eh->e_type != ET_REL) {
		set_error(r, "is an ELF file of unknown type %u", eh->e_type);
		return 0;
	}
	return 1;
}

/* A cut-off file: libelf reads what is there, so compare the tables'
 * extents it reports with the file's size. */
static int whole_elf(struct result *r, Elf *elf, const GElf_Ehdr *eh, off_t st_size)
{
	size_t shnum;
	if (elf_getshdrnum(elf, &shnum) != 0) {
		set_error(r, "is a truncated or corrupt ELF file: %s", elf_errmsg(-1));
		return 0;
	}
	GElf_Off size = (GElf_Off)st_size, shcount = shnum ? shnum : (eh->e_shnum ? eh->e_shnum : 1);
	int cut = (eh->e_phnum && eh->e_phoff + (GElf_Off)eh->e_phnum * eh->e_phentsize > size) ||
		  (eh->e_shoff && eh->e_shoff + shcount * eh->e_shentsize > size);
	for (size_t i = 0; !cut && i < eh->e_phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_filesz && ph.p_offset + ph.p_filesz > size)
			cut = 1;
	}
	if (cut)
		set_error(r, "is a truncated ELF file (%lld bytes; its headers say it is longer)", (long long)st_size);
	return !cut;
}

static void add_import(struct result *r, const char *name)
{
	struct import *im = realloc(r->imports, (r->nimports + 1) * sizeof *im);
	if (!im)
		abort();
	r->imports = im;
	im[r->nimports] = (struct import){ strdup(name), cushim_lookup_index(name), 0, NULL };
	r->nimports++;
}

static void read_symbols(struct result *r, Elf *elf, const GElf_Shdr *sh, Elf_Data *d)
{
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t k = 1; k < n; k++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(d, (int)k, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		if (GELF_ST_BIND(sym.st_info) != STB_GLOBAL && GELF_ST_BIND(sym.st_info) != STB_WEAK)
			continue;
		if ((name = elf_strptr(elf, sh->sh_link, sym.st_name)) && driver_name(name))
			add_import(r, name);
	}
}

static void keep(char **slot, const char *s)
{
	free(*slot);
	*slot = strdup(s);
}

static void read_dynamic(struct result *r, Elf *elf, const GElf_Shdr *sh, Elf_Data *d)
{
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t k = 0; k < n; k++) {
		GElf_Dyn dyn;
		const char *s;
		if (!gelf_getdyn(d, (int)k, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_SONAME)
			continue;
		if (!(s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_NEEDED) {
			char **nn = realloc(r->needed, (r->nneeded + 1) * sizeof *nn);
			if (!nn)
				abort();
			r->needed = nn;
			nn[r->nneeded++] = strdup(s);
		} else if (dyn.d_tag == DT_RPATH) {
			keep(&r->rpath, s);
		} else if (dyn.d_tag == DT_SONAME) {
			keep(&r->soname, s);
		} else {
			keep(&r->runpath, s);
			r->has_runpath = 1;
		}
	}
}

static int has_pt_dynamic(Elf *elf, const GElf_Ehdr *eh)
{
	for (size_t i = 0; i < eh->e_phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
			return 1;
	}
	return 0;
}

/* The symbol table (imports) and the dynamic section: 0, or -1 with an error. */
static int read_sections(struct result *r, Elf *elf, const GElf_Ehdr *eh, off_t st_size)
{
	int want = eh->e_type == ET_REL ? SHT_SYMTAB : SHT_DYNSYM, have_symbols = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh)) {
			set_error(r, "is a corrupt ELF file: %s", elf_errmsg(-1));
			return -1;
		}
		if (!section_fits(&sh, st_size)) {
			set_error(r, "is a truncated ELF file (%lld bytes; a section ends beyond it)", (long long)st_size);
			return -1;
		}
		int dyn = sh.sh_type == SHT_DYNAMIC && eh->e_type != ET_REL;
		if ((int)sh.sh_type != want && !dyn)
			continue;
		if (!(d = elf_getdata(scn, NULL))) {
			set_error(r, "is a corrupt ELF file (%s): %s", dyn ? "dynamic section" : "symbol table",
				  elf_errmsg(-1));
			return -1;
		}
		if (dyn)
			read_dynamic(r, elf, &sh, d);
		else
			have_symbols = 1, read_symbols(r, elf, &sh, d);
	}
	if (!have_symbols && has_pt_dynamic(elf, eh)) {
		set_error(r, "has no section headers for its dynamic symbols; cushim check cannot read its imports");
		return -1;
	}
	return 0;
}

/* The CUDA runtime and the GPU code of a readable file. */
static void read_cuda(struct result *r, Elf *elf, int mapped, const char *path)
{
	struct cli_runtime_in in = { path, r->needed, r->nneeded, r->soname };
	cli_runtime_detect(elf, &in, &r->rt);
	cli_jit_detect(elf, path, r->soname, &r->jit);
	check_loads_read(r, elf);
	cli_gpucode_read(elf, mapped, &r->gpu);
}

/* The file is mapped, not read: only the pages of the sections that matter
 * (the dynamic symbols, the dynamic section, the fatbins' headers) are
 * touched, and without read-ahead, so that memory does not grow with the
 * file's size. */
static void no_readahead(Elf *elf)
{
	size_t size;
	char *p = elf_rawfile(elf, &size);
	long page = sysconf(_SC_PAGESIZE);
	if (!p || page <= 0)
		return;
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
	madvise((void *)start, size + ((uintptr_t)p - start), MADV_RANDOM);
}

static void read_opened(struct result *r, Elf *elf, int mapped, off_t size, const char *path)
{
	GElf_Ehdr eh;
	if (usable_elf(r, elf, &eh) && whole_elf(r, elf, &eh, size) && read_sections(r, elf, &eh, size) == 0)
		read_cuda(r, elf, mapped, path);
}

static void read_elf(struct result *r, int fd, const struct stat *st, const char *path)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		set_error(r, "cannot be read as ELF: %s", elf_errmsg(-1));
		return;
	}
	no_readahead(elf);
	read_opened(r, elf, 1, st->st_size, path);
	elf_end(elf);
}

/* Bytes already in memory (a wheel's member): GPU code, or an ELF file. */
void check_read_memory(struct result *r, unsigned char *p, size_t n, const char *name)
{
	if (n >= 20 && (r->raw_fatbin = raw_kind(p, n, name)) != 0) {
		read_raw_bytes(r, p, n);
		return;
	}
	if (n == 0) {
		set_error(r, "is empty, not an ELF file");
		return;
	}
	Elf *elf = elf_memory((char *)p, n);
	if (!elf) {
		set_error(r, "cannot be read as ELF: %s", elf_errmsg(-1));
		return;
	}
	read_opened(r, elf, 0, (off_t)n, name);
	elf_end(elf);
}

/* What is not a regular file is never opened: a FIFO would block the open,
 * a device may act on it. */
void check_read(struct result *r, const char *path)
{
	struct stat st;
	const char *bad, *type;
	char why[512];
	int fd = cli_open_regular(path, &st, &type), err = errno, member = 0;

	if (fd < 0 && !type && (member = check_read_wheel_member(r, path, check_read_memory, why, sizeof why)) < 0)
		set_error(r, "%s", why);
	if (member)
		return;
	if (fd < 0 && type)
		set_error(r, S_ISDIR(st.st_mode) ? "is %s, not an ELF file" : "is %s, not a regular file; not opened",
			  type);
	else if (fd < 0)
		set_error(r, "cannot be opened: %s", strerror(err));
	else if ((bad = empty_file(&st)))
		set_error(r, "%s", bad);
	else if (!read_raw_image(r, fd, st.st_size, path))
		read_elf(r, fd, &st, path);
	if (fd >= 0)
		close(fd);
}

void check_free(struct result *r)
{
	free(r->file);
	free(r->needed_by);
	free(r->error);
	for (size_t i = 0; i < r->nimports; i++)
		free((char *)r->imports[i].name);
	free(r->imports);
	for (size_t i = 0; i < r->nneeded; i++)
		free(r->needed[i]);
	free(r->needed);
	free(r->rpath);
	free(r->runpath);
	free(r->soname);
	check_free_unfound(r);
	cli_loads_free(&r->loads);
	cli_gpucode_free(&r->gpu);
}

/* One file read as `cushim check` reads it, for the fuzzer (tests/fuzz):
 * 0 and the number of cu* imports if it is a readable ELF file (or fatbin)
 * whose GPU code reads, else 1 and the reason in why. */
int cli_check_read(const char *path, size_t *nimports, char *why, size_t whysize)
{
	struct result r = { 0 };
	int bad;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	check_read(&r, path);
	bad = r.error != NULL || r.gpu.error[0];
	if (why && whysize)
		snprintf(why, whysize, "%s", r.error ? r.error : r.gpu.error);
	if (nimports)
		*nimports = r.nimports;
	check_free(&r);
	return bad;
}

long cli_check_wheel(const char *path)
{
	struct tree t = { 0 };
	long n = 0;
	if (elf_version(EV_CURRENT) == EV_NONE || tree_wheel(&t, path) != 0)
		return tree_free(&t), -1;
	for (size_t i = 0; i < t.nfiles; i++, n++) {
		struct result r = { 0 };
		check_read(&r, t.files[i]);
		check_free(&r);
	}
	tree_wheels_done();
	tree_free(&t);
	return n;
}
