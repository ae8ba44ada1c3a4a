/* A fake libcuda.so.1 for tests without a GPU, built once per driver level
 * (FAKE_LEVEL = 11040, 12000, 13000: the CUDA version the driver reports).
 *
 * It exports what a real driver of that level exports (fake-table.h, made by
 * genfake.py from the oracle files alone).  Every export records its name and
 * its first FAKE_NWORDS argument words, counts the call and returns
 * CUDA_SUCCESS once the driver is initialised, CUDA_ERROR_NOT_INITIALIZED
 * before, as a real driver does.  cuInit initialises it, except in a child
 * forked from an initialised process, which the real driver refuses for good
 * (measured on driver 580).  A few answer as a driver does: cuInit, cuDriverGetVersion,
 * cuGetErrorName/String (an 11.4 driver does not know code 36), and
 * cuGetProcAddress/_v2, which answer from the oracle's rows as a real
 * driver of that level does (a name the level never had is not found at any
 * version; a version above the level's own is answered or refused by the
 * rule of src/common/lookup-rule.h, measured on real drivers) and log every lookup;
 * with FAKE_DEVICES=N, those of fake-devices.c answer with N devices.
 * No cuda.h: the fake must not share cushim's view of the API.
 *
 * Link it with -Bsymbolic, as the real driver is: the pointers it hands out
 * must be its own functions, not a preloaded shim's.
 *
 * Built with FAKE_LEAN (tests/fake/drv-lean, for make bench): the same
 * answers, less what costs more than the call itself: an export records
 * nothing, reads no environment (no FAKE_* fault, no FAKE_DEVICES) and
 * knows it is initialised by a volatile that cuInit sets, not by the pid (a
 * forked child inherits it).  So what cushim adds is measured against a
 * call of a few nanoseconds, not against a system call. */
#include "fake.h"
#include "fake-table.h" /* FAKE_NEXPORTS, FAKE_NROWS */
#include "lookup-rule.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_LEVEL
#error "build with -DFAKE_LEVEL=<CUDA version of the fake driver>"
#endif

#define FAKE_API __attribute__((visibility("default")))
typedef unsigned long long W;

enum { SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NOT_FOUND = 500, NOT_SUPPORTED = 801 };

/* ---- initialisation: the process that ran cuInit, 0 before ---- */
static pid_t init_pid;
#ifdef FAKE_LEAN
static volatile int lean_initialised; /* set by cuInit */
#define FAKE_GETENV(name) ((const char *)NULL)
#else
#define FAKE_GETENV(name) getenv(name)
#endif

static int initialised(void)
{
#ifdef FAKE_LEAN
	return lean_initialised;
#else
	return __atomic_load_n(&init_pid, __ATOMIC_ACQUIRE) == getpid();
#endif
}

/* ---- fault injection (tests/hardening), read from the environment ----
 *   FAKE_GPA=invalid        cuGetProcAddress(_v2) answers INVALID_VALUE, NULL
 *   FAKE_GPA=null0|1|2      ... answers SUCCESS, NULL, with status 0, 1 or 2
 *   FAKE_GPA=self           ... answers SUCCESS, status 0 and the program's
 *                           cuInit (the global scope's): the preloaded
 *                           shim's own stub, not the fake's function
 *   FAKE_VERSION_FAIL=N     cuDriverGetVersion returns N, writes nothing
 *   FAKE_INIT_FAIL=N        cuInit returns N and initialises nothing
 *   FAKE_STICKY=N           cuCtxSynchronize and cuStreamSynchronize return N (a kernel
 *                           faulted: 700, 710, 719), and cuModuleGetFunction gives each
 *                           name a handle of its own (its hash)
 *   FAKE_MODULE_REFUSE=N    every module, library and link load (cuModuleLoad*,
 *                           cuLibraryLoad*, cuLinkAdd*_v2) returns N once initialised
 *   FAKE_GPU_CC=M.m         the GPU's compute capability: cuCtxGetDevice answers
 *                           device 0, cuDeviceGetAttribute its major (75), minor (76)
 * Unset: the fake answers as the real driver (the oracle). */
enum gpa_fault { GPA_ORACLE, GPA_INVALID, GPA_NULL0, GPA_NULL1, GPA_NULL2, GPA_SELF };

static enum gpa_fault gpa_fault(void)
{
	const char *v = FAKE_GETENV("FAKE_GPA");
	if (!v || !*v)
		return GPA_ORACLE;
	if (strcmp(v, "invalid") == 0)
		return GPA_INVALID;
	if (strcmp(v, "null0") == 0)
		return GPA_NULL0;
	if (strcmp(v, "null1") == 0)
		return GPA_NULL1;
	if (strcmp(v, "null2") == 0)
		return GPA_NULL2;
	if (strcmp(v, "self") == 0)
		return GPA_SELF;
	abort(); /* a typo in a test must not pass as "no fault" */
}

/* ---- the names, at every level, for the counters ---- */
static const char *const names[FAKE_NEXPORTS] = {
#define FAKE_NAME(i, n) [i] = #n,
#include "fake-table.h"
#undef FAKE_NAME
};

static int by_name(const void *key, const void *name)
{
	return strcmp(key, *(const char *const *)name);
}

static int name_index(const char *name)
{
	const char *const *n = name ? bsearch(name, names, FAKE_NEXPORTS, sizeof *names, by_name) : NULL;
	return n ? (int)(n - names) : -1;
}

/* ---- the recorder ---- */
static long calls[FAKE_NEXPORTS];
static long calls_total;
static const char *last_name;
static W last_words[FAKE_NWORDS];

/* Called first thing by every export with its first FAKE_NWORDS argument
 * words: the argument registers (six on x86-64, eight on AArch64), then the
 * caller's stack words, read as the named parameters they would be (the
 * callee only reads them). */
__attribute__((always_inline)) static inline void record(int i, const W w[FAKE_NWORDS])
{
	for (int k = 0; k < FAKE_NWORDS; k++)
		__atomic_store_n(&last_words[k], w[k], __ATOMIC_RELAXED);
	__atomic_store_n(&last_name, names[i], __ATOMIC_RELEASE);
	__atomic_add_fetch(&calls[i], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&calls_total, 1, __ATOMIC_RELAXED);
}

#define WORDS W a0, W a1, W a2, W a3, W a4, W a5, W a6, W a7, W a8, W a9, W a10, W a11
#ifdef FAKE_LEAN
#define RECORD(i) ((void)record)
#else
#define RECORD(i) record(i, (const W[FAKE_NWORDS]){ a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 })
#endif

/* ---- the memory that FAKE_MEM_TOTAL gives, and the device state that
 * FAKE_DEVICES=N turns on (their specials) ---- */
#include "fake-memory.c"
#include "fake-devices.c"

/* ---- the generic exports ---- */
#define FAKE_EXPORT(i, n, v)
#define FAKE_SPECIAL(i, n) \
	static int special_##n(W a0, W a1, W a2, W a3, W a4, W a5); \
	FAKE_API int n(WORDS); \
	FAKE_API __attribute__((noinline)) int n(WORDS) \
	{ \
		RECORD(i); \
		return special_##n(a0, a1, a2, a3, a4, a5); \
	}
#define FAKE_GENERIC(i, n) \
	FAKE_API int n(WORDS); \
	FAKE_API __attribute__((noinline)) int n(WORDS) \
	{ \
		RECORD(i); \
		return initialised() ? SUCCESS : NOT_INITIALIZED; \
	}
#include "fake-table.h"
#undef FAKE_GENERIC
#undef FAKE_SPECIAL
#undef FAKE_EXPORT

/* The function behind every name at this level (NULL: not exported).  With
 * -Bsymbolic these are the fake's own, whatever is preloaded. */
static void *const fns[FAKE_NEXPORTS] = {
#define FAKE_EXPORT(i, n, v) [i] = (void *)n,
#define FAKE_GENERIC(i, n)
#define FAKE_SPECIAL(i, n)
#include "fake-table.h"
#undef FAKE_GENERIC
#undef FAKE_SPECIAL
#undef FAKE_EXPORT
};

/* ---- the oracle's cuGetProcAddress answers ---- */
struct row {
	const char *symbol;
	int flags, from, result, status, ret;
};
static const struct row rows[FAKE_NROWS] = {
#define FAKE_ROW(s, f, v, r, st, ret) { s, f, v, r, st, ret },
#include "fake-table.h"
#undef FAKE_ROW
};

#define MAX_LOOKUPS 16384
static struct fake_lookup lookups[MAX_LOOKUPS];
static int nlookups;

/* A new entry in the lookup log, its question filled in; NULL once the log
 * is full. */
__attribute__((unused)) static struct fake_lookup *log_lookup(int abi, const char *symbol, int version, W flags)
{
	int slot = __atomic_fetch_add(&nlookups, 1, __ATOMIC_ACQ_REL);
	struct fake_lookup *l = slot < MAX_LOOKUPS ? &lookups[slot] : NULL;

	if (l) {
		strncpy(l->symbol, symbol ? symbol : "(null)", sizeof l->symbol - 1);
		l->version = version, l->flags = flags;
	}
	return l;
}

/* The oracle's answer to a lookup of symbol at version (at most FAKE_LEVEL)
 * with flags (0 to 2): the result, the status into *st and the function, if
 * any, into *fn. */
__attribute__((unused)) static int oracle_lookup(const char *symbol, int version, W flags, int *st, void **fn)
{
	int want = flags ? (int)flags : 1; /* DEFAULT behaves as LEGACY_STREAM */
	const struct row *best = NULL;
	int known = 0;
	int lo = 0, hi = FAKE_NROWS; /* first row of the symbol */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (strcmp(rows[mid].symbol, symbol) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int r = lo; r < FAKE_NROWS && strcmp(rows[r].symbol, symbol) == 0; r++) {
		known |= rows[r].status == 0 && rows[r].from <= FAKE_LEVEL;
		if (rows[r].flags == want && rows[r].from <= version)
			best = &rows[r];
	}
	if (!known) {
		/* a name this driver never had, at any version: success, not found */
		*st = 1;
		return SUCCESS;
	}
	if (!best) {
		*st = 2; /* below every row: too old */
		return SUCCESS;
	}
	*st = best->status;
	if (best->ret >= 0) {
		*fn = fns[best->ret];
		if (!*fn)
			abort(); /* the oracle returns a name this level lacks: genfake is wrong */
	}
	return best->result;
}

__attribute__((unused)) static int lookup(int abi, const char *symbol, void **pfn, int version, W flags, int *status)
{
	struct fake_lookup *l = log_lookup(abi, symbol, version, flags);
	int result = INVALID_VALUE, st = -1;
	void *fn = NULL;

	if (!symbol || !pfn || flags > 2)
		goto out;
	*pfn = NULL;
	switch (gpa_fault()) {
	case GPA_ORACLE:
		break;
	case GPA_INVALID:
		goto out;
	case GPA_NULL0:
	case GPA_NULL1:
	case GPA_NULL2:
		result = SUCCESS, st = (int)gpa_fault() - GPA_NULL0;
		goto answer;
	case GPA_SELF:
		/* the program's global scope, not RTLD_DEFAULT: from a -Bsymbolic
		 * object that finds the object's own cuInit first */
		result = SUCCESS, st = 0, fn = dlsym(dlopen(NULL, RTLD_NOW), "cuInit");
		if (fn == (void *)cuInit)
			abort(); /* FAKE_GPA=self without a preloaded shim: a broken test */
		goto answer;
	}
	if (version > FAKE_LEVEL) {
		if (cushim_refuses_above(FAKE_LEVEL))
			goto out; /* invalid, status untouched */
		version = FAKE_LEVEL; /* the newest variant this driver has */
	}
	result = oracle_lookup(symbol, version, flags, &st, &fn);
	if (abi == 1 && result == SUCCESS && !fn)
		result = NOT_FOUND; /* cuGetProcAddress has no status: not found, whatever the reason */
answer:
	*pfn = fn;
	if (status && st != -1)
		*status = st;
out:
	if (l) {
		l->result = result, l->status = status && st != -1 ? st : -1, l->fn = fn;
		__atomic_thread_fence(__ATOMIC_RELEASE);
	}
	return result;
}

/* ---- the specials ---- */
static int special_cuInit(W a0, W a1, W a2, W a3, W a4, W a5)
{
	pid_t was = __atomic_load_n(&init_pid, __ATOMIC_ACQUIRE);
	const char *fail = FAKE_GETENV("FAKE_INIT_FAIL");
	if (fail && *fail)
		return atoi(fail); /* as a driver that cannot start: nothing initialised */
	if (was && was != getpid())
		return NOT_INITIALIZED; /* forked from an initialised process */
	__atomic_store_n(&init_pid, getpid(), __ATOMIC_RELEASE);
#ifdef FAKE_LEAN
	lean_initialised = 1;
#endif
	return SUCCESS;
}

static int special_cuDriverGetVersion(W a0, W a1, W a2, W a3, W a4, W a5)
{
	int *v = (int *)(uintptr_t)a0;
	const char *fail = FAKE_GETENV("FAKE_VERSION_FAIL");
	if (fail && *fail)
		return atoi(fail);
	if (!v)
		return INVALID_VALUE;
	*v = FAKE_LEVEL;
	return SUCCESS;
}

#if FAKE_LEVEL >= 11030 /* drivers before CUDA 11.3 have no cuGetProcAddress */
static int special_cuGetProcAddress(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return lookup(1, (const char *)(uintptr_t)a0, (void **)(uintptr_t)a1, (int)a2, a3, NULL);
}
#endif

#if FAKE_LEVEL >= 12000
static int special_cuGetProcAddress_v2(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return lookup(2, (const char *)(uintptr_t)a0, (void **)(uintptr_t)a1, (int)a2, a3, (int *)(uintptr_t)a4);
}
#endif

/* ---- module loads and the GPU, when a test asks (FAKE_MODULE_REFUSE, FAKE_GPU_CC) ---- */
static int load(void)
{
	const char *refuse = FAKE_GETENV("FAKE_MODULE_REFUSE");
	if (!initialised())
		return NOT_INITIALIZED;
	return refuse && *refuse ? atoi(refuse) : SUCCESS;
}

#define LOADER(n) \
	static int special_##n(W a0, W a1, W a2, W a3, W a4, W a5) { return load(); }
LOADER(cuModuleLoad)
LOADER(cuModuleLoadData)
LOADER(cuModuleLoadDataEx)
LOADER(cuModuleLoadFatBinary)
#if FAKE_LEVEL >= 12000
LOADER(cuLibraryLoadData)
LOADER(cuLibraryLoadFromFile)
#endif
LOADER(cuLinkAddData_v2)
LOADER(cuLinkAddFile_v2)

/* ---- a kernel that faulted, when a test asks (FAKE_STICKY) ---- */
static int sticky(void)
{
	const char *code = FAKE_GETENV("FAKE_STICKY");
	if (!initialised())
		return NOT_INITIALIZED;
	return code && *code ? atoi(code) : SUCCESS;
}

static int special_cuCtxSynchronize(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return sticky();
}

static int special_cuStreamSynchronize(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return sticky();
}

static int special_cuModuleGetFunction(W a0, W a1, W a2, W a3, W a4, W a5)
{
	const char *name = (const char *)(uintptr_t)a2;
	W h = 0xcbf29ce484222325ull;
	if (!initialised())
		return NOT_INITIALIZED;
	if (FAKE_GETENV("FAKE_STICKY") && a0 && name) {
		for (; *name; name++)
			h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
		*(W *)(uintptr_t)a0 = h;
	}
	return SUCCESS;
}

/* Like a driver without the runtime's private tables: a runtime must fail
 * cleanly on it, not crash. */
static int special_cuGetExportTable(W a0, W a1, W a2, W a3, W a4, W a5)
{
	const void **table = (const void **)(uintptr_t)a0;
	if (table)
		*table = NULL;
	return NOT_SUPPORTED;
}

static const struct {
	int code, since;
	const char *name, *text;
} errors[] = {
	{ 0, 0, "CUDA_SUCCESS", "no error" },
	{ 1, 0, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ 3, 0, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	/* an 11.4 driver does not know 36; the shim must name it itself */
	{ 36, 12000, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "the API call requires a newer CUDA driver" },
	{ 2, 0, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 46, 0, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable" },
	{ 100, 0, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ 803, 0, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination" },
	{ 804, 0, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW" },
	{ 999, 0, "CUDA_ERROR_UNKNOWN", "unknown error" },
	{ 500, 0, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ 801, 0, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
};

static int error_text(W code, W out, int which)
{
	const char **s = (const char **)(uintptr_t)out;
	for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
		if ((int)code == errors[i].code && FAKE_LEVEL >= errors[i].since) {
			if (!s)
				return INVALID_VALUE;
			*s = which ? errors[i].text : errors[i].name;
			return SUCCESS;
		}
	if (s)
		*s = NULL;
	return INVALID_VALUE;
}

static int special_cuGetErrorName(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return error_text(a0, a1, 0);
}

static int special_cuGetErrorString(W a0, W a1, W a2, W a3, W a4, W a5)
{
	return error_text(a0, a1, 1);
}

/* ---- what the tests read (fake.h) ---- */
#define API(ret, name, args) FAKE_API ret name args; FAKE_API ret name args
API(int, fake_level, (void)) { return FAKE_LEVEL; }
API(int, fake_initialised, (void)) { return initialised(); }
API(long, fake_calls_total, (void)) { return __atomic_load_n(&calls_total, __ATOMIC_ACQUIRE); }
API(long, fake_calls, (const char *name))
{
	int i = name_index(name);
	return i < 0 ? -1 : __atomic_load_n(&calls[i], __ATOMIC_ACQUIRE);
}
API(const char *, fake_last_name, (void)) { return __atomic_load_n(&last_name, __ATOMIC_ACQUIRE); }
API(unsigned long long, fake_last_word, (int k))
{
	return k >= 0 && k < FAKE_NWORDS ? __atomic_load_n(&last_words[k], __ATOMIC_RELAXED) : 0;
}
API(int, fake_lookups_total, (void))
{
	int n = __atomic_load_n(&nlookups, __ATOMIC_ACQUIRE);
	return n < MAX_LOOKUPS ? n : MAX_LOOKUPS;
}
API(int, fake_lookup_at, (int i, struct fake_lookup *out))
{
	if (i < 0 || i >= fake_lookups_total())
		return -1;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	*out = lookups[i];
	return 0;
}
API(int, fake_lookup_count, (const char *symbol))
{
	int n = 0, total = fake_lookups_total();
	for (int i = 0; i < total; i++)
		n += strcmp(lookups[i].symbol, symbol) == 0;
	return n;
}
API(void *, fake_export, (const char *name))
{
	int i = name_index(name);
	return i < 0 ? NULL : fns[i];
}
