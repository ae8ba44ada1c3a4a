/* The symbol table as data: name, base name, version and flavour of every
 * row (the exports, and the variants reached only through cuGetProcAddress),
 * expanded from the generated cushim-syms.h.  Used by the bootstrap, the
 * command-line tool and the tests. */
#include "cushim-internal.h"
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
