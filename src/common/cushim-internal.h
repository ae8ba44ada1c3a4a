/* cushim internals: shared by the library's own files and its white-box tests. */
#ifndef CUSHIM_INTERNAL_H
#define CUSHIM_INTERNAL_H
#include "cuda-all.h"
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "cushim-syms.h"
#include "ticks.h" /* cushim_ticks: the clock of the summary and the trace */

/* What a missing export returns: CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, a
 * code that toolkits before 12.8 do not define. */
#define CUSHIM_NEWER_DRIVER ((CUresult)36)
#define CUSHIM_HIDDEN __attribute__((visibility("hidden")))

enum cushim_flavour { CUSHIM_LEGACY, CUSHIM_PTDS, CUSHIM_PTSZ };

/* One row of the symbol table (src/cushim-syms.h, generated from the
 * committed table src/table/cuda-api.tsv and the toolkit's headers). */
struct cushim_sym {
	const char *name;     /* exported ABI name: cuCtxCreate_v2 */
	const char *base;     /* name cuGetProcAddress knows: cuCtxCreate */
	int version;          /* CUDA version of this variant: 3020 */
	unsigned char flavour;
	unsigned char lookup_only; /* no exported name (name is base_v<version>): a
				    * variant reached only through cuGetProcAddress */
};
extern const struct cushim_sym cushim_syms[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* Index of every export: CUSHIM_IDX_cuCtxCreate_v2 ... */
enum {
#define CUSHIM_SYM(i, name, ...) CUSHIM_IDX_##name = i,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

/* The function type of every row: the toolkit's prototype where its headers
 * declare the row, else one of ABI-equivalent types (tools/gensyms.py):
 * cushim_fn_cuCtxCreate_v2, cushim_fn_cuLaunchHostFunc_v2 ... */
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, ...) typedef CUresult CUDAAPI cushim_fn_##name params;
#include "cushim-syms.h"
#undef CUSHIM_SYM

/* What each exported stub calls (NULL until resolved), and what the driver gave. */
extern void *cushim_slot[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *cushim_real[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* What implements each export: cushim's own function, the driver's, or NULL
 * when it is missing; the trace wrappers call through it. */
extern void *cushim_impl[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *const cushim_stub[CUSHIM_NSYMS] CUSHIM_HIDDEN;   /* the exported stubs */
extern void *const cushim_tracer[CUSHIM_NSYMS] CUSHIM_HIDDEN; /* their trace wrappers */
void *cushim_resolve(unsigned i) CUSHIM_HIDDEN;
void cushim_boot(void) CUSHIM_HIDDEN;   /* runs the bootstrap unless it ran */
int cushim_booted(void) CUSHIM_HIDDEN;
/* Where each export's driver function came from. */
enum cushim_origin {
	CUSHIM_FROM_NONE,    /* missing, or served by cushim alone */
	CUSHIM_FROM_DRIVER,  /* the driver's cuGetProcAddress(_v2) */
	CUSHIM_FROM_DLSYM,   /* the driver's symbol of that name (no cuGetProcAddress) */
	CUSHIM_FROM_RUNTIME, /* a runtime's cudaGetDriverEntryPoint(ByVersion) */
	CUSHIM_NORIGINS
};
extern unsigned char cushim_origin[CUSHIM_NSYMS] CUSHIM_HIDDEN;
/* The runtimes looked for by soname, newest first. */
#define CUSHIM_NRUNTIMES 3
extern const char *const cushim_runtime_sonames[CUSHIM_NRUNTIMES] CUSHIM_HIDDEN;
void *cushim_slot_acquire(unsigned i) CUSHIM_HIDDEN; /* the stubs' load, in a ThreadSanitizer build */
CUresult cushim_missing_call(unsigned i) CUSHIM_HIDDEN;
int cushim_lookup_index(const char *name) CUSHIM_HIDDEN;
int cushim_lower_bound(const char *name) CUSHIM_HIDDEN;
int cushim_base_since(const char *base) CUSHIM_HIDDEN;
const char *cushim_flavour_name(int flavour) CUSHIM_HIDDEN;

/* ---- configuration (conf.c): every CUSHIM_* variable, read once ---- */
enum cushim_level { CUSHIM_LOG_OFF, CUSHIM_LOG_WARN, CUSHIM_LOG_INFO, CUSHIM_LOG_ERRORS, CUSHIM_LOG_TRACE };
#define CUSHIM_MAX_PATTERNS 64
struct cushim_conf {
	int level;                 /* CUSHIM_LOG */
	const char *log_file;      /* CUSHIM_LOG_FILE */
	const char *cudart;        /* CUSHIM_CUDART, NULL for none */
	int cudart_none;           /* CUSHIM_CUDART=none: the driver's own lookup */
	int driver_version;        /* CUSHIM_DRIVER_VERSION, 0 when unset */
	int npatterns;             /* CUSHIM_HIDE */
	char *patterns[CUSHIM_MAX_PATTERNS];
	char *hide_storage;        /* what patterns point into */
	int summary;               /* CUSHIM_SUMMARY: 0, 1 (table) or 2 (JSON file) */
	const char *summary_file;
	const char *driver;        /* CUSHIM_DRIVER: the real driver, for masquerade */
	int adapt;                 /* CUSHIM_ADAPT: 1 (default) or 0 */
	const char *timeline;      /* CUSHIM_TIMELINE: the trace-event JSON file */
};
extern struct cushim_conf cushim_conf CUSHIM_HIDDEN;
/* cushim_conf from the environment, the log opened, bad values said. */
void cushim_conf_load(void) CUSHIM_HIDDEN;
/* c from the environment (a bad or unset value: the table's default), quietly;
 * cushim_conf_clear frees what it holds. */
void cushim_conf_read(struct cushim_conf *c) CUSHIM_HIDDEN;
void cushim_conf_clear(struct cushim_conf *c) CUSHIM_HIDDEN;
/* A setting's value in the environment, NULL when unset (or empty where that means unset). */
const char *cushim_setting_env(const char *name) CUSHIM_HIDDEN;

/* ---- a process's output files (outputs.c) ---- */
/* The run this process is part of (CUSHIM_RUN), and whether it is the run's
 * first process: only that may empty a stale file an earlier run left. */
extern char cushim_run_id[48] CUSHIM_HIDDEN;
extern int cushim_run_first CUSHIM_HIDDEN;
void cushim_run_forked(void) CUSHIM_HIDDEN; /* in a forked child */
/* The file a setting names (value, %p expanded), for this process alone:
 * the name itself when this process owns it, else a derived one created
 * anew; open for writing with flags added, close-on-exec, mode 0600, never
 * through a symlink.  The fd, or -1 with errno; the name in path. */
int cushim_output_open(const char *value, int flags, char *path, size_t size) CUSHIM_HIDDEN;
int cushim_parse_level(const char *s, int *level) CUSHIM_HIDDEN;
int cushim_parse_version(const char *s, int *version) CUSHIM_HIDDEN;
int cushim_parse_patterns(const char *s, char **out, int max, char **storage) CUSHIM_HIDDEN;
int cushim_hidden_name(const char *name) CUSHIM_HIDDEN;
const char *cushim_format_version(int version, char buf[16]) CUSHIM_HIDDEN;

/* ---- cushim's own lookups: the C library's dlsym, never an interposer's (realdlsym.c) ---- */
void *cushim_dlsym(void *handle, const char *name) CUSHIM_HIDDEN;

/* ---- logging (log.c) ---- */
void cushim_log(int level, const char *fmt, ...) CUSHIM_HIDDEN __attribute__((format(printf, 2, 3)));
void cushim_log_open(void) CUSHIM_HIDDEN;
void cushim_log_reopen_child(void) CUSHIM_HIDDEN;
int cushim_log_fd(void) CUSHIM_HIDDEN;
void cushim_write_all(int fd, const char *buf, size_t n) CUSHIM_HIDDEN;
int cushim_expand_path(const char *pattern, char *out, size_t size) CUSHIM_HIDDEN;

/* ---- tracing and the summary (trace.c) ---- */
#define CUSHIM_U64(x) ((uint64_t)(x))
#define CUSHIM_F64(x) cushim_f64bits((double)(x))
static inline uint64_t cushim_f64bits(double d)
{
	uint64_t u;
	__builtin_memcpy(&u, &d, sizeof u);
	return u;
}
enum cushim_argclass { CUSHIM_A_PTR, CUSHIM_A_HEX, CUSHIM_A_STR, CUSHIM_A_INT, CUSHIM_A_UINT, CUSHIM_A_ENUM,
		       CUSHIM_A_FLOAT, CUSHIM_A_STRUCT };
struct cushim_argdesc {
	const char *name;
	int cls;
	int extra; /* enum id for CUSHIM_A_ENUM, size for CUSHIM_A_STRUCT */
};
extern int cushim_tracing CUSHIM_HIDDEN; /* the trace wrappers are in the slots */
extern int cushim_lines CUSHIM_HIDDEN;   /* 0: no lines, 1: failed calls, 2: every call */
struct cushim_counters {
	uint64_t calls, errors, ticks, max;
};
/* This thread's counters (CUSHIM_SUMMARY), NULL until its first counted call. */
extern __thread struct cushim_counters *cushim_my_counters
	__attribute__((tls_model("initial-exec"))) CUSHIM_HIDDEN;
void cushim_count_first(unsigned i, CUresult r, uint64_t ticks) CUSHIM_HIDDEN;
static inline void cushim_count(unsigned i, CUresult r, uint64_t ticks)
{
	struct cushim_counters *c = cushim_my_counters;
	if (__builtin_expect(c == NULL, 0)) {
		cushim_count_first(i, r, ticks);
		return;
	}
	c += i; /* only this thread writes these */
	c->calls++;
	c->errors += r != CUDA_SUCCESS;
	c->ticks += ticks;
	if (ticks > c->max)
		c->max = ticks;
}
void cushim_trace_start(void) CUSHIM_HIDDEN;
void cushim_trace_call(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv) CUSHIM_HIDDEN;
size_t cushim_format_call(char *buf, size_t size, unsigned i, CUresult r, const uint64_t *argv) CUSHIM_HIDDEN;
void cushim_trace_prefork(void) CUSHIM_HIDDEN;
void cushim_trace_postfork(int child) CUSHIM_HIDDEN;
/* ---- the exit summary (summary.c) ---- */
struct cushim_summary_row {
	unsigned i; /* the function's index */
	struct cushim_counters c;
};
void cushim_summary_claim(void) CUSHIM_HIDDEN;  /* CUSHIM_SUMMARY=FILE.json's name, when tracing starts */
void cushim_summary_forked(void) CUSHIM_HIDDEN; /* in a forked child: the parent's file is not its own */
/* rows (most time first) as JSON into the claimed file, or as a table on the log. */
void cushim_summary_write(const struct cushim_summary_row *rows, unsigned n, uint64_t calls, double ns_per_tick,
			  int log_is_file) CUSHIM_HIDDEN;
/* What the trace lends the timeline: its clock as CLOCK_MONOTONIC
 * nanoseconds, its number and argument formatting, the argument tables. */
uint64_t cushim_trace_ns(uint64_t ticks) CUSHIM_HIDDEN;
size_t cushim_format_decimal(char *buf, size_t size, uint64_t v, int decimals) CUSHIM_HIDDEN;
size_t cushim_format_arg(char *buf, size_t size, const struct cushim_argdesc *d, uint64_t v) CUSHIM_HIDDEN;
extern const struct cushim_argdesc *const cushim_argdescs[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern const unsigned char cushim_nargs[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* ---- the timeline: Chrome trace-event JSON (timeline.c) ---- */
#define CUSHIM_TL_EVENT_MAX 4096 /* one call's event, with its thread's name */
#define CUSHIM_TL_CLOSE "\n]\n"  /* what ends a complete file */
int cushim_timeline_start(void) CUSHIM_HIDDEN; /* 1: the file is open */
void cushim_timeline_child(void) CUSHIM_HIDDEN;
void cushim_timeline_finish(void) CUSHIM_HIDDEN;
void cushim_timeline_write(const char *buf, size_t n) CUSHIM_HIDDEN;
/* ",\n{...}": the call's complete event, after a thread_name event when
 * *named is not tid yet (named NULL: none). At most size bytes. */
size_t cushim_timeline_event(char *buf, size_t size, int *named, int tid, unsigned i, CUresult r, uint64_t t0,
			     uint64_t t1, const uint64_t *argv) CUSHIM_HIDDEN;
/* The same, written at once (no buffer for this thread, or it is busy). */
void cushim_timeline_direct(int tid, unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN;
void cushim_timeline_missing(unsigned i, CUresult returns) CUSHIM_HIDDEN;
void cushim_timeline_cause(const char *cause, const char *text) CUSHIM_HIDDEN; /* explain.c */

/* ---- error codes (errors.c) ---- */
const char *cushim_error_name(int code) CUSHIM_HIDDEN;
const char *cushim_error_string(int code) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorName(CUresult error, const char **str) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorString(CUresult error, const char **str) CUSHIM_HIDDEN;

/* ---- what the bootstrap found (boot.c), for the introspection API ---- */
struct cushim_state {
	int driver_version;        /* as the process sees it (emulated if asked) */
	int real_driver_version;   /* as the driver reports it; 0 if unknown */
	const char *via;           /* how entry points are asked now: "the driver's cuGetProcAddress_v2", ... */
	char path[4096];           /* the driver or runtime file asked */
	int resolved, missing, adapted;
	int tracing;               /* the slots hold the trace wrappers */
	uint64_t find_ns, resolve_ns; /* bootstrap: finding the entry points, resolving the table */
};
extern struct cushim_state cushim_state CUSHIM_HIDDEN;

#endif
