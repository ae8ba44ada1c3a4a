/* Where entry points come from, and how one is asked for.
 *
 * Until the driver is initialised the only source without side effects is
 * the driver itself: its cuGetProcAddress(_v2), or on drivers older than
 * CUDA 11.3, which have none, its own symbol of each exact ABI name.  Once the
 * driver is initialised, a CUDA runtime's cudaGetDriverEntryPoint(ByVersion)
 * can be asked too (boot.c decides when). */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "settings.h"
#include "realdriver.h"
#include "log.h"
#include "source.h"
#include "state.h"
#include "notes.h"
#include "realdlsym.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef int (*rt_byversion_fn)(const char *, void **, unsigned int, unsigned long long, int *);
typedef int (*rt_entry4_fn)(const char *, void **, unsigned long long, int *);
typedef int (*rt_entry3_fn)(const char *, void **, unsigned long long);
typedef int (*rt_version_fn)(int *);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

#define CUDART_INSUFFICIENT_DRIVER 35 /* cudaErrorInsufficientDriver */

static unsigned long lookups_made;

unsigned long cushim_lookups_made(void)
{
	return __atomic_load_n(&lookups_made, __ATOMIC_RELAXED);
}

/* Ask src for export i at its own version and stream flavour.  Judged by
 * pointer and status, never by the result alone: a version below the
 * symbol's introduction answers success with NULL and status 2. */
enum cushim_found cushim_source_lookup(const struct cushim_source *src, unsigned i, void **out)
{
	const struct cushim_sym *s = &cushim_syms[i];
	unsigned long long flags = s->flavour != CUSHIM_LEGACY ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
							       : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	int status = -1, rc;
	void *p = NULL;

	__atomic_add_fetch(&lookups_made, 1, __ATOMIC_RELAXED);

	switch (src->via) {
	case CUSHIM_VIA_BYVERSION:
		rc = ((rt_byversion_fn)src->fn)(s->base, &p, (unsigned)s->version, flags, &status);
		break;
	case CUSHIM_VIA_GPA2:
		rc = ((gpa2_fn)src->fn)(s->base, &p, s->version, flags, (CUdriverProcAddressQueryResult *)&status);
		break;
	case CUSHIM_VIA_GPA1:
		rc = ((gpa1_fn)src->fn)(s->base, &p, s->version, flags);
		status = (rc == 0 && p) ? 0 : 1;
		break;
	case CUSHIM_VIA_DLSYM:
		p = cushim_dlsym(src->handle, s->name);
		rc = 0, status = p ? 0 : 1;
		break;
	default:
		return CUSHIM_FAILED;
	}
	*out = p;
	if (rc == 0 && p && status == 0)
		return CUSHIM_FOUND;
	if (status == 2)
		return CUSHIM_TOO_OLD;
	return (rc == 0 || status == 1) ? CUSHIM_NOT_FOUND : CUSHIM_FAILED;
}

/* ---- never recurse: the span of libcushim.so itself ----
 * Found by every thread that runs the bootstrap until one has stored it: the
 * same span each time, stored with atomic stores; the path once. */
static uintptr_t self_lo, self_hi;
static char self_path[4096];
static int self_named; /* 0, 1 while the path is written, 2 once it is */

struct self {
	uintptr_t me, lo, hi;
	const char *name;
};

static int find_self_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct self *s = data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (s->me < lo || s->me >= hi)
		return 0;
	s->lo = lo, s->hi = hi, s->name = info->dlpi_name ? info->dlpi_name : "";
	return 1;
}

void cushim_find_self(void)
{
	struct self s = { (uintptr_t)&find_self_cb, 0, 0, "" };
	int none = 0;

	if (__atomic_load_n(&self_hi, __ATOMIC_ACQUIRE))
		return;
	dl_iterate_phdr(find_self_cb, &s);
	if (__atomic_compare_exchange_n(&self_named, &none, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		snprintf(self_path, sizeof self_path, "%s", s.name);
		__atomic_store_n(&self_named, 2, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&self_lo, s.lo, __ATOMIC_RELAXED);
	__atomic_store_n(&self_hi, s.hi, __ATOMIC_RELEASE);
}

int cushim_inside_self(const void *p)
{
	uintptr_t hi = __atomic_load_n(&self_hi, __ATOMIC_ACQUIRE);
	return (uintptr_t)p >= __atomic_load_n(&self_lo, __ATOMIC_RELAXED) && (uintptr_t)p < hi;
}

const char *cushim_self_path(void)
{
	return __atomic_load_n(&self_named, __ATOMIC_ACQUIRE) == 2 && self_path[0] ? self_path : "libcushim.so";
}

static void object_path(void *handle, char *buf, size_t size)
{
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(buf, size, "%s", lm->l_name);
	else
		snprintf(buf, size, "?");
}

/* ---- the driver ---- */

/* A driver library as a source: its cuGetProcAddress_v2, else its
 * cuGetProcAddress, else (before CUDA 11.3) its symbols by name.  0 when it
 * is cushim itself. */
int cushim_driver_source(void *handle, const char *path, struct cushim_source *src)
{
	void *p;

	memset(src, 0, sizeof *src);
	src->handle = handle;
	if ((p = cushim_dlsym(handle, "cuGetProcAddress_v2"))) {
		src->via = CUSHIM_VIA_GPA2, src->how = "the driver's cuGetProcAddress_v2";
	} else if ((p = cushim_dlsym(handle, "cuGetProcAddress"))) {
		src->via = CUSHIM_VIA_GPA1, src->how = "the driver's cuGetProcAddress";
	} else {
		p = cushim_dlsym(handle, "cuInit");
		src->via = CUSHIM_VIA_DLSYM, src->how = "the driver's own symbols (it has no cuGetProcAddress)";
	}
	if (!p || cushim_inside_self(p))
		return 0;
	src->fn = src->via == CUSHIM_VIA_DLSYM ? NULL : p;
	src->origin = src->via == CUSHIM_VIA_DLSYM ? CUSHIM_FROM_DLSYM : CUSHIM_FROM_DRIVER;
	if (path)
		snprintf(src->path, sizeof src->path, "%s", path);
	else
		object_path(handle, src->path, sizeof src->path);
	return 1;
}

/* libcuda.so.1 as the loader finds it (the program's own, when it links it). */
int cushim_open_driver(struct cushim_source *src)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		cushim_note(CUSHIM_LOG_INFO, "cannot load libcuda.so.1: %s", dlerror());
		return 0;
	}
	if (!cushim_driver_source(h, NULL, src)) {
		cushim_note(CUSHIM_LOG_WARN, "libcuda.so.1 (%s) is cushim itself, not a driver: set CUSHIM_DRIVER "
			    "or fix the library path", src->path[0] ? src->path : cushim_self_path());
		return 0;
	}
	return 1;
}

/* ---- a CUDA runtime ---- */

/* The runtime's way in: ByVersion where it has it, else its
 * cudaGetDriverEntryPoint asked for cuGetProcAddress (12.0 and later hand
 * back the v2 ABI, 11.x the v1 ABI). */
static int runtime_way_in(void *h, int version, struct cushim_source *src, int *rc)
{
	rt_byversion_fn byversion = (rt_byversion_fn)cushim_dlsym(h, "cudaGetDriverEntryPointByVersion");
	void *entry = cushim_dlsym(h, "cudaGetDriverEntryPoint"), *p = NULL;
	int status = -1;

	if (byversion) {
		*rc = byversion("cuDriverGetVersion", &p, 2020, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
		src->via = CUSHIM_VIA_BYVERSION, src->fn = (void *)byversion;
		src->how = "cudaGetDriverEntryPointByVersion";
		return *rc == 0 && p;
	}
	if (!entry)
		return 0;
	if (version >= 12000)
		*rc = ((rt_entry4_fn)entry)("cuGetProcAddress", &p, 0, &status);
	else
		*rc = ((rt_entry3_fn)entry)("cuGetProcAddress", &p, 0);
	if (*rc != 0 || !p)
		return 0;
	if (cushim_inside_self(p)) {
		cushim_note(CUSHIM_LOG_WARN, "the runtime handed out cushim's own cuGetProcAddress; skipped");
		return 0;
	}
	src->via = version >= 12000 ? CUSHIM_VIA_GPA2 : CUSHIM_VIA_GPA1, src->fn = p;
	src->how = version >= 12000 ? "cudaGetDriverEntryPoint (cuGetProcAddress_v2)"
				    : "cudaGetDriverEntryPoint (cuGetProcAddress)";
	return 1;
}

/* Take one runtime if it hands out entry points for this driver. */
static int use_runtime(void *h, const char *what, struct cushim_source *src)
{
	rt_version_fn rtver = (rt_version_fn)cushim_dlsym(h, "cudaRuntimeGetVersion");
	int version = 0, rc = -1;
	char v[16];

	memset(src, 0, sizeof *src);
	object_path(h, src->path, sizeof src->path);
	if (rtver)
		rtver(&version);
	if (!cushim_dlsym(h, "cudaGetDriverEntryPoint") && !cushim_dlsym(h, "cudaGetDriverEntryPointByVersion")) {
		cushim_note(CUSHIM_LOG_INFO, "%s %s has no cudaGetDriverEntryPoint; skipped", what, src->path);
		return 0;
	}
	if (runtime_way_in(h, version, src, &rc)) {
		src->handle = h, src->origin = CUSHIM_FROM_RUNTIME;
		cushim_note(CUSHIM_LOG_INFO, "using %s %s (CUDA %s) through %s", what, src->path,
			    cushim_format_version(version, v), src->how);
		return 1;
	}
	if (rc == CUDART_INSUFFICIENT_DRIVER)
		cushim_note(CUSHIM_LOG_INFO, "%s %s (CUDA %s) refuses this driver (cudaErrorInsufficientDriver); "
			    "trying the next", what, src->path, cushim_format_version(version, v));
	else
		cushim_note(CUSHIM_LOG_INFO, "%s %s (CUDA %s) gave no entry points (error %d); trying the next",
			    what, src->path, cushim_format_version(version, v), rc);
	src->via = CUSHIM_VIA_NONE;
	return 0;
}

static int try_runtime(const char *file, int mode, const char *what, struct cushim_source *src)
{
	void *h = dlopen(file, mode);
	if (!h)
		return 0;
	if (use_runtime(h, what, src))
		return 1;
	dlclose(h);
	return 0;
}

static int visit(const char *file, int (*each)(void *h, void *ctx), void *ctx)
{
	void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
	int r = h ? each(h, ctx) : 0;

	if (h)
		dlclose(h);
	return r;
}

int cushim_each_loaded_runtime(int (*each)(void *h, void *ctx), void *ctx)
{
	void *sym = cushim_dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint");
	Dl_info info;
	int r = 0;

	if (sym && dladdr(sym, &info) && info.dli_fname)
		r = visit(info.dli_fname, each, ctx);
	for (size_t i = 0; !r && i < CUSHIM_NRUNTIMES; i++)
		r = visit(cushim_runtime_sonames[i], each, ctx);
	return r;
}

static int any(void *h, void *ctx)
{
	(void)h, (void)ctx;
	return 1;
}

/* Has the process loaded a CUDA runtime (one whose entry points a program
 * uses, and which may have initialised the driver already)? */
int cushim_runtime_loaded(void)
{
	return cushim_each_loaded_runtime(any, NULL);
}

struct stack {
	void *frames[64];
	int n;
	char *path;
	size_t size;
};

/* Is the calling thread inside runtime h, in a call of its that has not
 * returned (its initialisation calling the driver, say)?  A runtime asked
 * then waits on its own initialisation for ever.  Its path in path when
 * it is. */
static int inside_runtime(void *h, void *ctx)
{
	struct stack *st = ctx;
	void *sym = cushim_dlsym(h, "cudaGetDriverEntryPoint");
	Dl_info rt, f;

	if (!sym || !dladdr(sym, &rt))
		return 0;
	for (int i = 0; i < st->n; i++)
		if (dladdr(st->frames[i], &f) && f.dli_fbase == rt.dli_fbase) {
			snprintf(st->path, st->size, "%s", rt.dli_fname ? rt.dli_fname : "?");
			return 1;
		}
	return 0;
}

int cushim_runtime_on_stack(char *path, size_t size)
{
	struct stack st = { .path = path, .size = size };

	st.n = backtrace(st.frames, 64);
	return cushim_each_loaded_runtime(inside_runtime, &st);
}

/* A loaded runtime taken by its own handle, which the source keeps. */
static int use_loaded(void *h, void *src)
{
	char path[4096];

	object_path(h, path, sizeof path);
	return try_runtime(path, RTLD_NOW | RTLD_NOLOAD, "the process's runtime", src);
}

/* A runtime the process has loaded (globally or privately), CUSHIM_CUDART,
 * then the runtimes by soname.  Only called once the driver is initialised:
 * a runtime's entry-point call initialises it otherwise. */
int cushim_open_runtime(struct cushim_source *src)
{
	if (cushim_each_loaded_runtime(use_loaded, src))
		return 1;
	if (cushim_conf.cudart) {
		void *h = dlopen(cushim_conf.cudart, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			cushim_note(CUSHIM_LOG_WARN, "cannot load CUSHIM_CUDART=%s: %s; trying the usual runtimes",
				    cushim_conf.cudart, dlerror());
		else if (use_runtime(h, "CUSHIM_CUDART runtime", src))
			return 1;
		else
			dlclose(h);
	}
	for (size_t i = 0; i < CUSHIM_NRUNTIMES; i++)
		if (try_runtime(cushim_runtime_sonames[i], RTLD_NOW | RTLD_LOCAL, "runtime", src))
			return 1;
	return 0;
}
