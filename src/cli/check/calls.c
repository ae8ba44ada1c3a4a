/* Does a file's own code call the CUDA runtime it links statically?  The
 * symbol table says where each function is; a direct call (x86-64: call or
 * jmp rel32; AArch64: bl or b) from a function that is not the runtime's
 * (libcudart_static_*, cuda*, __cuda*) to one of the runtime's entry points
 * (cli_runtime_entry) answers yes.  Without a symbol table (a stripped file) or on
 * another machine it cannot tell. */
#include "config.h"
#include "cli.h"
#include "cudart.h"
#include "gpucode.h"
#include "calls.h"
#include <ctype.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fn {
	GElf_Addr addr;
	GElf_Xword size;
	const char *name;
};

int cli_runtime_entry(const char *name)
{
	if (strncmp(name, "cuda", 4) == 0)
		return isupper((unsigned char)name[4]);
	return strncmp(name, "__cudaLaunch", 12) == 0 || strcmp(name, "__cudaPushCallConfiguration") == 0;
}

/* The most code bytes read for one file: a crafted symbol table cannot make
 * the scan read its code over and over. */
#define SCAN_BUDGET ((size_t)256 << 20)

struct fns {
	struct fn *v;
	size_t n, cap;
};

static void push(struct fns *f, GElf_Addr addr, GElf_Xword size, const char *name)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		if (!(f->v = realloc(f->v, f->cap * sizeof *f->v)))
			abort();
	}
	f->v[f->n++] = (struct fn){ addr, size, name };
}

static int runtime_own(const char *name)
{
	return cli_runtime_entry(name) || strncmp(name, "libcudart_static_", 17) == 0 || strncmp(name, "__cuda", 6) == 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The functions of .symtab: the runtime's API (targets) and the file's own. */
static int read_functions(Elf *elf, struct fns *api, struct fns *own)
{
	int have = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		have = 1;
		for (size_t k = 1; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			const char *name;
			if (!gelf_getsym(d, (int)k, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
				continue;
			if (cli_runtime_entry(name))
				push(api, s.st_value, s.st_size, name);
			else if (!runtime_own(name) && s.st_size)
				push(own, s.st_value, s.st_size, name);
		}
	}
	if (api->n)
		qsort(api->v, api->n, sizeof *api->v, cmp_fn);
	return have;
}

/* The target of a direct call or jump at p (address at), or 0. */
static GElf_Addr branch_target(int machine, const unsigned char *p, size_t left, GElf_Addr at, size_t *step)
{
	if (machine == EM_X86_64) {
		*step = 1;
		if (left < 5 || (p[0] != 0xe8 && p[0] != 0xe9))
			return 0;
		return at + 5 + (GElf_Addr)(int64_t)(int32_t)fb_le(p + 1, 4);
	}
	*step = 4; /* AArch64: bl (0x94000000) and b (0x14000000), imm26 words */
	if (left < 4)
		return 0;
	uint32_t w = (uint32_t)fb_le(p, 4);
	if ((w & 0x7c000000u) != 0x14000000u)
		return 0;
	int64_t imm = (int64_t)((uint64_t)(w & 0x03ffffffu) << 38) >> 36; /* sign-extended, times 4 */
	return at + (GElf_Addr)imm;
}

static const struct fn *first_call(Elf *elf, int machine, const struct fn *f, const struct fns *api,
				    size_t *budget)
{
	const unsigned char *p;
	size_t n, step;
	if (cli_elf_bytes_at(elf, f->addr, &p, &n) != 0)
		return NULL;
	if (n > f->size)
		n = (size_t)f->size;
	if (n > *budget)
		n = *budget;
	*budget -= n;
	for (size_t i = 0; i < n; i += step) {
		struct fn key = { branch_target(machine, p + i, n - i, f->addr + i, &step), 0, NULL };
		const struct fn *hit = key.addr ? bsearch(&key, api->v, api->n, sizeof *api->v, cmp_fn) : NULL;
		if (hit)
			return hit;
	}
	return NULL;
}

int cli_runtime_called(Elf *elf, char *why, size_t whysize)
{
	struct fns api = { 0 }, own = { 0 };
	GElf_Ehdr eh;
	int answer = -1;
	if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)) {
		snprintf(why, whysize, "cushim cannot read calls in code for this machine");
		return -1;
	}
	if (!read_functions(elf, &api, &own) || !api.n) {
		snprintf(why, whysize, "it is stripped: no symbol table to tell by");
		goto out;
	}
	answer = 0;
	snprintf(why, whysize, "none of its own functions calls a cuda* function or launches a kernel");
	size_t budget = SCAN_BUDGET;
	for (size_t i = 0; i < own.n; i++) {
		const struct fn *hit = first_call(elf, eh.e_machine, &own.v[i], &api, &budget);
		if (hit) {
			char caller[512], callee[512];
			snprintf(why, whysize, "%s calls %s", cli_demangle(own.v[i].name, caller, sizeof caller),
				 cli_demangle(hit->name, callee, sizeof callee));
			answer = 1;
			break;
		}
		if (!budget) {
			snprintf(why, whysize, "its code is too large to read for calls");
			answer = -1;
			break;
		}
	}
out:
	free(api.v);
	free(own.v);
	return answer;
}
