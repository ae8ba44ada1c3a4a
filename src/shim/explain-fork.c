/* A forked child that cannot use CUDA.  A driver refuses CUDA in a child
 * forked from a process that initialised it (CUDA_ERROR_NOT_INITIALIZED,
 * from cuInit and every call after).  When the program's cuInit first
 * succeeds, the calling frames are kept (one backtrace(3), symbolised only
 * if a child ever fails).  In a child of such a process the fork handler
 * (boot.c) sends the calls through the trace wrappers, whose failed calls
 * reach cushim_trace_call and so cushim_fork_failed: nothing is added to any
 * call of a process that did not fork after initialising CUDA.
 *
 * The record (who initialised CUDA, from where) is whole at every fork: it
 * is copied into place under record_lock, which the fork handler holds
 * across fork; what it copies (the frames, which runtime is loaded) is
 * found before, with no lock held (siglock.h).
 * The child never calls dlopen: a fork while another thread of the parent
 * was inside dlopen leaves the loader's list half-changed, and glibc's
 * dlopen in such a child aborts ("_dl_open: Assertion ... RT_CONSISTENT").
 * What needs dlopen (which runtime is loaded) is found in the parent.  One
 * window stays: a fork in the instant between the driver's cuInit returning
 * and the record being taken finds the driver initialised and no record,
 * and that child names "a call cushim did not see". */
#include "table.h"
#include "slots.h"
#include "source.h"
#include "explain.h"
#include "explain-fork.h"
#include "state.h"
#include "siglock.h"
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NFRAMES 12
#define NSHOWN 4
int cushim_fork_watch;
static pid_t init_pid;      /* the process whose cuInit succeeded first */
static void *frames[NFRAMES];
static int nframes;
static char unseen_text[512]; /* how, when a call cushim did not see initialised CUDA */
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t forked_from;
static int said;

static void unseen(char *buf, size_t size);

/* In the bootstrap: backtrace(3) loads the unwinder (a dlopen) on its first
 * call, which is then not made by a program's cuInit, nor split by a fork
 * (the fork handler finishes a bootstrap under way first, boot.c). */
void cushim_fork_warm(void)
{
	void *f[1];
	backtrace(f, 1);
}

void cushim_fork_initialised(void)
{
	void *f[NFRAMES];
	pid_t me = getpid();
	sigset_t saved;
	int n;

	if (__atomic_load_n(&init_pid, __ATOMIC_ACQUIRE) == me)
		return;
	n = backtrace(f, NFRAMES); /* here, with no lock held: the unwinder asks the loader */
	cushim_lock(&record_lock, &saved);
	if (init_pid != me) {
		memcpy(frames, f, sizeof frames);
		nframes = n;
		__atomic_store_n(&init_pid, me, __ATOMIC_RELEASE);
	}
	cushim_unlock(&record_lock, &saved);
}

/* Before fork, in a process whose own cuInit cushim did not see (a runtime
 * that reaches the driver directly, LD_PRELOAD mode): is the driver
 * initialised?  One call, until it is. */
void cushim_fork_prepare(void)
{
	int n = 0;
	void *f;
	char how[sizeof unseen_text];
	pid_t me = getpid();
	sigset_t saved;

	/* (the slots are read only once the bootstrap is known to be done) */
	if (cushim_fork_watch || !cushim_booted() || __atomic_load_n(&init_pid, __ATOMIC_ACQUIRE) == me ||
	    !(f = cushim_real[CUSHIM_IDX_cuDeviceGetCount]) || ((CUresult (CUDAAPI *)(int *))f)(&n) != CUDA_SUCCESS)
		return;
	unseen(how, sizeof how); /* here, with no lock held: it calls dlopen */
	cushim_lock(&record_lock, &saved);
	if (init_pid != me) {
		nframes = 0; /* initialised by a call cushim did not see */
		memcpy(unseen_text, how, sizeof how);
		__atomic_store_n(&init_pid, me, __ATOMIC_RELEASE);
	}
	cushim_unlock(&record_lock, &saved);
}

/* Held across fork (boot.c's handlers, every signal blocked), after boot_lock. */
void cushim_fork_lock(void)
{
	pthread_mutex_lock(&record_lock);
}

void cushim_fork_unlock(void)
{
	pthread_mutex_unlock(&record_lock);
}

/* In the child after fork: does it start watching its calls?  (The fork
 * handler then sends them through the trace wrappers, and says so with
 * cushim_fork_watching.) */
int cushim_fork_child(void)
{
	cushim_causes_forget();
	if (!__atomic_load_n(&init_pid, __ATOMIC_ACQUIRE))
		return 0; /* nothing was initialised */
	forked_from = getppid();
	said = 0;
	return !cushim_fork_watch; /* a child's child: its parent was watching already */
}

void cushim_fork_watching(void)
{
	__atomic_store_n(&cushim_fork_watch, 1, __ATOMIC_RELEASE);
}

struct named {
	char *buf;
	size_t size;
};

static int name_runtime(void *h, void *ctx)
{
	struct named *n = ctx;
	struct link_map *lm;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm->l_name || !lm->l_name[0])
		return 0;
	snprintf(n->buf, n->size, "a call cushim did not see, with the CUDA runtime %s loaded", lm->l_name);
	return 1;
}

/* The driver was initialised by a call that did not come through cushim:
 * name the runtime loaded, which made it. */
static void unseen(char *buf, size_t size)
{
	struct named n = { buf, size };

	if (!cushim_each_loaded_runtime(name_runtime, &n))
		snprintf(buf, size, "a call cushim did not see");
}

/* "main+0x1c (/path/app), worker (/path/lib.so+0x1234), ...": the kept
 * frames outside cushim. */
static void where(char *buf, size_t size)
{
	size_t o = (size_t)snprintf(buf, size, "cuInit called from ");
	int shown = 0;

	for (int k = 0; k < nframes && shown < NSHOWN && o < size; k++) {
		Dl_info di;
		const char *file;
		int m;
		if (cushim_inside_self(frames[k]) || !dladdr(frames[k], &di) || !di.dli_fname)
			continue;
		file = di.dli_fname[0] ? di.dli_fname : program_invocation_name;
		if (di.dli_sname)
			m = snprintf(buf + o, size - o, "%s%s+0x%zx (%s)", shown ? ", " : "", di.dli_sname,
				     (size_t)((char *)frames[k] - (char *)di.dli_saddr), file);
		else
			m = snprintf(buf + o, size - o, "%s%s+0x%zx", shown ? ", " : "", file,
				     (size_t)((char *)frames[k] - (char *)di.dli_fbase));
		o += m > 0 ? (size_t)m : 0;
		shown++;
	}
	if (!shown)
		snprintf(buf, size, "%s", unseen_text[0] ? unseen_text : "a call cushim did not see");
}

void cushim_fork_failed(unsigned i)
{
	char text[1800], from[1024], parent[96];
	pid_t init = __atomic_load_n(&init_pid, __ATOMIC_ACQUIRE);

	if (__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
		return;
	where(from, sizeof from);
	if (init == forked_from)
		snprintf(parent, sizeof parent, "process %d", (int)init);
	else
		snprintf(parent, sizeof parent, "process %d (which descends from process %d)", (int)forked_from,
			 (int)init);
	snprintf(text, sizeof text, "%s returned CUDA_ERROR_NOT_INITIALIZED in process %d because it was forked from "
		 "%s after CUDA was initialised there; a forked child cannot use CUDA initialised before the fork. "
		 "Process %d initialised CUDA through %s. Initialise CUDA only after fork, in the "
		 "child, or start workers with spawn or forkserver (Python: multiprocessing.set_start_method(\"spawn\"))",
		 cushim_syms[i].name, (int)getpid(), parent, (int)init, from);
	cushim_cause("fork", text);
}
