/* The bootstrap: on the first call of any export, once per process, open the
 * driver, ask it for every export with the exact version and stream flavour
 * of that export's ABI name, and fill the slots the stubs jump through.
 *
 * Nothing here initialises the driver or starts a runtime: until the program
 * initialises the driver (its own cuInit, or a runtime it uses), entry points
 * come from the driver's own cuGetProcAddress, or its symbols by name before
 * CUDA 11.3.  Once the driver is initialised, a CUDA runtime's
 * cudaGetDriverEntryPoint(ByVersion) is adopted: asked for every export, its
 * answers replace the driver's (they are the same functions on every driver
 * measured).  Nothing runs at load time but the registration of the fork
 * handlers. */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "settings.h"
#include "log.h"
#include "trace.h"
#include "timeline.h"
#include "errors.h"
#include "boot.h"
#include "adapt.h"
#include "explain.h"
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct cushim_state cushim_state;
void *cushim_impl[CUSHIM_NSYMS];
unsigned char cushim_origin[CUSHIM_NSYMS];
void *cushim_hidden_real[CUSHIM_NSYMS];
int cushim_emulating; /* CUSHIM_DRIVER_VERSION below the real driver's: answered as that version */

static struct cushim_source driver; /* the driver, as first opened */
static int masquerade;
static int interposed; /* exports go on through another preloaded library */

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

static void report_missing(unsigned i)
{
	const struct cushim_sym *s = &cushim_syms[i];
	char need[16], have[32];
	const char *rc = cushim_error_name(missing_rc);

	if (__atomic_exchange_n(&missing_logged[i], 1, __ATOMIC_RELAXED) || missing_rc == CUDA_ERROR_NO_DEVICE)
		return; /* said once; or the bootstrap said once why nothing works */
	cushim_timeline_missing(i, missing_rc);
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

/* ---- the driver's version, and the one the process sees ---- */
static int real_driver_version(void)
{
	void *p = NULL;
	int v = 0;
	CUresult rc;
	enum cushim_found f = cushim_source_lookup(&driver, CUSHIM_IDX_cuDriverGetVersion, &p);

	if (f != CUSHIM_FOUND || cushim_inside_self(p)) {
		static const char *const what[] = { "", "not found", "its version not sufficient", "an error" };
		cushim_log(CUSHIM_LOG_WARN, "cannot find cuDriverGetVersion through %s (%s); the driver's version "
			   "is unknown", driver.how, f == CUSHIM_FOUND ? "a pointer into cushim itself" : what[f]);
		return 0;
	}
	if ((rc = ((CUresult (*)(int *))p)(&v)) != CUDA_SUCCESS || v <= 0) {
		cushim_log(CUSHIM_LOG_WARN, "cuDriverGetVersion failed (%d); the driver's version is unknown",
			   (int)rc);
		return 0;
	}
	return v;
}

/* The version exports are judged against: the driver's, or CUSHIM_DRIVER_VERSION. */
static int set_versions(void)
{
	char v[16], w[16];
	int real = real_driver_version(), effective = real ? real : INT_MAX;

	cushim_state.real_driver_version = real;
	if (cushim_conf.driver_version && real && cushim_conf.driver_version > real) {
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_DRIVER_VERSION=%s is above the driver's own CUDA %s; not "
			   "emulating", cushim_format_version(cushim_conf.driver_version, v),
			   cushim_format_version(real, w));
	} else if (cushim_conf.driver_version) {
		effective = cushim_conf.driver_version;
		cushim_emulating = 1;
	}
	cushim_state.driver_version = effective == INT_MAX ? 0 : effective;
	return effective;
}

/* ---- the table ---- */
static void resolve_table(int effective)
{
	int nself = 0;
	const char *first_self = NULL;

	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		void *p = NULL;

		if (s->version > effective)
			missing_why[i] = WHY_NEWER; /* never ask above the driver's own version */
		else if (cushim_source_lookup(&driver, i, &p) != CUSHIM_FOUND)
			missing_why[i] = WHY_ABSENT;
		else if (cushim_inside_self(p))
			missing_why[i] = WHY_SELF, first_self = nself++ ? first_self : s->name;
		else if (cushim_hidden_name(s->name))
			missing_why[i] = WHY_HIDDEN, cushim_hidden_real[i] = p; /* to know it when asked for */
		if (missing_why[i]) {
			cushim_state.missing++;
			continue;
		}
		cushim_real[i] = cushim_impl[i] = p;
		cushim_origin[i] = driver.origin;
		cushim_state.resolved++;
	}
	if (nself)
		cushim_log(CUSHIM_LOG_WARN, "%d exports through %s point into cushim itself (first: %s; is cushim "
			   "installed as libcuda.so.1?); treating them as missing", nself, driver.how, first_self);
}

/* ---- adopting a runtime once the driver is initialised ---- */
static pthread_mutex_t adopt_lock = PTHREAD_MUTEX_INITIALIZER;
static int adopt_tried;
static __thread int adopting __attribute__((tls_model("initial-exec")));

/* Ask the runtime for every export the driver gave; take its answer. */
static void adopt_answers(const struct cushim_source *rt)
{
	int same = 0, replaced = 0, kept = 0;

	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *p = NULL, *old = cushim_real[i];
		if (!old)
			continue;
		if (cushim_source_lookup(rt, i, &p) != CUSHIM_FOUND || cushim_inside_self(p)) {
			kept++; /* the driver's answer stands */
			continue;
		}
		if (p != old) {
			replaced++;
			__atomic_store_n(&cushim_real[i], p, __ATOMIC_RELEASE);
			if (cushim_impl[i] == old)
				__atomic_store_n(&cushim_impl[i], p, __ATOMIC_RELEASE);
			if (__atomic_load_n(&cushim_slot[i], __ATOMIC_ACQUIRE) == old)
				__atomic_store_n(&cushim_slot[i], p, __ATOMIC_RELEASE);
		} else {
			same++;
		}
		cushim_origin[i] = CUSHIM_FROM_RUNTIME;
	}
	cushim_state.via = rt->how;
	snprintf(cushim_state.path, sizeof cushim_state.path, "%s", rt->path);
	cushim_log(CUSHIM_LOG_INFO, "driver initialised: %d exports now through %s %s (%d the same functions as "
		   "the driver's, %d different), %d kept from %s", same + replaced, rt->path, rt->how, same,
		   replaced, kept, driver.how);
}

/* Once, after the driver is initialised: never in masquerade (the runtime's
 * own calls come through cushim there) nor with CUSHIM_CUDART=none. */
void cushim_adopt_runtime(void)
{
	struct cushim_source rt;

	if (masquerade || interposed || adopting || cushim_conf.cudart_none)
		return;
	adopting = 1;
	pthread_mutex_lock(&adopt_lock);
	if (!adopt_tried) {
		adopt_tried = 1;
		if (cushim_open_runtime(&rt))
			adopt_answers(&rt);
		else
			cushim_log(CUSHIM_LOG_INFO, "driver initialised; no CUDA runtime gave entry points: keeping %s",
				   driver.how);
	}
	pthread_mutex_unlock(&adopt_lock);
	adopting = 0;
}

static CUresult CUDAAPI own_cuInit(unsigned int flags)
{
	CUresult r = ((CUresult (CUDAAPI *)(unsigned int))cushim_real[CUSHIM_IDX_cuInit])(flags);
	if (r == CUDA_SUCCESS) {
		cushim_fork_initialised(); /* where, for a forked child's failure (explain-fork.c) */
		cushim_adopt_runtime();
	}
	return r;
}

/* Has a runtime the program uses initialised the driver already?
 * cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED before, and changes
 * nothing. */
static int driver_initialised(void)
{
	int n = 0;
	void *f = cushim_real[CUSHIM_IDX_cuDeviceGetCount];
	return f && ((CUresult (CUDAAPI *)(int *))f)(&n) == CUDA_SUCCESS;
}

/* ---- cushim's own functions in place of the driver's ---- */
enum { ALWAYS, EMULATING, WATCHING };
static const struct override {
	unsigned idx;
	void *fn;
	int when;
} overrides[] = {
	{ CUSHIM_IDX_cuGetErrorName, (void *)cushim_own_cuGetErrorName, ALWAYS },
	{ CUSHIM_IDX_cuGetErrorString, (void *)cushim_own_cuGetErrorString, ALWAYS },
	{ CUSHIM_IDX_cuDriverGetVersion, (void *)cushim_own_cuDriverGetVersion, EMULATING },
	{ CUSHIM_IDX_cuGetExportTable, (void *)cushim_own_cuGetExportTable, EMULATING },
	{ CUSHIM_IDX_cuGetProcAddress, (void *)cushim_own_cuGetProcAddress, WATCHING },
	{ CUSHIM_IDX_cuGetProcAddress_v2, (void *)cushim_own_cuGetProcAddress_v2, WATCHING },
	{ CUSHIM_IDX_cuInit, (void *)own_cuInit, ALWAYS },
};

static void install_overrides(int tracing)
{
	int watching = tracing || cushim_emulating || cushim_conf.npatterns || masquerade;

	for (size_t k = 0; k < sizeof overrides / sizeof *overrides; k++) {
		const struct override *o = &overrides[k];
		if (cushim_real[o->idx] && (o->when == ALWAYS || (o->when == EMULATING && cushim_emulating) ||
					     (o->when == WATCHING && watching)))
			cushim_impl[o->idx] = o->fn;
	}
	cushim_adapt_install(1);
	cushim_module_install();
	if (masquerade)
		cushim_runtime_gate_install();
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		if (!cushim_real[i] && cushim_impl[i]) {
			cushim_state.adapted++;
			cushim_state.missing--;
		}
}

/* ---- the bootstrap ---- */
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static int boot_done;
static __thread int in_boot __attribute__((tls_model("initial-exec")));

static uint64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec));
}

static void no_driver(void)
{
	missing_rc = CUDA_ERROR_NO_DEVICE;
	if (masquerade)
		cushim_log(CUSHIM_LOG_WARN, "libcuda.so.1 (%s) is cushim itself, and no real libcuda.so.1 was found "
			   "(CUSHIM_DRIVER, LD_LIBRARY_PATH, /etc/ld.so.conf, the usual folders): every driver call "
			   "returns CUDA_ERROR_NO_DEVICE", cushim_self_path());
	else
		cushim_log(CUSHIM_LOG_WARN, "no driver (libcuda.so.1) could be used: every driver call returns "
			   "CUDA_ERROR_NO_DEVICE");
}

static void publish(int tracing)
{
	if (tracing)
		cushim_trace_start();
	cushim_state.tracing = tracing;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *target = tracing ? cushim_tracer[i] : cushim_impl[i];
		if (target) /* a missing one keeps its first-call function, which reports it */
			__atomic_store_n(&cushim_slot[i], target, __ATOMIC_RELEASE);
	}
}

static void bootstrap(void)
{
	struct timespec t0, t1, t2;
	char v[16], w[16];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cushim_conf_load();
	cushim_find_self();
	masquerade = cushim_is_process_driver();
	if (!(masquerade ? cushim_open_real_driver(&driver) : cushim_open_driver(&driver))) {
		no_driver();
		return;
	}
	cushim_state.via = driver.how;
	snprintf(cushim_state.path, sizeof cushim_state.path, "%s", driver.path);
	cushim_log(CUSHIM_LOG_INFO, "driver %s%s, through %s", driver.path, masquerade ? " (masquerade)" : "",
		   driver.how);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int effective = set_versions();
	resolve_table(effective);
	interposed = cushim_interposer_route(&driver, masquerade);
	int tracing = cushim_conf.level >= CUSHIM_LOG_ERRORS || cushim_conf.summary || cushim_conf.timeline;
	install_overrides(tracing);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cushim_state.find_ns = ns_between(&t0, &t1);
	cushim_state.resolve_ns = ns_between(&t1, &t2);
	publish(tracing);
	cushim_log(CUSHIM_LOG_INFO, "driver CUDA %s%s%s; %d of %d exports resolved, %d served by adapters, "
		   "%d missing", cushim_state.real_driver_version ?
		   cushim_format_version(cushim_state.real_driver_version, v) : "unknown",
		   cushim_emulating ? ", emulating CUDA " : "", cushim_emulating ? cushim_format_version(effective, w) : "",
		   cushim_state.resolved, CUSHIM_NSYMS, cushim_state.adapted, cushim_state.missing);
	if (!masquerade && !interposed && cushim_runtime_loaded() && driver_initialised())
		cushim_adopt_runtime(); /* a runtime the program uses initialised it already */
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
		__atomic_store_n(&boot_done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&boot_lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_boot = 0;
}

void cushim_boot(void)
{
	if (!__atomic_load_n(&boot_done, __ATOMIC_ACQUIRE))
		run_bootstrap();
}

int cushim_booted(void)
{
	return __atomic_load_n(&boot_done, __ATOMIC_ACQUIRE);
}

static CUresult reentered(void)
{
	return CUDA_ERROR_NOT_INITIALIZED;
}

void *cushim_resolve(unsigned i)
{
	void *p;

	if (in_boot) {
		/* The driver called back into an export while cushim was looking
		 * it up: answer without waiting on ourselves. */
		cushim_log(CUSHIM_LOG_WARN, "%s was called while cushim was starting; returning "
			   "CUDA_ERROR_NOT_INITIALIZED", cushim_syms[i].name);
		return (void *)reentered;
	}
	cushim_boot();
	if ((p = cushim_state.tracing ? cushim_tracer[i] : cushim_impl[i]))
		return p;
	report_missing(i);
	__atomic_store_n(&cushim_slot[i], (void *)missing, __ATOMIC_RELEASE);
	return (void *)missing;
}

/* ---- fork: never split a bootstrap or an adoption between parent and child ---- */
static void cushim_prefork(void)
{
	cushim_fork_prepare();
	pthread_mutex_lock(&boot_lock);
	pthread_mutex_lock(&adopt_lock);
	cushim_trace_prefork();
}

static void cushim_postfork_parent(void)
{
	cushim_trace_postfork(0);
	pthread_mutex_unlock(&adopt_lock);
	pthread_mutex_unlock(&boot_lock);
}

static void cushim_postfork_child(void)
{
	cushim_trace_postfork(1);
	cushim_fork_child();
	pthread_mutex_unlock(&adopt_lock);
	pthread_mutex_unlock(&boot_lock);
}

__attribute__((constructor)) static void cushim_register_fork_handlers(void)
{
	pthread_atfork(cushim_prefork, cushim_postfork_parent, cushim_postfork_child);
}
