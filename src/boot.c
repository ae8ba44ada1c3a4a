/* The bootstrap: on the first call of any export, once per process, find the
 * entry-point API, ask it for every export with the exact version and stream
 * flavour of that export's typedef, and fill the slots the stubs jump through.
 *
 * Order: a CUDA runtime already loaded in the process; CUSHIM_CUDART; the
 * runtimes libcudart.so.13, .12 and .11.0; then the driver's own
 * cuGetProcAddress through dlopen("libcuda.so.1").  Nothing runs at load time
 * but the registration of the fork handlers. */
#include "cushim-internal.h"
#include "adapt.h"
#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct cushim_state cushim_state;

/* ---- the entry-point API we found ---- */
enum via { VIA_NONE, VIA_BYVERSION, VIA_GPA2, VIA_GPA1 };
typedef int (*rt_byversion_fn)(const char *, void **, unsigned int, unsigned long long, int *);
typedef int (*rt_entry4_fn)(const char *, void **, unsigned long long, int *);
typedef int (*rt_entry3_fn)(const char *, void **, unsigned long long);
typedef int (*rt_version_fn)(int *);
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

static struct {
	enum via via;
	void *fn;
} api;

#define CUDART_INSUFFICIENT_DRIVER 35 /* cudaErrorInsufficientDriver */

/* The outcome of one lookup. */
enum found { FOUND, NOT_FOUND, TOO_OLD, FAILED };

static enum found lookup(const char *base, int version, int per_thread, void **out)
{
	unsigned long long flags = per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
					      : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	int status = -1;
	int rc;
	void *p = NULL;

	switch (api.via) {
	case VIA_BYVERSION:
		rc = ((rt_byversion_fn)api.fn)(base, &p, (unsigned)version, flags, &status);
		break;
	case VIA_GPA2:
		rc = ((gpa2_fn)api.fn)(base, &p, version, flags, (CUdriverProcAddressQueryResult *)&status);
		break;
	case VIA_GPA1:
		rc = ((gpa1_fn)api.fn)(base, &p, version, flags);
		status = (rc == 0 && p) ? 0 : 1;
		break;
	default:
		return FAILED;
	}
	/* Judge by pointer and status, never by the result alone: a version below
	 * the symbol's introduction answers success with NULL and status 2. */
	*out = p;
	if (rc == 0 && p && status == 0)
		return FOUND;
	if (status == 2)
		return TOO_OLD;
	return (rc == 0 || status == 1) ? NOT_FOUND : FAILED;
}

/* ---- never recurse: the span of libcushim.so itself ---- */
static uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
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
	if (me >= lo && me < hi) {
		self_lo = lo, self_hi = hi;
		return 1;
	}
	return 0;
}

static int inside_self(const void *p)
{
	return (uintptr_t)p >= self_lo && (uintptr_t)p < self_hi;
}

static const char *object_path(void *handle, char *buf, size_t size)
{
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(buf, size, "%s", lm->l_name);
	else
		snprintf(buf, size, "?");
	return buf;
}

/* Try one runtime: take it if it hands out entry points for this driver. */
static int use_runtime(void *h, const char *what)
{
	rt_byversion_fn byversion = (rt_byversion_fn)dlsym(h, "cudaGetDriverEntryPointByVersion");
	void *entry = dlsym(h, "cudaGetDriverEntryPoint");
	rt_version_fn rtver = (rt_version_fn)dlsym(h, "cudaRuntimeGetVersion");
	char path[4096], v[16];
	int version = 0, rc, status = -1;
	void *p = NULL;

	object_path(h, path, sizeof path);
	if (rtver)
		rtver(&version);
	if (byversion) {
		rc = byversion("cuDriverGetVersion", &p, 2020, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
		if (rc == 0 && p) {
			api.via = VIA_BYVERSION;
			api.fn = (void *)byversion;
			cushim_state.via = "cudaGetDriverEntryPointByVersion";
			goto taken;
		}
	} else if (entry) {
		/* The runtime asks for cuGetProcAddress at its own version: 12.0 and
		 * later hand back the v2 ABI (with a status), 11.x the v1 ABI. */
		if (version >= 12000)
			rc = ((rt_entry4_fn)entry)("cuGetProcAddress", &p, 0, &status);
		else
			rc = ((rt_entry3_fn)entry)("cuGetProcAddress", &p, 0);
		if (rc == 0 && p && inside_self(p)) {
			cushim_log(CUSHIM_LOG_WARN, "%s %s handed out cushim's own cuGetProcAddress; skipped",
				   what, path);
			return 0;
		}
		if (rc == 0 && p) {
			api.via = version >= 12000 ? VIA_GPA2 : VIA_GPA1;
			api.fn = p;
			cushim_state.via = version >= 12000 ? "cudaGetDriverEntryPoint (cuGetProcAddress_v2)"
							    : "cudaGetDriverEntryPoint (cuGetProcAddress)";
			goto taken;
		}
	} else {
		cushim_log(CUSHIM_LOG_INFO, "%s %s has no cudaGetDriverEntryPoint; skipped", what, path);
		return 0;
	}
	if (rc == CUDART_INSUFFICIENT_DRIVER)
		cushim_log(CUSHIM_LOG_INFO, "%s %s (CUDA %s) refuses this driver (cudaErrorInsufficientDriver); "
			   "trying the next", what, path, cushim_format_version(version, v));
	else
		cushim_log(CUSHIM_LOG_INFO, "%s %s (CUDA %s) gave no entry points (error %d); trying the next",
			   what, path, cushim_format_version(version, v), rc);
	return 0;
taken:
	snprintf(cushim_state.path, sizeof cushim_state.path, "%s", path);
	cushim_log(CUSHIM_LOG_INFO, "using %s %s (CUDA %s) through %s", what, path,
		   cushim_format_version(version, v), cushim_state.via);
	return 1;
}

static const char *const runtime_sonames[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" };

static int find_runtime(void)
{
	void *h;

	if (cushim_conf.cudart && strcmp(cushim_conf.cudart, "none") == 0) {
		cushim_log(CUSHIM_LOG_INFO, "CUSHIM_CUDART=none: not looking for a CUDA runtime");
		return 0;
	}
	/* A runtime the process has already loaded, globally or privately. */
	if (dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint")) {
		Dl_info info;
		void *sym = dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint");
		if (dladdr(sym, &info) && info.dli_fname && (h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD))) {
			if (use_runtime(h, "the process's runtime"))
				return 1;
			dlclose(h);
		}
	}
	for (size_t i = 0; i < sizeof runtime_sonames / sizeof *runtime_sonames; i++)
		if ((h = dlopen(runtime_sonames[i], RTLD_NOW | RTLD_NOLOAD))) {
			if (use_runtime(h, "the process's runtime"))
				return 1;
			dlclose(h);
		}
	if (cushim_conf.cudart) {
		if ((h = dlopen(cushim_conf.cudart, RTLD_NOW | RTLD_LOCAL))) {
			if (use_runtime(h, "CUSHIM_CUDART runtime"))
				return 1;
			dlclose(h);
		} else {
			cushim_log(CUSHIM_LOG_WARN, "cannot load CUSHIM_CUDART=%s: %s; trying the usual runtimes",
				   cushim_conf.cudart, dlerror());
		}
	}
	for (size_t i = 0; i < sizeof runtime_sonames / sizeof *runtime_sonames; i++)
		if ((h = dlopen(runtime_sonames[i], RTLD_NOW | RTLD_LOCAL))) {
			if (use_runtime(h, "runtime"))
				return 1;
			dlclose(h);
		}
	return 0;
}

static int find_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	void *p;

	if (!h) {
		cushim_log(CUSHIM_LOG_INFO, "no libcuda.so.1: %s", dlerror());
		return 0;
	}
	object_path(h, cushim_state.path, sizeof cushim_state.path);
	if ((p = dlsym(h, "cuGetProcAddress_v2"))) {
		api.via = VIA_GPA2;
		cushim_state.via = "the driver's cuGetProcAddress_v2";
	} else if ((p = dlsym(h, "cuGetProcAddress"))) {
		api.via = VIA_GPA1;
		cushim_state.via = "the driver's cuGetProcAddress";
	} else {
		cushim_log(CUSHIM_LOG_WARN, "%s has no cuGetProcAddress", cushim_state.path);
		return 0;
	}
	if (inside_self(p)) {
		cushim_log(CUSHIM_LOG_WARN, "libcuda.so.1 (%s) is cushim itself, not a driver: set CUSHIM_DRIVER "
			   "or fix the library path", cushim_state.path);
		api.via = VIA_NONE;
		return 0;
	}
	api.fn = p;
	cushim_log(CUSHIM_LOG_INFO, "no CUDA runtime usable; using %s through %s", cushim_state.path,
		   cushim_state.via);
	return 1;
}

/* ---- missing exports ---- */
static CUresult missing_rc = CUSHIM_NEWER_DRIVER;
static unsigned char missing_logged[CUSHIM_NSYMS];
static unsigned char missing_why[CUSHIM_NSYMS];
enum { WHY_NEWER = 1, WHY_ABSENT, WHY_HIDDEN, WHY_SELF };

/* Called through a pointer typed with the export's own parameters: extra
 * arguments are ignored under every ABI cushim supports (the caller cleans up). */
static CUresult missing(void)
{
	return missing_rc;
}

void *cushim_impl[CUSHIM_NSYMS];

static void report_missing(unsigned i)
{
	const struct cushim_sym *s = &cushim_syms[i];
	char need[16], have[32];
	const char *rc = cushim_error_name(missing_rc);

	if (__atomic_exchange_n(&missing_logged[i], 1, __ATOMIC_RELAXED))
		return;
	cushim_timeline_missing(i, missing_rc);
	if (missing_rc == CUDA_ERROR_NO_DEVICE)
		return; /* the bootstrap said once why nothing works */
	if (cushim_state.driver_version)
		snprintf(have, sizeof have, "CUDA %s", cushim_format_version(cushim_state.driver_version, need));
	else
		snprintf(have, sizeof have, "of unknown version");
	cushim_format_version(s->version, need);
	switch (missing_why[i]) {
	case WHY_NEWER:
		cushim_log(CUSHIM_LOG_WARN, "%s needs a CUDA %s driver; this driver is %s (returning %s)",
			   s->name, need, have, rc);
		break;
	case WHY_HIDDEN:
		cushim_log(CUSHIM_LOG_WARN, "%s is hidden by CUSHIM_HIDE (returning %s)", s->name, rc);
		break;
	case WHY_SELF:
		cushim_log(CUSHIM_LOG_WARN, "%s resolved to cushim itself, not to a driver (returning %s)",
			   s->name, rc);
		break;
	default:
		cushim_log(CUSHIM_LOG_WARN, "%s (CUDA %s) is not provided by this driver (%s) (returning %s)",
			   s->name, need, have, rc);
	}
}

CUresult cushim_missing_call(unsigned i)
{
	report_missing(i);
	return missing_rc;
}

/* ---- answers cushim gives itself ---- */
static int emulating;

static CUresult CUDAAPI own_cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = cushim_state.driver_version;
	return CUDA_SUCCESS;
}

/* The export that the driver's answer for (symbol, ...) is, or -1. */
static int export_of(const char *symbol, void *p)
{
	int lo = 0, hi = CUSHIM_NSYMS;
	while (lo < hi) { /* lower bound of symbol among the sorted names */
		int mid = (lo + hi) / 2;
		if (strcmp(cushim_syms[mid].name, symbol) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t n = strlen(symbol); lo < CUSHIM_NSYMS && strncmp(cushim_syms[lo].name, symbol, n) == 0; lo++)
		if (cushim_real[lo] == p && strcmp(cushim_syms[lo].base, symbol) == 0)
			return lo;
	return -1;
}

/* The application's (or in masquerade, the runtime's) own lookups: above the
 * emulated version there is nothing; a hidden or missing export is not found;
 * anything cushim exports is answered with cushim's stub, so that it is traced
 * and emulated like a call by name. */
static void *answer_lookup(const char *symbol, void *p, int *found)
{
	int i = export_of(symbol, p);
	*found = 1;
	if (i < 0)
		return p; /* not in this toolkit's table: the driver's own answer */
	if (!cushim_impl[i] || cushim_hidden_name(cushim_syms[i].name)) {
		*found = 0;
		return NULL;
	}
	return cushim_stub[i];
}

static CUresult CUDAAPI own_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						CUdriverProcAddressQueryResult *status)
{
	CUresult r;
	int found;

	if (emulating && version > cushim_state.driver_version)
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa2_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress_v2])(symbol, pfn, version, flags, status);
	if (r != CUDA_SUCCESS || !pfn || !*pfn || !symbol)
		return r;
	*pfn = answer_lookup(symbol, *pfn, &found);
	if (!found && status)
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return r;
}

static CUresult CUDAAPI own_cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	CUresult r;
	int found;

	if (emulating && version > cushim_state.driver_version)
		return CUDA_ERROR_INVALID_VALUE;
	r = ((gpa1_fn)cushim_real[CUSHIM_IDX_cuGetProcAddress])(symbol, pfn, version, flags);
	if (r != CUDA_SUCCESS || !pfn || !*pfn || !symbol)
		return r;
	*pfn = answer_lookup(symbol, *pfn, &found);
	return found ? r : CUDA_ERROR_NOT_FOUND;
}

/* ---- masquerade: cushim is the process's libcuda.so.1 ---- */
static int masquerading(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int me = 0;
	if (h) {
		me = dlsym(h, "cushim_symbol_count") != NULL && inside_self(dlsym(h, "cushim_symbol_count"));
		dlclose(h);
	}
	return me;
}

static int same_file_as_self(const char *path)
{
	Dl_info info;
	struct stat a, b;
	if (!dladdr((void *)masquerading, &info) || !info.dli_fname)
		return 0;
	return stat(path, &a) == 0 && stat(info.dli_fname, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int open_real_driver(const char *path)
{
	void *h, *p;

	if (access(path, R_OK) != 0 || same_file_as_self(path))
		return 0;
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		cushim_log(CUSHIM_LOG_INFO, "cannot load %s: %s", path, dlerror());
		return 0;
	}
	if ((p = dlsym(h, "cuGetProcAddress_v2")) && !inside_self(p)) {
		api.via = VIA_GPA2;
		cushim_state.via = "the driver's cuGetProcAddress_v2";
	} else if ((p = dlsym(h, "cuGetProcAddress")) && !inside_self(p)) {
		api.via = VIA_GPA1;
		cushim_state.via = "the driver's cuGetProcAddress";
	} else {
		dlclose(h);
		return 0;
	}
	api.fn = p;
	snprintf(cushim_state.path, sizeof cushim_state.path, "%s", path);
	cushim_log(CUSHIM_LOG_INFO, "masquerade: cushim is libcuda.so.1; the real driver is %s", path);
	return 1;
}

static int try_dir(const char *dir, size_t len)
{
	char path[4096];
	if (len == 0 || len > sizeof path - 16)
		return 0;
	snprintf(path, sizeof path, "%.*s/libcuda.so.1", (int)len, dir);
	return open_real_driver(path);
}

static int try_conf(const char *file, int depth)
{
	FILE *f = fopen(file, "re");
	char line[4096];
	int ok = 0;
	if (!f)
		return 0;
	while (!ok && fgets(line, sizeof line, f)) {
		char *s = line + strspn(line, " \t");
		s[strcspn(s, "#\r\n")] = '\0';
		if (strncmp(s, "include", 7) == 0 && depth < 2) {
			glob_t g;
			char *pat = s + 7 + strspn(s + 7, " \t");
			char full[4096];
			if (*pat != '/')
				snprintf(full, sizeof full, "/etc/%s", pat);
			else
				snprintf(full, sizeof full, "%s", pat);
			if (glob(full, 0, NULL, &g) == 0) {
				for (size_t k = 0; !ok && k < g.gl_pathc; k++)
					ok = try_conf(g.gl_pathv[k], depth + 1);
				globfree(&g);
			}
		} else if (*s == '/') {
			ok = try_dir(s, strcspn(s, " \t"));
		}
	}
	fclose(f);
	return ok;
}

/* The real driver, by absolute path, never cushim itself: CUSHIM_DRIVER, then
 * LD_LIBRARY_PATH, the loader's configuration and the usual folders. */
static int find_real_driver(void)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					     "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/nvidia/lib64",
					     "/usr/local/nvidia/lib", "/usr/lib/wsl/lib" };
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (cushim_conf.driver) {
		if (open_real_driver(cushim_conf.driver))
			return 1;
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_DRIVER=%s is not a usable driver (missing, unreadable, or "
			   "cushim itself); searching the usual places", cushim_conf.driver);
	}
	for (const char *p = llp; p && *p; p += strcspn(p, ":"), p += *p == ':')
		if (try_dir(p, strcspn(p, ":")))
			return 1;
	if (try_conf("/etc/ld.so.conf", 0))
		return 1;
	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
		if (try_dir(dirs[k], strlen(dirs[k])))
			return 1;
	return 0;
}

/* ---- the bootstrap ---- */
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static int boot_done;
static __thread int in_boot __attribute__((tls_model("initial-exec")));

struct override {
	unsigned idx;
	void *fn;
	int when; /* ALWAYS, or only while emulating, or while watching */
};
enum { ALWAYS, EMULATING, WATCHING };
static const struct override overrides[] = {
	{ CUSHIM_IDX_cuGetErrorName, (void *)cushim_own_cuGetErrorName, ALWAYS },
	{ CUSHIM_IDX_cuGetErrorString, (void *)cushim_own_cuGetErrorString, ALWAYS },
	{ CUSHIM_IDX_cuDriverGetVersion, (void *)own_cuDriverGetVersion, EMULATING },
	{ CUSHIM_IDX_cuGetProcAddress, (void *)own_cuGetProcAddress, WATCHING },
	{ CUSHIM_IDX_cuGetProcAddress_v2, (void *)own_cuGetProcAddress_v2, WATCHING },
};

static void *driver_get_version; /* found once, reused for the table */

static int real_driver_version(void)
{
	void *p = NULL;
	int v = 0;
	CUresult rc;

	enum found f = lookup("cuDriverGetVersion", 2020, 0, &p);
	if (f != FOUND || inside_self(p)) {
		static const char *const what[] = { "", "not found", "its version not sufficient",
						    "an error" };
		cushim_log(CUSHIM_LOG_WARN, "cannot find cuDriverGetVersion through %s (%s); the driver's version "
			   "is unknown", cushim_state.via, f == FOUND ? "a pointer into cushim itself" : what[f]);
		return 0;
	}
	driver_get_version = p;
	if ((rc = ((CUresult (*)(int *))p)(&v)) != CUDA_SUCCESS || v <= 0) {
		cushim_log(CUSHIM_LOG_WARN, "cuDriverGetVersion failed (%d); the driver's version is unknown",
			   (int)rc);
		return 0;
	}
	return v;
}

static void bootstrap(void)
{
	char v[16], w[16];
	int masq;

	struct timespec t0, t1, t2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cushim_conf_load();
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&find_self);
	masq = masquerading();

	if (masq ? !find_real_driver() : (!find_runtime() && !find_driver())) {
		missing_rc = CUDA_ERROR_NO_DEVICE;
		if (masq) {
			Dl_info self;
			cushim_log(CUSHIM_LOG_WARN, "libcuda.so.1 (%s) is cushim itself, and no real libcuda.so.1 was "
				   "found (CUSHIM_DRIVER, LD_LIBRARY_PATH, /etc/ld.so.conf, the usual folders): every "
				   "driver call returns CUDA_ERROR_NO_DEVICE",
				   dladdr((void *)masquerading, &self) && self.dli_fname ? self.dli_fname : "?");
		}
		else
			cushim_log(CUSHIM_LOG_WARN, "no CUDA runtime (libcudart.so.13, .12, .11.0%s) and no driver "
				   "(libcuda.so.1) could be used: every driver call returns CUDA_ERROR_NO_DEVICE",
				   cushim_conf.cudart ? ", CUSHIM_CUDART" : "");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int real = real_driver_version();
	int effective = real ? real : INT_MAX;
	cushim_state.real_driver_version = real;
	if (cushim_conf.driver_version) {
		if (real && cushim_conf.driver_version > real) {
			cushim_log(CUSHIM_LOG_WARN, "CUSHIM_DRIVER_VERSION=%s is above the driver's own CUDA %s; "
				   "not emulating", cushim_format_version(cushim_conf.driver_version, v),
				   cushim_format_version(real, w));
		} else {
			effective = cushim_conf.driver_version;
			emulating = 1;
		}
	}
	cushim_state.driver_version = effective == INT_MAX ? 0 : effective;

	int nself = 0;
	const char *first_self = NULL;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		void *p = NULL;

		if (cushim_hidden_name(s->name)) {
			missing_why[i] = WHY_HIDDEN;
		} else if (s->version > effective) {
			missing_why[i] = WHY_NEWER; /* never ask above the driver's own version */
		} else if (i == CUSHIM_IDX_cuDriverGetVersion && driver_get_version) {
			p = driver_get_version; /* asked already, at this very version */
			goto found;
		} else if (lookup(s->base, s->version, s->flavour != CUSHIM_LEGACY, &p) != FOUND) {
			missing_why[i] = WHY_ABSENT;
		} else if (inside_self(p)) {
			missing_why[i] = WHY_SELF;
			if (!nself++)
				first_self = s->name;
		} else {
found:
			cushim_real[i] = cushim_impl[i] = p;
			cushim_state.resolved++;
			continue;
		}
		cushim_state.missing++;
	}

	if (nself)
		cushim_log(CUSHIM_LOG_WARN, "%d exports through %s point into cushim itself (first: %s; is cushim "
			   "installed as libcuda.so.1?); treating them as missing", nself, cushim_state.via, first_self);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cushim_state.find_ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	cushim_state.resolve_ns = (uint64_t)((t2.tv_sec - t1.tv_sec) * 1000000000LL + (t2.tv_nsec - t1.tv_nsec));
	int tracing = cushim_conf.level >= CUSHIM_LOG_ERRORS || cushim_conf.summary || cushim_conf.timeline;
	int watching = tracing || emulating || cushim_conf.npatterns || masq;
	for (size_t k = 0; k < sizeof overrides / sizeof *overrides; k++) {
		const struct override *o = &overrides[k];
		if (cushim_real[o->idx] && (o->when == ALWAYS || (o->when == EMULATING && emulating) ||
					     (o->when == WATCHING && watching)))
			cushim_impl[o->idx] = o->fn;
	}
	cushim_adapt_install(1);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		if (!cushim_real[i] && cushim_impl[i]) {
			cushim_state.adapted++;
			cushim_state.missing--;
		}
	if (tracing)
		cushim_trace_start();
	cushim_state.tracing = tracing;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *target = tracing ? cushim_tracer[i] : cushim_impl[i];
		if (target) /* a missing one keeps its first-call function, which reports it */
			__atomic_store_n(&cushim_slot[i], target, __ATOMIC_RELEASE);
	}
	cushim_log(CUSHIM_LOG_INFO, "driver CUDA %s%s%s%s; %d of %d exports resolved, %d served by adapters, "
		   "%d missing", real ? cushim_format_version(real, v) : "unknown", emulating ? ", emulating CUDA " : "",
		   emulating ? cushim_format_version(effective, w) : "", masq ? " (masquerade)" : "",
		   cushim_state.resolved, CUSHIM_NSYMS, cushim_state.adapted, cushim_state.missing);
}

static void run_bootstrap(void)
{
	/* Set before taking the lock: a signal handler on this thread that makes
	 * a first driver call must not wait on a lock its own thread holds. */
	in_boot = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&boot_lock);
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE)) {
		bootstrap();
		cushim_state.booted = 1;
		__atomic_store_n(&boot_done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&boot_lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_boot = 0;
}

static CUresult reentered(void)
{
	return CUDA_ERROR_NOT_INITIALIZED;
}

void *cushim_resolve(unsigned i)
{
	void *p;

	if (in_boot) {
		/* A runtime or driver called back into an export while cushim was
		 * looking it up: answer without waiting on ourselves. */
		cushim_log(CUSHIM_LOG_WARN, "%s was called while cushim was starting; returning "
			   "CUDA_ERROR_NOT_INITIALIZED", cushim_syms[i].name);
		return (void *)reentered;
	}
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE))
		run_bootstrap();
	if ((p = cushim_state.tracing ? cushim_tracer[i] : cushim_impl[i]))
		return p;
	report_missing(i);
	__atomic_store_n(&cushim_slot[i], (void *)missing, __ATOMIC_RELEASE);
	return (void *)missing;
}

/* ---- fork: never split a bootstrap between parent and child ---- */
static void cushim_prefork(void)
{
	pthread_mutex_lock(&boot_lock);
	cushim_trace_prefork();
}

static void cushim_postfork_parent(void)
{
	cushim_trace_postfork(0);
	pthread_mutex_unlock(&boot_lock);
}

static void cushim_postfork_child(void)
{
	cushim_trace_postfork(1);
	pthread_mutex_unlock(&boot_lock);
}

__attribute__((constructor)) static void cushim_register_fork_handlers(void)
{
	pthread_atfork(cushim_prefork, cushim_postfork_parent, cushim_postfork_child);
}

/* ---- introspection, for tools and tests ---- */
CUSHIM_API int cushim_driver_version(void);
int cushim_driver_version(void)
{
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE))
		run_bootstrap();
	return cushim_state.driver_version;
}

CUSHIM_API int cushim_symbol_count(void);
int cushim_symbol_count(void)
{
	return CUSHIM_NSYMS;
}

/* The driver's function behind an export, NULL if it is missing. */
CUSHIM_API void *cushim_real_pointer(const char *name);
void *cushim_real_pointer(const char *name)
{
	int i = cushim_lookup_index(name);
	if (i < 0)
		return NULL;
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE))
		run_bootstrap();
	return cushim_real[i];
}

/* How long the bootstrap took: finding the entry points (loading a runtime,
 * which initialises the driver) and resolving the whole table. */
CUSHIM_API int cushim_bootstrap_times(uint64_t *find_ns, uint64_t *resolve_ns);
int cushim_bootstrap_times(uint64_t *find_ns, uint64_t *resolve_ns)
{
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE))
		return -1;
	*find_ns = cushim_state.find_ns;
	*resolve_ns = cushim_state.resolve_ns;
	return cushim_state.resolved;
}
