/* cushim internals: shared by the library's own files and its white-box tests. */
#ifndef CUSHIM_INTERNAL_H
#define CUSHIM_INTERNAL_H
#include "cuda-all.h"
#include <stddef.h>
#include <stdint.h>
#include "cushim-syms.h"

#define CUSHIM_API __attribute__((visibility("default")))
#define CUSHIM_HIDDEN __attribute__((visibility("hidden")))

enum cushim_flavour { CUSHIM_LEGACY, CUSHIM_PTDS, CUSHIM_PTSZ };

/* One row of the symbol table (src/cushim-syms.h, generated). */
struct cushim_sym {
	const char *name;     /* exported ABI name: cuCtxCreate_v2 */
	const char *base;     /* name cuGetProcAddress knows: cuCtxCreate */
	int version;          /* CUDA version of this variant: 3020 */
	unsigned char flavour;
};
extern const struct cushim_sym cushim_syms[CUSHIM_NSYMS] CUSHIM_HIDDEN;

/* Index of every export: CUSHIM_IDX_cuCtxCreate_v2 ... */
enum {
#define CUSHIM_SYM(i, name, ...) CUSHIM_IDX_##name = i,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

/* What each exported stub calls (NULL until resolved), and what the driver gave. */
extern void *cushim_slot[CUSHIM_NSYMS] CUSHIM_HIDDEN;
extern void *cushim_real[CUSHIM_NSYMS] CUSHIM_HIDDEN;
void *cushim_resolve(unsigned i) CUSHIM_HIDDEN;
int cushim_lookup_index(const char *name) CUSHIM_HIDDEN;

/* ---- configuration (conf.c): every CUSHIM_* variable, read once ---- */
enum cushim_level { CUSHIM_LOG_OFF, CUSHIM_LOG_WARN, CUSHIM_LOG_INFO, CUSHIM_LOG_ERRORS, CUSHIM_LOG_TRACE };
#define CUSHIM_MAX_PATTERNS 64
struct cushim_conf {
	int level;                 /* CUSHIM_LOG */
	const char *log_file;      /* CUSHIM_LOG_FILE */
	const char *cudart;        /* CUSHIM_CUDART */
	int driver_version;        /* CUSHIM_DRIVER_VERSION, 0 when unset */
	int npatterns;             /* CUSHIM_HIDE */
	char *patterns[CUSHIM_MAX_PATTERNS];
};
extern struct cushim_conf cushim_conf CUSHIM_HIDDEN;
void cushim_conf_load(void) CUSHIM_HIDDEN;
int cushim_parse_level(const char *s, int *level) CUSHIM_HIDDEN;
int cushim_parse_version(const char *s, int *version) CUSHIM_HIDDEN;
int cushim_parse_patterns(const char *s, char **out, int max, char **storage) CUSHIM_HIDDEN;
int cushim_hidden_name(const char *name) CUSHIM_HIDDEN;
const char *cushim_format_version(int version, char buf[16]) CUSHIM_HIDDEN;

/* ---- logging (log.c) ---- */
void cushim_log(int level, const char *fmt, ...) CUSHIM_HIDDEN __attribute__((format(printf, 2, 3)));
void cushim_log_open(void) CUSHIM_HIDDEN;

/* ---- error codes (errors.c) ---- */
const char *cushim_error_name(int code) CUSHIM_HIDDEN;
const char *cushim_error_string(int code) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorName(CUresult error, const char **str) CUSHIM_HIDDEN;
CUresult cushim_own_cuGetErrorString(CUresult error, const char **str) CUSHIM_HIDDEN;

/* ---- what the bootstrap found (boot.c), for the introspection API ---- */
struct cushim_state {
	int booted;
	int driver_version;        /* as the process sees it (emulated if asked) */
	int real_driver_version;   /* as the driver reports it; 0 if unknown */
	const char *via;           /* "cudaGetDriverEntryPointByVersion", ... */
	char path[4096];           /* the runtime or driver file used */
	int resolved, missing;
};
extern struct cushim_state cushim_state CUSHIM_HIDDEN;

#endif
