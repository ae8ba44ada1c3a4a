/* The owners' names, shared by the library and the command (owners.h). */
#include "owners.h"

static const struct {
	const char *name, *words;
} owners[CUSHIM_NOWNERS] = {
	[CUSHIM_OWNER_NONE] = { "none", "nobody: missing, its calls fail" },
	[CUSHIM_OWNER_DRIVER] = { "driver", "the driver's function, forwarded" },
	[CUSHIM_OWNER_ERRORS] = { "errors", "no driver: cushim's own table of error names" },
	[CUSHIM_OWNER_OWN] = { "own", "cushim's own answer" },
	[CUSHIM_OWNER_ADAPTER] = { "adapter", "an adapter over an older variant the driver has" },
	[CUSHIM_OWNER_MODULE] = { "module", "the module explainer, over the driver's function" },
	[CUSHIM_OWNER_START] = { "start", "the start explainer, over the driver's function" },
	[CUSHIM_OWNER_MEMORY] = { "memory", "the out-of-memory explainer, over the driver's function" },
	[CUSHIM_OWNER_GATE] = { "gate", "the runtime gate, over the answer it judges" },
};

const char *cushim_owner_name(unsigned owner)
{
	return owner < CUSHIM_NOWNERS ? owners[owner].name : "?";
}

const char *cushim_owner_words(unsigned owner)
{
	return owner < CUSHIM_NOWNERS ? owners[owner].words : "?";
}
