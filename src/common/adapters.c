/* The table of downgrade adapters and its rule (adapters.h). */
#include "table.h"
#include "adapters.h"
#include <string.h>
#include <stdio.h>

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

/* "cuCtxCreate_v2 when no parameters"; a condition that always holds adds
 * only what follows it: "cuEventElapsedTime", "cuGetProcAddress (the status
 * derived from the result)". */
const char *cushim_adapter_how(const struct cushim_adapter *a, char *buf, size_t size)
{
	const char *c = a->condition;
	if (strncmp(c, "always", 6) != 0)
		snprintf(buf, size, "%s when %s", a->older, c);
	else if (c[6] == ';')
		snprintf(buf, size, "%s (%s)", a->older, c + 7 + (c[7] == ' '));
	else
		snprintf(buf, size, "%s", a->older);
	return buf;
}
