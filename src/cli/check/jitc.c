/* The JIT compilers a file carries, and the driver the PTX they emit by
 * default needs (the rule and its sources: req_jit_default_need in
 * src/common/gpucode/requirements.c). */
#include "config.h"
#include "jitc.h"
#include "cudart.h"
#include "requirements.h"
#include "rtmarks.h"
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	int kind;
	const char *prefix;   /* the library's file name */
	const char *symbol;   /* a function only that compiler defines */
} compilers[] = {
	{ JIT_NVRTC, "libnvrtc.", "nvrtcCompileProgram" },
	{ JIT_NVJITLINK, "libnvJitLink.", "nvJitLinkCreate" },
	{ JIT_PTXCOMPILER, "libnvptxcompiler", "nvPTXCompilerCompile" },
};
#define NCOMPILERS (sizeof compilers / sizeof *compilers)

const char *cli_jit_name(int kind)
{
	switch (kind) {
	case JIT_NVRTC: return "NVRTC";
	case JIT_NVJITLINK: return "nvJitLink";
	case JIT_PTXCOMPILER: return "the PTX compiler library";
	default: return "no JIT compiler";
	}
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* By name: the library itself (libnvrtc.so.12, libnvrtc.alt.so.12, not
 * libnvrtc-builtins). */
static int by_name(const char *name)
{
	for (size_t k = 0; name && k < NCOMPILERS; k++)
		if (strncmp(name, compilers[k].prefix, strlen(compilers[k].prefix)) == 0 && strstr(name, ".so"))
			return compilers[k].kind;
	return JIT_NONE;
}

/* By a defined dynamic symbol: a static copy exported (or the library). */
static int by_symbol(Elf *elf)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    !(n = elf_strptr(elf, sh.sh_link, s.st_name)) || (n[0] != 'n'))
				continue;
			for (size_t k = 0; k < NCOMPILERS; k++)
				if (strcmp(n, compilers[k].symbol) == 0)
					return compilers[k].kind;
		}
	}
	return JIT_NONE;
}

struct release {
	int version;
	char text[64];
};

static void find_release(const unsigned char *p, size_t n, void *arg)
{
	struct release *r = arg;
	rt_find_release(p, n, &r->version, r->text, sizeof r->text);
}

/* The toolkit's version: nvcc's release mark in its data, else the major
 * release of its soname (libnvrtc.so.12). */
static void version_of(Elf *elf, const char *name, struct cli_jit *j)
{
	struct release r = { 0, "" };
	const char *so = name ? strstr(name, ".so.") : NULL;
	cli_each_data(elf, find_release, &r);
	if (r.version) {
		j->version = r.version;
		snprintf(j->from + strlen(j->from), sizeof j->from - strlen(j->from), ", \"%s\"", r.text);
	} else if (so && atoi(so + 4) > 0) {
		j->version = atoi(so + 4) * 1000;
		j->major_only = 1;
	}
}

void cli_jit_detect(Elf *elf, const char *path, const char *soname, struct cli_jit *j)
{
	const char *name = soname ? soname : base(path);
	memset(j, 0, sizeof *j);
	if ((j->kind = by_name(name)) != JIT_NONE)
		snprintf(j->from, sizeof j->from, "the library itself (%s)", name);
	else if ((j->kind = by_symbol(elf)) != JIT_NONE)
		snprintf(j->from, sizeof j->from, "linked in (it defines %s)", compilers[j->kind - 1].symbol);
	else
		return;
	version_of(elf, name, j);
	if (j->version && !j->major_only)
		j->need = req_jit_default_need(j->version);
}
