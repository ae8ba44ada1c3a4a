/* The symbol table as data: name, base name, version and flavour of every
 * row (the exports, and the variants reached only through cuGetProcAddress),
 * expanded from the generated cushim-syms.h.  Used by the bootstrap, the
 * command-line tool and the tests. */
#include "table.h"
#include <stdlib.h>
#include <string.h>

const struct cushim_sym cushim_syms[CUSHIM_NSYMS] = {
#define CUSHIM_ROW(i, name, base, ver, fl, lookup_only) [i] = { #name, #base, ver, fl, lookup_only },
#include "cushim-syms.h"
#undef CUSHIM_ROW
};

/* The table's size and alignment of each structure passed by value, which
 * the generic prototypes rely on, against the compiler's. */
#define CUSHIM_STRUCT_CHECK(type, size, align)                                                         \
	_Static_assert(sizeof(type) == (size) && _Alignof(type) == (align), "the table's layout of " #type);
#include "cushim-syms.h"
#undef CUSHIM_STRUCT_CHECK

static int by_name(const void *key, const void *row)
{
	return strcmp(key, ((const struct cushim_sym *)row)->name);
}

int cushim_lookup_index(const char *name)
{
	const struct cushim_sym *s = bsearch(name, cushim_syms, CUSHIM_NSYMS, sizeof *cushim_syms, by_name);
	return s ? (int)(s - cushim_syms) : -1;
}

/* The first row whose name is not below name: where the names that start
 * with a base name begin. */
int cushim_lower_bound(const char *name)
{
	int lo = 0, hi = CUSHIM_NSYMS;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(cushim_syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The CUDA version that introduced a base name (its oldest variant's), or 0
 * when the table does not know the name. */
int cushim_base_since(const char *base)
{
	size_t n = strlen(base);
	int since = 0;

	for (int i = cushim_lower_bound(base); i < CUSHIM_NSYMS && strncmp(cushim_syms[i].name, base, n) == 0; i++)
		if (strcmp(cushim_syms[i].base, base) == 0 && (!since || cushim_syms[i].version < since))
			since = cushim_syms[i].version;
	return since;
}

/* The CUDA runtimes the bootstrap looks for by soname, newest first (and
 * cushim doctor, which says where the loader finds each). */
const char *const cushim_runtime_sonames[CUSHIM_NRUNTIMES] = { "libcudart.so.13", "libcudart.so.12",
							       "libcudart.so.11.0" };

/* "legacy", "ptds" or "ptsz": a flavour as the command and the docs name it. */
const char *cushim_flavour_name(int flavour)
{
	static const char *const names[] = { "legacy", "ptds", "ptsz" };
	return flavour >= 0 && flavour < 3 ? names[flavour] : "?";
}
