/* The symbol table as data: name, base name, version and flavour of every
 * export, expanded from the generated cushim-syms.h.  Used by the bootstrap,
 * the command-line tool and the tests. */
#include "cushim-internal.h"
#include <string.h>

const struct cushim_sym cushim_syms[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, name, base, ver, fl, ...) [i] = { #name, #base, ver, fl },
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

int cushim_lookup_index(const char *name)
{
	int lo = 0, hi = CUSHIM_NSYMS - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(name, cushim_syms[mid].name);
		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}
