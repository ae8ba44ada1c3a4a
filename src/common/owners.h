/* Who implements each export.  Each part of the shim that puts a function
 * of its own in an export's place (its own answers, the adapters, the
 * explainers, the runtime gate) claims the exports it wants; the bootstrap
 * applies the claims in one loop, in the order of this enum (src/shim/
 * state.c), and records the owner beside the export's origin.  The
 * command names the owners with the same words (cushim doctor --exports). */
#ifndef CUSHIM_OWNERS_H
#define CUSHIM_OWNERS_H

enum cushim_owner {
	CUSHIM_OWNER_NONE,    /* nobody: missing, its calls fail */
	CUSHIM_OWNER_DRIVER,  /* the driver's function, forwarded */
	CUSHIM_OWNER_ERRORS,  /* no driver: cushim's table of error names */
	CUSHIM_OWNER_OWN,     /* cushim's own answer (emulation, lookups, cuInit) */
	CUSHIM_OWNER_ADAPTER, /* an adapter over an older variant the driver has */
	CUSHIM_OWNER_MODULE,  /* the module explainer, over the driver's */
	CUSHIM_OWNER_START,   /* the start explainer (contexts), over the driver's */
	CUSHIM_OWNER_MEMORY,  /* the out-of-memory explainer, over the driver's */
	CUSHIM_OWNER_GATE,    /* the runtime gate of masquerade, over whatever answered */
	CUSHIM_NOWNERS
};

/* How a claim applies. */
enum cushim_claim_how {
	CUSHIM_CLAIM_REPLACE, /* where the driver's function stands, and nothing of cushim's yet */
	CUSHIM_CLAIM_SERVE,   /* where the driver has none, and nothing serves it yet */
	CUSHIM_CLAIM_WRAP,    /* over whatever implements it: that is kept in *next */
	CUSHIM_CLAIM_ALWAYS   /* whatever stands (no driver at all) */
};

/* One export claimed: i is implemented by fn, owned by owner. */
struct cushim_claim {
	unsigned idx;
	void *fn;
	unsigned char owner, how;
	void **next; /* CUSHIM_CLAIM_WRAP: where the function it wraps goes */
};

/* The most claims one module returns (the adapters aside: at most one an
 * export). */
#define CUSHIM_MAX_CLAIMS 64

/* "driver", "adapter", ...: one word; and a few words of what it means. */
const char *cushim_owner_name(unsigned owner);
const char *cushim_owner_words(unsigned owner);
#endif
