/* Another preloaded library that defines driver functions (an interposer:
 * HAMi-core's libvgpu.so, which enforces memory and SM limits, is one).
 * Without cushim, the program's calls of the functions it defines reach it
 * and it forwards them to the driver.  With cushim the order decides:
 *
 *   cushim first (LD_PRELOAD="libcushim.so X"): the program's calls reach
 *     cushim, which forwards each export to the next library that defines
 *     its exact name, X where X defines it, else the driver: the chain the
 *     dynamic linker would have bound without cushim.
 *   X first, cushim the process's libcuda.so.1 (masquerade): X forwards to
 *     libcuda.so.1, that is, to cushim, and cushim to the real driver.
 *   X first, cushim only preloaded: X's calls go to the driver without
 *     cushim.  cushim says so once, with the order that works.
 *   cushim preloaded first and also libcuda.so.1, X after: X forwards to
 *     cushim, so cushim cannot forward through X, and the program's own
 *     calls bypass X.  cushim says so once, with the order that works.
 *
 * Every lookup here is the C library's dlsym (realdlsym.c). */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "realdriver.h"
#include "log.h"
#include "source.h"
#include "interpose.h"
#include "state.h"
#include "notes.h"
#include "realdlsym.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Names an interposer defines if it hooks the driver at all. */
static const char *const probes[] = { "cuGetProcAddress_v2", "cuGetProcAddress", "cuInit", "cuMemAlloc_v2",
				      "cuLaunchKernel", "cuMemFree_v2" };

struct object {
	const void *base;
	const char *path;
};

static int object_of(const void *p, struct object *o)
{
	Dl_info info;

	if (!p || !dladdr(p, &info))
		return 0;
	o->base = info.dli_fbase, o->path = info.dli_fname ? info.dli_fname : "?";
	return 1;
}

/* Which comes first among the libraries that define a probe, the driver
 * aside: 1 cushim, 0 another (*x), -1 neither (no interposer, or cushim
 * is not in the global scope). */
static int first_definer(const void *driver_base, struct object *x)
{
	for (size_t k = 0; k < sizeof probes / sizeof *probes; k++) {
		void *p = cushim_dlsym(RTLD_DEFAULT, probes[k]);
		if (!p)
			continue;
		if (cushim_inside_self(p))
			return 1;
		if (object_of(p, x) && x->base != driver_base)
			return 0;
	}
	return -1;
}

/* The next library after cushim that defines a probe and is not the driver. */
static int next_interposer(const void *driver_base, struct object *x)
{
	for (size_t k = 0; k < sizeof probes / sizeof *probes; k++) {
		void *p = cushim_dlsym(RTLD_NEXT, probes[k]);
		if (p && !cushim_inside_self(p) && object_of(p, x) && x->base != driver_base)
			return 1;
	}
	return 0;
}

/* How many exports x defines under their exact names; *first the first. */
static int count_defined(const struct object *x, const char **first)
{
	void *h = dlopen(x->path, RTLD_LAZY | RTLD_NOLOAD);
	struct object o;
	int n = 0;

	*first = "?";
	for (unsigned i = 0; h && i < CUSHIM_NSYMS; i++) {
		if (cushim_syms[i].lookup_only)
			continue;
		if (object_of(cushim_dlsym(h, cushim_syms[i].name), &o) && o.base == x->base && !n++)
			*first = cushim_syms[i].name;
	}
	if (h)
		dlclose(h);
	return n;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* cushim first: each resolved export goes on to the next definition of its
 * name after cushim where that is the interposer's. */
static int route_through(struct cushim_findings *f, const struct object *x, const char **first)
{
	struct object o;
	int n = 0;

	*first = "?";
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *p;
		if ((!f->real[i] && !f->hidden_real[i]) || cushim_syms[i].lookup_only)
			continue;
		p = cushim_dlsym(RTLD_NEXT, cushim_syms[i].name);
		if (!object_of(p, &o) || o.base != x->base)
			continue;
		if (!f->real[i]) { /* hidden: known by what a lookup answers */
			cushim_set_hidden_real(f, i, p);
			continue;
		}
		cushim_reroute(f, i, p);
		if (!n++)
			*first = cushim_syms[i].name;
	}
	return n;
}

int cushim_interposer_route(struct cushim_findings *f, const struct cushim_source *driver, int masquerade)
{
	struct object drv = { 0 }, x;
	const char *self = base_name(cushim_self_path()), *first = "?";
	int after, n = 0, routed;

	object_of(cushim_dlsym(driver->handle, "cuInit"), &drv);
	after = first_definer(drv.base, &x);
	if (after < 0 || (after && !next_interposer(drv.base, &x)))
		return 0;
	if (after && !masquerade) {
		routed = route_through(f, &x, &first);
		cushim_note(CUSHIM_LOG_INFO, "%s, preloaded after %s, defines %d of the driver's functions "
			    "(first: %s): cushim forwards them through it", x.path, self, routed, first);
		return routed;
	}
	if (after || !masquerade || cushim_conf.level >= CUSHIM_LOG_INFO)
		n = count_defined(&x, &first); /* for the message alone */
	if (after) {
		cushim_note(CUSHIM_LOG_WARN, "%s is preloaded after %s, which is also the process's libcuda.so.1: it "
			    "forwards to libcuda.so.1, back to cushim, so the program's own calls of the %d driver "
			    "functions it defines (first: %s) bypass it; preload %s ahead of %s (cushim run "
			    "--masquerade does), or leave %s out of LD_PRELOAD: as libcuda.so.1 it sees every call",
			    x.path, self, n, first, base_name(x.path), self, self);
	} else if (masquerade) {
		cushim_note(CUSHIM_LOG_INFO, "%s, preloaded ahead of cushim, defines %d driver functions (first: %s); "
			    "it reaches the driver through cushim (masquerade)", x.path, n, first);
	} else {
		cushim_note(CUSHIM_LOG_WARN, "%s is preloaded ahead of %s and defines %d driver functions (first: %s): "
			    "the program's calls of them reach the driver without cushim (not counted, traced, hidden "
			    "or emulated); preload %s first (LD_PRELOAD=\"%s %s\") or use cushim run --masquerade",
			    x.path, self, n, first, self, self, base_name(x.path));
	}
	return 0;
}
