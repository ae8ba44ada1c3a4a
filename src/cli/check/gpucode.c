/* The GPU code of a host ELF file: the fatbins of its .nv_fatbin section, and
 * those the wrappers in .nvFatBinSegment register (__fatBinC_Wrapper_t: u32
 * magic 0x466243B1, u32 version, pointer to a fatbin, pointer to prelinked
 * fatbins); in a position-independent file the pointers are RELATIVE
 * relocations.  Which image a GPU runs is gpufit.c's. */
#include "config.h"
#include "gpucode.h"
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WRAPPER_SIZE 24

struct region {
	GElf_Addr addr;
	const unsigned char *p;
	size_t n;
	int found;
};

/* The sections named .nv_fatbin and .nvFatBinSegment. */
static void find_sections(Elf *elf, struct region *fatbin, struct region *seg)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		struct region *r = strcmp(name, ".nv_fatbin") == 0 ? fatbin :
				   strcmp(name, ".nvFatBinSegment") == 0 ? seg : NULL;
		if (r && (d = elf_rawdata(scn, NULL)) && d->d_buf) {
			*r = (struct region){ sh.sh_addr, d->d_buf, d->d_size, 1 };
		}
	}
}

static int relative_type(Elf *elf)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return -1;
	switch (eh.e_machine) {
	case EM_X86_64: return R_X86_64_RELATIVE;
	case EM_AARCH64: return R_AARCH64_RELATIVE;
	case EM_PPC64: return R_PPC64_RELATIVE;
	default: return -1;
	}
}

static int cmp_addr(const void *a, const void *b)
{
	GElf_Addr x = *(const GElf_Addr *)a, y = *(const GElf_Addr *)b;
	return x < y ? -1 : x > y;
}

/* Fill in the pointers (ptrs[i] for the field at where[i], sorted) that
 * RELATIVE relocations set at load time. */
static void apply_relative(Elf *elf, const GElf_Addr *where, GElf_Addr *ptrs, size_t n)
{
	int type = relative_type(elf);
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); type >= 0 && scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Rela r;
			const GElf_Addr *hit;
			if (!gelf_getrela(d, (int)k, &r) || (int)GELF_R_TYPE(r.r_info) != type)
				continue;
			if ((hit = bsearch(&r.r_offset, where, n, sizeof *where, cmp_addr)))
				ptrs[hit - where] = (GElf_Addr)r.r_addend;
		}
	}
}

int cli_elf_bytes_at(Elf *elf, GElf_Addr vaddr, const unsigned char **p, size_t *n)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS ||
		    vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		if (!(d = elf_rawdata(scn, NULL)) || !d->d_buf || vaddr - sh.sh_addr >= d->d_size)
			return -1;
		*p = (const unsigned char *)d->d_buf + (vaddr - sh.sh_addr);
		*n = d->d_size - (size_t)(vaddr - sh.sh_addr);
		return 0;
	}
	return -1;
}

/* A fatbin a wrapper registers from outside .nv_fatbin. */
static int read_registered(Elf *elf, GElf_Addr ptr, const struct region *fatbin, struct cli_gpucode *g)
{
	const unsigned char *p;
	size_t n, used;
	char why[400];
	if (ptr == 0 || (fatbin->found && ptr >= fatbin->addr && ptr - fatbin->addr < fatbin->n))
		return 0; /* not resolved here (an object file), or read with .nv_fatbin */
	if (cli_elf_bytes_at(elf, ptr, &p, &n) != 0) {
		snprintf(g->error, sizeof g->error, ".nvFatBinSegment registers a fatbin at 0x%" PRIx64
			 ", which is in no section of the file", (uint64_t)ptr);
		return -1;
	}
	if (fb_read_one(p, n, ptr, &g->list, &used, why, sizeof why) != 0) {
		snprintf(g->error, sizeof g->error, "the fatbin .nvFatBinSegment registers: %s", why);
		return -1;
	}
	return 0;
}

static void read_wrappers(Elf *elf, const struct region *seg, const struct region *fatbin, struct cli_gpucode *g)
{
	size_t n = seg->n / WRAPPER_SIZE;
	GElf_Addr *where = calloc(n + 1, sizeof *where), *ptrs = calloc(n + 1, sizeof *ptrs);
	if (!where || !ptrs)
		abort();
	for (size_t i = 0; i < n; i++) {
		const unsigned char *w = seg->p + i * WRAPPER_SIZE;
		if (fb_le(w, 4) != FB_WRAPPER_MAGIC) {
			snprintf(g->error, sizeof g->error, "fatbin wrapper %zu of .nvFatBinSegment has magic 0x%08"
				 PRIx64 ", not 0x%08x", i + 1, fb_le(w, 4), FB_WRAPPER_MAGIC);
			goto out;
		}
		where[i] = seg->addr + i * WRAPPER_SIZE + 8;
		ptrs[i] = (GElf_Addr)fb_le(w + 8, 8);
	}
	g->wrappers = (int)n;
	apply_relative(elf, where, ptrs, n);
	for (size_t i = 0; i < n; i++)
		if (read_registered(elf, ptrs[i], fatbin, g) != 0)
			break;
out:
	free(where);
	free(ptrs);
}

/* The pages of a mapped file read already, given back every LET_GO bytes:
 * the kernel maps the pages around each one touched, so a fatbin section
 * read whole would stay resident, as large as the file's GPU code. */
#define LET_GO (16u << 20)
struct behind {
	uintptr_t from; /* the first page not given back */
	uintptr_t page;
};

static void let_go(const unsigned char *next, void *arg)
{
	struct behind *b = arg;
	uintptr_t upto = (uintptr_t)next & ~(b->page - 1);
	if (upto >= b->from + LET_GO) {
		madvise((void *)b->from, upto - b->from, MADV_DONTNEED);
		b->from = upto;
	}
}

void cli_gpucode_read(Elf *elf, int mapped, struct cli_gpucode *g)
{
	struct region fatbin = { 0 }, seg = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	char why[400];
	memset(g, 0, sizeof *g);
	find_sections(elf, &fatbin, &seg);
	struct behind b = { ((uintptr_t)fatbin.p + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1), (uintptr_t)page };
	int by_page = mapped && page > 0 && fatbin.found;
	if (fatbin.found && fb_read_region_by(fatbin.p, fatbin.n, 0, &g->list, by_page ? let_go : NULL, &b, why,
					      sizeof why) != 0) {
		snprintf(g->error, sizeof g->error, ".nv_fatbin: %s", why);
		return;
	}
	if (seg.found)
		read_wrappers(elf, &seg, &fatbin, g);
	GElf_Ehdr eh;
	g->unregistered = fatbin.found && !g->wrappers && g->list.n && gelf_getehdr(elf, &eh) &&
			  (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
}

void cli_gpucode_read_raw(const unsigned char *p, size_t n, struct cli_gpucode *g)
{
	char why[400];
	memset(g, 0, sizeof *g);
	if (fb_read_region(p, n, 0, &g->list, why, sizeof why) != 0)
		snprintf(g->error, sizeof g->error, "%s", why);
}

int cli_gpucode_kernels(const struct cli_gpucode *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->list.n && !g->unregistered; i++)
		n += !g->list.img[i].empty;
	return (int)n;
}

void cli_gpucode_free(struct cli_gpucode *g)
{
	fb_free(&g->list);
}

/* The compute capabilities NVIDIA's GPUs have (CUDA C++ Programming Guide,
 * "Compute Capabilities"; 10.1 is 11.0 from CUDA 13 on), as major * 10 +
 * minor, and those with arch-specific (sm_90a on) and family-specific
 * (sm_100f on) code. */
static const int known_archs[] = { 10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62,
				   70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121 };

static int known_arch(int arch, char variant)
{
	for (size_t i = 0; i < sizeof known_archs / sizeof *known_archs; i++)
		if (known_archs[i] == arch)
			return !variant || (variant == 'a' && arch >= 90) || (variant == 'f' && arch >= 100);
	return 0;
}

int cli_gpu_known(size_t i, struct gpu_arch *gpu)
{
	if (i >= sizeof known_archs / sizeof *known_archs)
		return 0;
	gpu->major = known_archs[i] / 10;
	gpu->minor = known_archs[i] % 10;
	return 1;
}

/* Digits, at least one: their value, or -1 (and *s past them). */
static int digits(const char **s)
{
	int v = 0, n = 0;
	for (; **s >= '0' && **s <= '9' && n < 4; (*s)++, n++)
		v = v * 10 + (**s - '0');
	return n && !(**s >= '0' && **s <= '9') ? v : -1;
}

int cli_gpu_parse(const char *s, struct gpu_arch *gpu, char *variant)
{
	int major, minor;
	if (strncmp(s, "sm_", 3) == 0)
		s += 3;
	if ((major = digits(&s)) < 0)
		return -1;
	if (*s == '.') {
		s++;
		if ((minor = digits(&s)) < 0 || minor > 9)
			return -1;
	} else if (major >= 10) {
		minor = major % 10, major /= 10;
	} else {
		return -1;
	}
	*variant = *s == 'a' || *s == 'f' ? *s++ : 0;
	if (*s || !known_arch(major * 10 + minor, *variant))
		return -1;
	gpu->major = major;
	gpu->minor = minor;
	return 0;
}
