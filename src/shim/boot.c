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
#include "errors.h"
#include "boot.h"
#include "state.h"
#include "missing.h"
#include "adapt.h"
#include "explain.h"
#include <pthread.h>
#include <time.h>

static struct cushim_source driver; /* the driver, as first opened */
static int masquerade;
static int interposed; /* exports go on through another preloaded library */

/* ---- adopting a runtime once the driver is initialised ---- */
static pthread_mutex_t adopt_lock = PTHREAD_MUTEX_INITIALIZER;
static int adopt_tried;
static __thread int adopting __attribute__((tls_model("initial-exec")));

/* Once, after the driver is initialised: never in masquerade (the runtime's
 * own calls come through cushim there) nor with CUSHIM_CUDART=none, and not
 * while the calling thread is inside a runtime. */
void cushim_adopt_runtime(void)
{
	struct cushim_source rt;
	char busy[4096];

	if (masquerade || interposed || adopting || cushim_conf.cudart_none)
		return;
	adopting = 1;
	pthread_mutex_lock(&adopt_lock);
	if (!adopt_tried && cushim_runtime_on_stack(busy, sizeof busy)) {
		/* not now: tried again at the program's next cuInit */
		cushim_log(CUSHIM_LOG_INFO, "called from inside the CUDA runtime %s (its initialisation, say): asked "
			   "now, it would wait on that call; keeping %s", busy, driver.how);
	} else if (!adopt_tried) {
		adopt_tried = 1;
		if (cushim_open_runtime(&rt))
			cushim_adopt_answers(&rt, &driver);
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
	} else {
		cushim_init_failed(r);
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
			cushim_set_impl(o->idx, o->fn);
	}
	cushim_adapt_install(1);
	cushim_module_install();
	cushim_init_install();
	cushim_oom_install(tracing);
	if (masquerade)
		cushim_runtime_gate_install();
	cushim_count_adapted();
}

/* ---- the bootstrap ---- */
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int in_boot __attribute__((tls_model("initial-exec")));

static uint64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec));
}

static void publish(int tracing)
{
	if (tracing)
		cushim_trace_start();
	cushim_state_tracing(tracing);
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
		cushim_missing_driver(masquerade);
		return;
	}
	cushim_state_source(&driver);
	cushim_log(CUSHIM_LOG_INFO, "driver %s%s, through %s", driver.path, masquerade ? " (masquerade)" : "",
		   driver.how);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int effective = cushim_set_versions(&driver);
	cushim_resolve_table(&driver, effective);
	interposed = cushim_interposer_route(&driver, masquerade);
	int tracing = cushim_conf.level >= CUSHIM_LOG_ERRORS || cushim_conf.summary || cushim_conf.timeline;
	install_overrides(tracing);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cushim_state_timed(ns_between(&t0, &t1), ns_between(&t1, &t2));
	publish(tracing);
	cushim_fork_warm();
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
	if (!cushim_booted()) {
		bootstrap();
		cushim_set_booted();
	}
	pthread_mutex_unlock(&boot_lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_boot = 0;
}

void cushim_boot(void)
{
	if (!cushim_booted())
		run_bootstrap();
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
	cushim_report_missing(i);
	__atomic_store_n(&cushim_slot[i], (void *)cushim_missing, __ATOMIC_RELEASE);
	return (void *)cushim_missing;
}

/* ---- fork: never split a bootstrap or an adoption between parent and child ---- */
static void cushim_prefork(void)
{
	cushim_fork_prepare();
	pthread_mutex_lock(&boot_lock);
	pthread_mutex_lock(&adopt_lock);
	cushim_fork_lock();
	cushim_trace_prefork();
}

static void cushim_postfork_parent(void)
{
	cushim_trace_postfork(0);
	cushim_fork_unlock();
	pthread_mutex_unlock(&adopt_lock);
	pthread_mutex_unlock(&boot_lock);
}

/* A child forked from a process that initialised CUDA: its failed calls go
 * through the trace wrappers to cushim_trace_call, which names the cause
 * (explain-fork.c). */
static void watch_child(void)
{
	cushim_trace_failures();
	if (!cushim_tracing)
		for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
			if (cushim_impl[i])
				__atomic_store_n(&cushim_slot[i], cushim_tracer[i], __ATOMIC_RELEASE);
	cushim_fork_watching();
}

static void cushim_postfork_child(void)
{
	cushim_trace_postfork(1);
	if (cushim_fork_child())
		watch_child();
	cushim_fork_unlock();
	pthread_mutex_unlock(&adopt_lock);
	pthread_mutex_unlock(&boot_lock);
}

__attribute__((constructor)) static void cushim_register_fork_handlers(void)
{
	pthread_atfork(cushim_prefork, cushim_postfork_parent, cushim_postfork_child);
}
