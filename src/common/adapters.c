/* The table of downgrade adapters and its rule (adapters.h). */
#include "table.h"
#include "adapters.h"
#include <string.h>

#define ROW(name, older, cond, below) { #name, #older, cond, below },
const struct cushim_adapter cushim_adapters[] = { CUSHIM_ADAPTER_LIST(ROW) { NULL, NULL, NULL, 0 } };
#undef ROW
const int cushim_nadapters = (int)(sizeof cushim_adapters / sizeof *cushim_adapters) - 1;

const struct cushim_adapter *cushim_adapter_row(int idx, int driver, int (*has_older)(int j, int driver))
{
	if (idx < 0 || idx >= CUSHIM_NSYMS)
		return NULL;
	for (int k = 0; k < cushim_nadapters; k++) {
		const struct cushim_adapter *a = &cushim_adapters[k];
		int j = cushim_lookup_index(a->older);
		if (strcmp(a->name, cushim_syms[idx].name) != 0 || j < 0 || !has_older(j, driver))
			continue;
		if (a->below && !(driver > 0 && driver < a->below))
			continue;
		return a;
	}
	return NULL;
}
