/* What the bootstrap found and publishes (state.c): what implements each
 * export and where it came from, the driver's version and the one the
 * process sees, why each missing export is missing, and whether the
 * bootstrap is done.  state.c computes it from the source the bootstrap
 * (boot.c) opened, through the steps below; the modules that answer calls
 * only read it. */
#ifndef CUSHIM_STATE_H
#define CUSHIM_STATE_H
#include "table.h"
#include "owners.h"

struct cushim_source; /* source.h */

/* What the driver gave for each export (NULL: missing), and what implements
 * each: cushim's own function, the driver's, or NULL when it is missing; the
 * trace wrappers call through it; and who that is (owners.h).  state.c alone
 * writes them: the modules that put their own functions in an export's
 * place claim it (struct cushim_claim), and cushim_apply_claims decides. */
extern void *cushim_real[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *cushim_impl[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern unsigned char cushim_owner[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* The claims of every module, applied in the order of precedence that
 * enum cushim_owner gives (whatever order they come in): a claim takes an
 * export where its rule (enum cushim_claim_how) allows it, in that order. */
void cushim_apply_claims(const struct cushim_claim *c, size_t n) CUSHIM_HIDDEN;
/* Where each export's driver function came from. */
enum cushim_origin {
	CUSHIM_FROM_NONE,    /* missing, or served by cushim alone */
	CUSHIM_FROM_DRIVER,  /* the driver's cuGetProcAddress(_v2) */
	CUSHIM_FROM_DLSYM,   /* the driver's symbol of that name (no cuGetProcAddress) */
	CUSHIM_FROM_RUNTIME, /* a runtime's cudaGetDriverEntryPoint(ByVersion) */
	CUSHIM_NORIGINS
};
extern unsigned char cushim_origin[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* The driver's function behind each hidden export (CUSHIM_HIDE). */
extern void *cushim_hidden_real[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* CUSHIM_DRIVER_VERSION below the real driver's: answered as that version.
 * The one test of emulation: every module asks this. */
extern int cushim_emulating CUSHIM_HIDDEN;
/* Why each missing export is missing (missing.c says it). */
enum cushim_why { CUSHIM_WHY_NONE, CUSHIM_WHY_NEWER, CUSHIM_WHY_ABSENT, CUSHIM_WHY_HIDDEN, CUSHIM_WHY_SELF };
extern unsigned char cushim_missing_why[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* What the bootstrap found, for the introspection API. */
struct cushim_state {
	int driver_version;        /* as the process sees it (emulated if asked) */
	int real_driver_version;   /* as the driver reports it; 0 if unknown */
	const char *via;           /* how entry points are asked now: "the driver's cuGetProcAddress_v2", ... */
	char path[4096];           /* the driver or runtime file asked */
	int resolved, missing, adapted;
	int tracing;               /* the slots hold the trace wrappers: the one flag that says so */
	uint64_t find_ns, resolve_ns; /* bootstrap: finding the entry points, resolving the table */
};
extern struct cushim_state cushim_state CUSHIM_HIDDEN;

/* Has the bootstrap run?  Once it has, the slots and all the above hold. */
extern int cushim_boot_done CUSHIM_HIDDEN;
static inline int cushim_booted(void)
{
	return __atomic_load_n(&cushim_boot_done, __ATOMIC_ACQUIRE);
}

/* What one run of the bootstrap finds, before it is published: each thread
 * that runs the bootstrap fills its own (boot.c), so that none waits on
 * another's calls into the loader and the driver, and the first to finish
 * publishes it into the arrays above; the others' are dropped. */
struct cushim_findings {
	struct cushim_state state;
	int emulating;
	void *real[CUSHIM_NSYMS], *impl[CUSHIM_NSYMS], *hidden_real[CUSHIM_NSYMS];
	unsigned char origin[CUSHIM_NSYMS], why[CUSHIM_NSYMS];
};

/* The bootstrap's steps (boot.c calls them, in this order), each into f. */
void cushim_state_source(struct cushim_state *st, const struct cushim_source *src) CUSHIM_HIDDEN; /* via, path */
/* The driver's version and the one the process sees; returns the version
 * exports are judged against (INT_MAX when the driver's is unknown). */
int cushim_set_versions(struct cushim_findings *f, const struct cushim_source *driver) CUSHIM_HIDDEN;
void cushim_resolve_table(struct cushim_findings *f, const struct cushim_source *driver, int effective) CUSHIM_HIDDEN;
/* Export i's driver function is reached through fn (another preloaded
 * library's, in front of the driver): what called the driver calls fn. */
void cushim_reroute(struct cushim_findings *f, unsigned i, void *fn) CUSHIM_HIDDEN;
/* The driver's function behind hidden export i is fn. */
void cushim_set_hidden_real(struct cushim_findings *f, unsigned i, void *fn) CUSHIM_HIDDEN;
/* Publishing (boot.c holds its lock): f becomes what the modules read. */
void cushim_state_publish(const struct cushim_findings *f) CUSHIM_HIDDEN;
void cushim_count_adapted(void) CUSHIM_HIDDEN; /* once the adapters are installed */
void cushim_state_tracing(int tracing) CUSHIM_HIDDEN;
int cushim_slots_trace(void) CUSHIM_HIDDEN; /* the one flag: the slots hold the trace wrappers */
void cushim_set_booted(void) CUSHIM_HIDDEN;
/* Once the driver is initialised: a runtime's answer for every export the
 * driver gave (NULL where it gives none), asked with no lock held; then,
 * publishing, they replace the driver's. */
void cushim_adopt_ask(const struct cushim_source *rt, void *answers[CUSHIM_NSYMS]) CUSHIM_HIDDEN;
void cushim_adopt_answers(const struct cushim_source *rt, void *const answers[CUSHIM_NSYMS],
			  const struct cushim_source *driver) CUSHIM_HIDDEN;
#endif
