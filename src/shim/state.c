/* What the bootstrap found and publishes: the driver's version and the one
 * the process sees, what implements each export and where it came from, and
 * why a missing one is missing.  The bootstrap (boot.c) decides the order
 * and the sources; the steps that fill the state are here, with the state:
 * each fills what one run of the bootstrap found (struct cushim_findings), the
 * run that finishes first publishes it into the state, and every module
 * that answers calls reads it back (state.h). */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "settings.h"
#include "log.h"
#include "source.h"
#include "notes.h"
#include "state.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

struct cushim_state cushim_state;
void *cushim_real[CUSHIM_NSYMS];
void *cushim_impl[CUSHIM_NSYMS];
unsigned char cushim_owner[CUSHIM_NSYMS];
unsigned char cushim_origin[CUSHIM_NSYMS];
void *cushim_hidden_real[CUSHIM_NSYMS];
int cushim_emulating;
unsigned char cushim_missing_why[CUSHIM_NSYMS];
int cushim_boot_done;

/* Whether claim c may take its export, by its rule. */
static int may_take(const struct cushim_claim *c)
{
	unsigned i = c->idx, o = cushim_owner[i];
	switch (c->how) {
	case CUSHIM_CLAIM_REPLACE: return cushim_real[i] && o == CUSHIM_OWNER_DRIVER;
	case CUSHIM_CLAIM_SERVE: return !cushim_real[i] && o == CUSHIM_OWNER_NONE;
	case CUSHIM_CLAIM_WRAP: return cushim_impl[i] != NULL;
	default: return 1;
	}
}

void cushim_apply_claims(const struct cushim_claim *c, size_t n)
{
	for (unsigned owner = 0; owner < CUSHIM_NOWNERS; owner++)
		for (size_t k = 0; k < n; k++) {
			if (c[k].owner != owner || c[k].idx >= CUSHIM_NSYMS || !may_take(&c[k]))
				continue;
			if (c[k].how == CUSHIM_CLAIM_WRAP)
				*c[k].next = cushim_impl[c[k].idx];
			cushim_impl[c[k].idx] = c[k].fn;
			cushim_owner[c[k].idx] = (unsigned char)owner;
		}
}

void cushim_reroute(struct cushim_findings *f, unsigned i, void *fn)
{
	if (f->impl[i] == f->real[i])
		f->impl[i] = fn;
	f->real[i] = fn;
}

void cushim_set_hidden_real(struct cushim_findings *f, unsigned i, void *fn)
{
	f->hidden_real[i] = fn;
}

void cushim_state_source(struct cushim_state *st, const struct cushim_source *src)
{
	st->via = src->how;
	snprintf(st->path, sizeof st->path, "%s", src->path);
}

/* ---- the driver's version, and the one the process sees ---- */
static int real_driver_version(const struct cushim_source *driver)
{
	void *p = NULL;
	int v = 0;
	CUresult rc;
	enum cushim_found f = cushim_source_lookup(driver, CUSHIM_IDX_cuDriverGetVersion, &p);

	if (f != CUSHIM_FOUND || cushim_inside_self(p)) {
		static const char *const what[] = { "", "not found", "its version not sufficient", "an error" };
		cushim_note(CUSHIM_LOG_WARN, "cannot find cuDriverGetVersion through %s (%s); the driver's version "
			    "is unknown", driver->how, f == CUSHIM_FOUND ? "a pointer into cushim itself" : what[f]);
		return 0;
	}
	if ((rc = ((CUresult (*)(int *))p)(&v)) != CUDA_SUCCESS || v <= 0) {
		cushim_note(CUSHIM_LOG_WARN, "cuDriverGetVersion failed (%d); the driver's version is unknown",
			    (int)rc);
		return 0;
	}
	return v;
}

/* The version exports are judged against: the driver's, or CUSHIM_DRIVER_VERSION. */
int cushim_set_versions(struct cushim_findings *f, const struct cushim_source *driver)
{
	char v[16], w[16];
	int real = real_driver_version(driver), effective = real ? real : INT_MAX;

	f->state.real_driver_version = real;
	if (cushim_conf.driver_version && real && cushim_conf.driver_version > real) {
		cushim_note(CUSHIM_LOG_WARN, "CUSHIM_DRIVER_VERSION=%s is above the driver's own CUDA %s; not "
			    "emulating", cushim_format_version(cushim_conf.driver_version, v),
			    cushim_format_version(real, w));
	} else if (cushim_conf.driver_version) {
		effective = cushim_conf.driver_version;
		f->emulating = 1;
	}
	f->state.driver_version = effective == INT_MAX ? 0 : effective;
	return effective;
}

/* ---- the table ---- */
void cushim_resolve_table(struct cushim_findings *f, const struct cushim_source *driver, int effective)
{
	int nself = 0;
	const char *first_self = NULL;

	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		void *p = NULL;

		if (s->version > effective)
			f->why[i] = CUSHIM_WHY_NEWER; /* never ask above the driver's own version */
		else if (cushim_source_lookup(driver, i, &p) != CUSHIM_FOUND)
			f->why[i] = CUSHIM_WHY_ABSENT;
		else if (cushim_inside_self(p))
			f->why[i] = CUSHIM_WHY_SELF, first_self = nself++ ? first_self : s->name;
		else if (cushim_hidden_name(s->name))
			f->why[i] = CUSHIM_WHY_HIDDEN, f->hidden_real[i] = p; /* to know it when asked for */
		if (f->why[i]) {
			f->state.missing++;
			continue;
		}
		f->real[i] = f->impl[i] = p;
		f->origin[i] = driver->origin;
		f->state.resolved++;
	}
	if (nself)
		cushim_note(CUSHIM_LOG_WARN, "%d exports through %s point into cushim itself (first: %s; is cushim "
			    "installed as libcuda.so.1?); treating them as missing", nself, driver->how, first_self);
}

/* What f found becomes what every module reads. */
void cushim_state_publish(const struct cushim_findings *f)
{
	cushim_state = f->state;
	cushim_emulating = f->emulating;
	memcpy(cushim_real, f->real, sizeof cushim_real);
	memcpy(cushim_impl, f->impl, sizeof cushim_impl);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		cushim_owner[i] = cushim_impl[i] ? CUSHIM_OWNER_DRIVER : CUSHIM_OWNER_NONE;
	memcpy(cushim_hidden_real, f->hidden_real, sizeof cushim_hidden_real);
	memcpy(cushim_origin, f->origin, sizeof cushim_origin);
	memcpy(cushim_missing_why, f->why, sizeof cushim_missing_why);
}

/* The exports the driver lacks that cushim serves (adapters, its own). */
void cushim_count_adapted(void)
{
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		if (cushim_owner[i] == CUSHIM_OWNER_ADAPTER) {
			cushim_state.adapted++;
			cushim_state.missing--;
		}
}

/* A word of its own: read by any thread's first call of an export, written
 * at publishing and by a watched forked child's handler (where the threads
 * that read it in the parent are gone, which ThreadSanitizer cannot know). */
void cushim_state_tracing(int tracing)
{
	__atomic_store_n(&cushim_state.tracing, tracing, __ATOMIC_RELAXED);
}

int cushim_slots_trace(void)
{
	return __atomic_load_n(&cushim_state.tracing, __ATOMIC_RELAXED);
}

void cushim_set_booted(void)
{
	__atomic_store_n(&cushim_boot_done, 1, __ATOMIC_RELEASE);
}

/* ---- a runtime, once the driver is initialised ---- */
/* Ask the runtime for every export the driver gave (with no lock held: these
 * are calls into the runtime). */
void cushim_adopt_ask(const struct cushim_source *rt, void *answers[CUSHIM_NSYMS])
{
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *p = NULL;
		answers[i] = NULL;
		if (__atomic_load_n(&cushim_real[i], __ATOMIC_ACQUIRE) &&
		    cushim_source_lookup(rt, i, &p) == CUSHIM_FOUND && !cushim_inside_self(p))
			answers[i] = p;
	}
}

/* Take the runtime's answers (publishing: no call out of cushim here). */
void cushim_adopt_answers(const struct cushim_source *rt, void *const answers[CUSHIM_NSYMS],
			  const struct cushim_source *driver)
{
	int same = 0, replaced = 0, kept = 0;

	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *p = answers[i], *old = cushim_real[i];
		if (!old)
			continue;
		if (!p) {
			kept++; /* the driver's answer stands */
			continue;
		}
		if (p != old) {
			replaced++;
			__atomic_store_n(&cushim_real[i], p, __ATOMIC_RELEASE);
			if (cushim_owner[i] == CUSHIM_OWNER_DRIVER)
				__atomic_store_n(&cushim_impl[i], p, __ATOMIC_RELEASE);
			if (__atomic_load_n(&cushim_slot[i], __ATOMIC_ACQUIRE) == old)
				__atomic_store_n(&cushim_slot[i], p, __ATOMIC_RELEASE);
		} else {
			same++;
		}
		cushim_origin[i] = CUSHIM_FROM_RUNTIME;
	}
	cushim_state_source(&cushim_state, rt);
	cushim_note(CUSHIM_LOG_INFO, "driver initialised: %d exports now through %s %s (%d the same functions as "
		    "the driver's, %d different), %d kept from %s", same + replaced, rt->path, rt->how, same,
		    replaced, kept, driver->how);
}
