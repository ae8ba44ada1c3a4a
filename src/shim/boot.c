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
 * handlers.
 *
 * No lock is held across a call into the loader, the driver or a runtime
 * (doc/DESIGN.md, "Locks"): a thread whose call finds another's bootstrap
 * under way waits for it only while it makes progress, and else runs all of
 * it too, into memory of its own (struct boot_run); the first to finish
 * publishes what it found, under boot_lock, and the others drop theirs.  An
 * adoption runs the same way.  So a thread inside dlopen (a library's
 * constructor calling the driver) waits at most STALL_NS for a thread that
 * waits for the loader's lock it holds. */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "settings.h"
#include "log.h"
#include "observers.h"
#include "errors.h"
#include "source.h"
#include "masquerade.h"
#include "interpose.h"
#include "answer.h"
#include "integrity.h"
#include "boot.h"
#include "explain-fork.h"
#include "explain-module.h"
#include "explain-init.h"
#include "explain-oom.h"
#include "explain-runtime.h"
#include "state.h"
#include "missing.h"
#include "adapt.h"
#include "notes.h"
#include "siglock.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static struct cushim_source driver; /* the driver the published bootstrap opened */
static int masquerade;
static int interposed; /* exports go on through another preloaded library */

/* ---- boot_lock ----
 * Held, with every signal blocked (siglock.h), only to read the
 * configuration once, to count the bootstraps and the adoptions under way,
 * and to publish one of each: the configuration read (the environment, the
 * log's file opened), copies in memory, the trace's start (its files
 * opened) and the slots' stores.  Never a call into the loader, the driver,
 * a runtime or stdio. */
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static int conf_loaded;
static int booting, adopting_now; /* threads under way (each counts itself once) */
static int adopted;               /* an adoption was published */
static unsigned long steps;       /* a bootstrap's or an adoption's, as it goes */
static __thread int in_boot __attribute__((tls_model("initial-exec")));
static __thread int adopting __attribute__((tls_model("initial-exec")));
static __thread int counted_boot __attribute__((tls_model("initial-exec")));
static __thread int counted_adopt __attribute__((tls_model("initial-exec")));

/* Memory of the calling thread's own, for what it finds: mmap, safe in any
 * state of the process, gives it zeroed. */
static void *own_memory(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		return p;
	cushim_log(CUSHIM_LOG_WARN, "cannot map %zu bytes to start: %s", size, strerror(errno));
	return NULL;
}

/* ---- waiting for another thread's bootstrap or adoption ----
 * Only to spare the driver the same questions twice: a thread that finds
 * another's under way waits for it to publish while it makes progress, and
 * runs its own once it has made none for STALL_NS (its thread may wait for
 * the loader's lock that this thread holds, in a library's constructor). */
#define STALL_NS 100000000ULL

static void step(void)
{
	__atomic_add_fetch(&steps, 1, __ATOMIC_RELAXED);
}

static unsigned long progress(void)
{
	return __atomic_load_n(&steps, __ATOMIC_RELAXED) + cushim_lookups_made();
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Whether *published came true while progress went on. */
static int waited(const int *published)
{
	struct timespec nap = { 0, 50000 };
	unsigned long seen = progress(), p;
	uint64_t since = now_ns();

	while (!__atomic_load_n(published, __ATOMIC_ACQUIRE)) {
		if ((p = progress()) != seen)
			seen = p, since = now_ns();
		else if (now_ns() - since >= STALL_NS)
			return 0;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 5000000)
			nap.tv_nsec *= 2;
	}
	return 1;
}

/* ---- adopting a runtime once the driver is initialised ---- */
struct adopt_run {
	struct cushim_source rt;
	int found;
	void *answers[CUSHIM_NSYMS];
	struct cushim_notes notes;
};

/* Count the calling thread under way; 0 once an adoption is published.
 * *first: no other thread had one under way. */
static int adopt_begin(int *first)
{
	sigset_t saved;
	int go;

	cushim_lock(&boot_lock, &saved);
	if ((go = !adopted)) {
		*first = __atomic_add_fetch(&adopting_now, 1, __ATOMIC_RELAXED) == 1;
		counted_adopt = 1;
	}
	cushim_unlock(&boot_lock, &saved);
	return go;
}

/* Done: the first to finish publishes what it found (run; NULL: nothing). */
static int adopt_end(const struct adopt_run *run)
{
	sigset_t saved;
	int won;

	cushim_lock(&boot_lock, &saved);
	__atomic_sub_fetch(&adopting_now, 1, __ATOMIC_RELAXED);
	counted_adopt = 0;
	if ((won = run && !adopted)) {
		if (run->found)
			cushim_adopt_answers(&run->rt, run->answers, &driver);
		else
			cushim_note(CUSHIM_LOG_INFO, "driver initialised; no CUDA runtime gave entry points: "
				    "keeping %s", driver.how);
		__atomic_store_n(&adopted, 1, __ATOMIC_RELEASE);
	}
	cushim_unlock(&boot_lock, &saved);
	return won;
}

static void adopt(int first)
{
	struct adopt_run *run = first || !waited(&adopted) ? own_memory(sizeof *run) : NULL;
	int won;

	if (run) {
		cushim_notes_keep(&run->notes);
		run->found = cushim_open_runtime(&run->rt);
		step();
		if (run->found)
			cushim_adopt_ask(&run->rt, run->answers);
	}
	won = adopt_end(run);
	cushim_notes_keep(NULL);
	if (!run)
		return;
	if (won)
		cushim_notes_say(&run->notes);
	else if (run->found)
		dlclose(run->rt.handle); /* another thread's runtime was taken */
	munmap(run, sizeof *run);
}

/* Once, after the driver is initialised: never in masquerade (the runtime's
 * own calls come through cushim there) nor with CUSHIM_CUDART=none, and not
 * while the calling thread is inside a runtime. */
void cushim_adopt_runtime(void)
{
	char busy[4096];
	int first;

	if (masquerade || interposed || adopting || cushim_conf.cudart_none ||
	    __atomic_load_n(&adopted, __ATOMIC_ACQUIRE))
		return;
	adopting = 1;
	if (adopt_begin(&first)) {
		if (cushim_runtime_on_stack(busy, sizeof busy)) {
			/* not now: tried again at the program's next cuInit */
			cushim_log(CUSHIM_LOG_INFO, "called from inside the CUDA runtime %s (its initialisation, say): "
				   "asked now, it would wait on that call; keeping %s", busy, driver.how);
			adopt_end(NULL);
		} else {
			adopt(first);
		}
	}
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

/* cushim's own functions whose condition holds, as claims. */
static size_t own_claims(struct cushim_claim *c, int tracing)
{
	int watching = tracing || cushim_emulating || cushim_conf.npatterns || masquerade;
	size_t n = 0;
	_Static_assert(sizeof overrides / sizeof *overrides <= CUSHIM_MAX_CLAIMS, "the claims fit");

	for (size_t k = 0; k < sizeof overrides / sizeof *overrides; k++) {
		const struct override *o = &overrides[k];
		if (o->when == ALWAYS || (o->when == EMULATING && cushim_emulating) || (o->when == WATCHING && watching))
			c[n++] = (struct cushim_claim){ o->idx, o->fn, CUSHIM_OWNER_OWN, CUSHIM_CLAIM_REPLACE, NULL };
	}
	return n;
}

/* Every module's claims, applied by state.c in the owners' order. */
static void install_overrides(int tracing)
{
	/* the adapters at most one an export; the five others at most
	 * CUSHIM_MAX_CLAIMS each */
	static struct cushim_claim claims[CUSHIM_NSYMS + 5 * CUSHIM_MAX_CLAIMS];
	size_t n = own_claims(claims, tracing);

	n += cushim_adapt_claims(claims + n);
	n += cushim_module_claims(claims + n);
	n += cushim_start_claims(claims + n);
	n += cushim_oom_claims(claims + n, tracing);
	if (masquerade)
		n += cushim_runtime_gate_claims(claims + n);
	cushim_apply_claims(claims, n);
	cushim_count_adapted();
}

/* No driver: every call returns CUDA_ERROR_NO_DEVICE, and the error
 * functions still name and describe that code (and every other) from
 * cushim's own table, as a program's error path expects of them. */
static void install_errors(void)
{
	static const struct cushim_claim claims[] = {
		{ CUSHIM_IDX_cuGetErrorName, (void *)cushim_own_cuGetErrorName, CUSHIM_OWNER_ERRORS, CUSHIM_CLAIM_ALWAYS, NULL },
		{ CUSHIM_IDX_cuGetErrorString, (void *)cushim_own_cuGetErrorString, CUSHIM_OWNER_ERRORS, CUSHIM_CLAIM_ALWAYS,
		  NULL },
	};
	cushim_apply_claims(claims, sizeof claims / sizeof *claims);
}

/* ---- the bootstrap ---- */
struct boot_run {
	struct cushim_findings found;
	struct cushim_source driver;
	int masquerade, interposed, driverless, adopt;
	struct cushim_notes notes;
};

static uint64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec));
}

/* Has a runtime the program uses initialised the driver already?
 * cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED before, and changes
 * nothing. */
static int driver_initialised(const struct cushim_findings *f)
{
	int n = 0;
	void *fn = f->real[CUSHIM_IDX_cuDeviceGetCount];
	return fn && ((CUresult (CUDAAPI *)(int *))fn)(&n) == CUDA_SUCCESS;
}

/* Every call the bootstrap makes into the loader and the driver, with no
 * lock held: what they answer goes into run. */
static void find(struct boot_run *run)
{
	struct cushim_findings *f = &run->found;
	struct timespec t0, t1, t2;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cushim_find_self();
	run->masquerade = cushim_is_process_driver();
	step();
	if (!(run->masquerade ? cushim_open_real_driver(&run->driver) : cushim_open_driver(&run->driver))) {
		run->driverless = 1;
		return;
	}
	step();
	cushim_state_source(&f->state, &run->driver);
	cushim_note(CUSHIM_LOG_INFO, "driver %s%s, through %s", run->driver.path,
		    run->masquerade ? " (masquerade)" : "", run->driver.how);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cushim_resolve_table(f, &run->driver, cushim_set_versions(f, &run->driver));
	run->interposed = cushim_interposer_route(f, &run->driver, run->masquerade);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	f->state.find_ns = ns_between(&t0, &t1), f->state.resolve_ns = ns_between(&t1, &t2);
	step();
	cushim_fork_warm();
	step();
	run->adopt = !run->masquerade && !run->interposed && cushim_runtime_loaded() && driver_initialised(f);
}

static void publish(int tracing)
{
	const struct cushim_observers *obs = cushim_observers();
	if (!obs)
		tracing = 0; /* a build without the diagnostics */
	if (tracing)
		obs->start();
	cushim_state_tracing(tracing);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		void *target = tracing ? obs->tracer[i] : cushim_impl[i];
		if (target) /* a missing one keeps its first-call function, which reports it */
			__atomic_store_n(&cushim_slot[i], target, __ATOMIC_RELEASE);
	}
}

/* What run found becomes what every module reads (boot_lock held). */
static void publish_found(const struct boot_run *run)
{
	char v[16], w[16];
	int tracing = cushim_conf.level >= CUSHIM_LOG_ERRORS || cushim_conf.summary || cushim_conf.timeline ||
		      cushim_conf.record;

	driver = run->driver;
	cushim_state_publish(&run->found);
	install_overrides(tracing);
	publish(tracing);
	cushim_note(CUSHIM_LOG_INFO, "driver CUDA %s%s%s; %d of %d exports resolved, %d served by adapters, "
		    "%d missing", cushim_state.real_driver_version ?
		    cushim_format_version(cushim_state.real_driver_version, v) : "unknown",
		    cushim_emulating ? ", emulating CUDA " : "",
		    cushim_emulating ? cushim_format_version(cushim_state.driver_version, w) : "",
		    cushim_state.resolved, CUSHIM_NSYMS, cushim_state.adapted, cushim_state.missing);
}

/* Count the calling thread under way; 0 once a bootstrap is published.
 * *first: no other thread had one under way.  The first of all reads the
 * configuration. */
static int boot_begin(int *first)
{
	sigset_t saved;
	int go;

	cushim_lock(&boot_lock, &saved);
	if (!conf_loaded) {
		cushim_conf_load();
		conf_loaded = 1;
	}
	if ((go = !cushim_booted())) {
		*first = __atomic_add_fetch(&booting, 1, __ATOMIC_RELAXED) == 1;
		counted_boot = 1;
	}
	cushim_unlock(&boot_lock, &saved);
	return go;
}

/* Done: the first to finish publishes what it found (run; NULL: nothing). */
static int boot_end(const struct boot_run *run)
{
	sigset_t saved;
	int won;

	cushim_lock(&boot_lock, &saved);
	__atomic_sub_fetch(&booting, 1, __ATOMIC_RELAXED);
	counted_boot = 0;
	if ((won = run && !cushim_booted())) {
		masquerade = run->masquerade, interposed = run->interposed;
		if (run->driverless) {
			cushim_missing_driver(run->masquerade);
			install_errors();
		} else
			publish_found(run);
		cushim_set_booted();
	}
	cushim_unlock(&boot_lock, &saved);
	return won;
}

static void run_bootstrap(void)
{
	struct boot_run *run = NULL;
	int adopt = 0, first;

	/* Set first: a signal handler on this thread that makes a first driver
	 * call, or the driver calling an export back, is answered at once. */
	in_boot = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (boot_begin(&first)) {
		if ((first || !waited(&cushim_boot_done)) && (run = own_memory(sizeof *run))) {
			cushim_notes_keep(&run->notes);
			find(run);
		}
		if (boot_end(run) && run) {
			cushim_notes_keep(NULL);
			cushim_notes_say(&run->notes);
			adopt = run->adopt;
			if (cushim_observers())
				cushim_observers()->booted(); /* no lock held */
		}
		cushim_notes_keep(NULL);
		if (run)
			munmap(run, sizeof *run);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_boot = 0;
	if (adopt)
		cushim_adopt_runtime(); /* a runtime the program uses initialised it already */
}

void cushim_boot(void)
{
	if (!cushim_booted() && !in_boot)
		run_bootstrap();
}

static CUresult reentered(void)
{
	return CUDA_ERROR_NOT_INITIALIZED;
}

void *cushim_resolve(unsigned i)
{
	void *p;

	cushim_boot();
	if (!cushim_booted()) {
		/* The driver called back into an export while this thread was
		 * looking it up, or a signal handler interrupted its bootstrap:
		 * answer without waiting on this very thread. */
		cushim_log(CUSHIM_LOG_WARN, "%s was called while cushim was starting; returning "
			   "CUDA_ERROR_NOT_INITIALIZED", cushim_syms[i].name);
		return (void *)reentered;
	}
	if ((p = cushim_slots_trace() ? cushim_observers()->tracer[i] : cushim_impl[i]))
		return p;
	cushim_report_missing(i);
	__atomic_store_n(&cushim_slot[i], (void *)cushim_missing, __ATOMIC_RELEASE);
	return (void *)cushim_missing;
}

/* ---- fork: never split a bootstrap, an adoption or what they publish ---- */
static sigset_t fork_mask; /* the forking thread's, while it holds boot_lock */

/* Another thread has a bootstrap or an adoption under way (boot_lock held). */
static int others_under_way(void)
{
	return (!cushim_booted() && __atomic_load_n(&booting, __ATOMIC_RELAXED) > counted_boot) ||
	       (!adopted && __atomic_load_n(&adopting_now, __ATOMIC_RELAXED) > counted_adopt);
}

/* Finish here, with no lock held, what another thread has under way: the
 * child inherits it done, and no fork splits a dlopen of its (glibc's dlopen
 * aborts in a child forked while another thread's dlopen was loading a
 * library).  Not what this very thread has under way: a signal handler that
 * forks interrupted it, and goes on with it in the child. */
static void finish_others(void)
{
	if (!in_boot && !cushim_booted() && __atomic_load_n(&booting, __ATOMIC_RELAXED) > counted_boot)
		cushim_boot();
	if (!adopting && cushim_booted() && !__atomic_load_n(&adopted, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&adopting_now, __ATOMIC_RELAXED) > counted_adopt)
		cushim_adopt_runtime();
}

/* The locks are taken with every signal blocked, until the handlers after
 * fork give them back: no handler that forks runs on a thread holding them. */
static void cushim_prefork(void)
{
	sigset_t all, saved;

	sigfillset(&all);
	for (int tries = 0;; tries++) {
		finish_others();
		cushim_fork_prepare();
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		pthread_mutex_lock(&boot_lock);
		if (tries == 2 || !others_under_way())
			break; /* (after three rounds: forked as it stands) */
		pthread_mutex_unlock(&boot_lock);
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	fork_mask = saved;
	cushim_fork_lock();
	if (cushim_observers())
		cushim_observers()->prefork();
}

static void fork_done(void)
{
	sigset_t saved = fork_mask;

	pthread_mutex_unlock(&boot_lock);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void cushim_postfork_parent(void)
{
	if (cushim_observers())
		cushim_observers()->postfork(0);
	cushim_fork_unlock();
	fork_done();
}

/* A child forked from a process that initialised CUDA: its failed calls go
 * through the trace wrappers to cushim_trace_call, which names the cause
 * (explain-fork.c). */
static void watch_child(void)
{
	const struct cushim_observers *obs = cushim_observers();
	if (!obs)
		return; /* nothing to go through */
	obs->failures();
	if (!cushim_slots_trace())
		for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
			if (cushim_impl[i])
				__atomic_store_n(&cushim_slot[i], obs->tracer[i], __ATOMIC_RELEASE);
	cushim_state_tracing(1);
	cushim_fork_watching();
}

static void cushim_postfork_child(void)
{
	if (cushim_observers())
		cushim_observers()->postfork(1);
	if (cushim_fork_child())
		watch_child();
	cushim_fork_unlock();
	/* the other threads are gone, and what they had under way with them */
	__atomic_store_n(&booting, counted_boot, __ATOMIC_RELAXED);
	__atomic_store_n(&adopting_now, counted_adopt, __ATOMIC_RELAXED);
	fork_done();
}

__attribute__((constructor)) static void cushim_register_fork_handlers(void)
{
	pthread_atfork(cushim_prefork, cushim_postfork_parent, cushim_postfork_child);
}
