/* cushim check, in steps: the options and the files to read (check.c), the
 * queue that reads them (check-queue.c), one file read (check-read.c), its
 * verdict (check-judge.c), and the report (check-report.c). */
#ifndef CUSHIM_CLI_CHECK_STEPS_H
#define CUSHIM_CLI_CHECK_STEPS_H
#include "cli.h"
#include "cudart.h"
#include "gpucode.h"
#include "jitc.h"
#include "loads.h"
#include "wheeltag.h"

#define CHECK_MAX_GPUS 16
struct compat;
struct tree;

/* What the file is compared with. */
struct opts {
	int versus;            /* driver version to compare with; 0 = none */
	int versus_branch;     /* the driver branch given instead of a CUDA version; 0 = none */
	struct cli_shim *shim; /* the driver here, or NULL */
	int json;
	int verbose;           /* an environment: every file, not only those that limit it */
	struct gpu_arch gpus[CHECK_MAX_GPUS];
	char gpu_variant[CHECK_MAX_GPUS]; /* 'a', 'f' (sm_90a, sm_100f: NVIDIA's names), or 0 */
	int ngpus;
	const char *gpus_from; /* "option" or "driver" */
	char gpu_names[CHECK_MAX_GPUS][96]; /* --gpu=auto: what the driver calls each, else "" */
	int emit;              /* --emit: EMIT_DOCKER, EMIT_CONDA, EMIT_VARIANT, or 0 */
	struct compat *compat; /* a forward-compatibility package in the tree, or NULL */
};

struct import {
	const char *name; /* in the file's string table: copied */
	int idx;          /* row of cushim_syms, -1 if unknown */
	int missing;
	const struct cushim_adapter *adapter; /* newer than the driver, but served by this */
};

enum { RAW_FATBIN = 1, RAW_CUBIN, RAW_PTX };

/* What stops the file from running, worst first. */
enum { BY_NONE, BY_RUNTIME, BY_GPU_CODE, BY_IMPORTS };

struct verdict {
	int runtime_need;   /* the driver the runtime accepts, 0 when it does not count */
	int need;           /* the driver the file needs overall, 0 when none */
	int decided_by;     /* which requirement sets need */
	int blocked[4];     /* by each of BY_*: it will not run on the driver and GPUs given */
	int jit_too_new;    /* the PTX its JIT compiler emits by default needs a newer driver than given */
	struct gpu_fit fits[CHECK_MAX_GPUS];
	int fit_unknown[CHECK_MAX_GPUS]; /* a family (sm_100f): its GPUs differ in what runs; or
					  * GPU_UNKNOWN: NVIDIA does not say whether its SASS runs */
	struct gpu_code_need code;  /* no GPU named: what its kernels need of any GPU's driver */
	int by_built;       /* runtime_need is the release it was built for, not a runtime's */
};

/* The CUDA release a file was built for, from what it carries
 * (check-loads.c): the runtime and libraries it loads, its GPU code's
 * compiler, its wheel. */
struct built {
	int version;       /* 12090; or 12000 with major_only; 0 unknown */
	int major_only;
	char from[400];    /* how that is known */
	int declared;      /* from its wheel's name or METADATA alone */
};

/* A library a file of a tree needs that the loader cannot load
 * (check-needed.c). */
struct unfound {
	char *name;  /* as DT_NEEDED names it, $ORIGIN, $LIB and $PLATFORM expanded */
	char *path;  /* NULL: nothing provides it; else the file the loader stops at */
	char *why;   /* with path: why the loader stops there */
	int fatal;   /* the file fails for it: the loader stops at a file, or it is a CUDA library */
};

struct result {
	char *file;      /* as shown */
	char *needed_by; /* NULL for a file named on the command line */
	char *error;     /* set: could not be read */
	int raw_fatbin;  /* GPU code on its own, not a program: RAW_FATBIN, RAW_CUBIN or RAW_PTX */
	const char *machine; /* the ELF machine's name */
	int native;          /* 1: this machine's, 2: another's */
	struct import *imports;
	size_t nimports;
	int needs;       /* max version over known imports */
	int nmissing, nunknown, nadapted;
	/* for --recursive */
	char **needed;
	size_t nneeded;
	char *rpath, *runpath, *soname;
	int has_runpath;
	struct unfound *unfound; /* libraries it needs that cannot be loaded (in a tree) */
	size_t nunfound;
	int nfatal;      /* those that fail it */
	struct cli_runtime rt;
	struct cli_jit jit;
	struct cli_gpucode gpu;
	struct cli_loads loads;  /* the CUDA libraries it loads at run time */
	int gpu_release;         /* its GPU code's compiler release line (12090), 0 none */
	char gpu_release_text[64];
	int gpu_release_unpacked; /* read from a compressed image's head */
	const struct wheel_tag *tag; /* the wheel it is a member of, or NULL */
	struct built built;
	struct verdict v;
};

/* A whole environment (check-env.c): its verdict, from each file's. */
struct env {
	int status, nfiles, need, unfound, unloadable, failing, with_kernels;
	int unknown;                /* files whose fit to a GPU asked for NVIDIA does not tell */
	int lacking;                /* files that cannot load for want of a library that is not CUDA's (a caution) */
	int adapted, adapted_files; /* imports cushim's adapters serve, and the files that have them */
	long kernels_first;         /* the first file carrying kernels */
	long lacking_first;
	long decider, limiter;      /* the files that decide: -1 none */
	long jit;                   /* the JIT compiler whose default PTX needs the newest driver: -1 none */
	int optional;               /* Python extension modules that cannot load (a caution) */
	long optional_first;
	int unloaded;               /* files that load a CUDA library at run time that nothing provides */
	long unloaded_first;
	int gpu_lacking[CHECK_MAX_GPUS];
	long gpu_first[CHECK_MAX_GPUS];
};
void env_judge(struct env *e, const struct result *rs, size_t n, const struct opts *o);
void env_print_text(const struct env *e, const struct result *rs, size_t n, const struct opts *o);
struct tree;
const char *env_runs_json(const struct env *e, const struct opts *o);
void env_print_json(const struct env *e, const struct result *rs, const struct opts *o, const struct tree *t);
/* One line for each folder, wheel and interpreter read (check-inputs.c),
 * and the environment's "inputs" in --json. */
void env_print_inputs(const struct tree *t, const struct opts *o);
void env_print_inputs_json(const struct tree *t);
int env_limits(const struct env *e, const struct result *r);
int env_status(const struct result *r); /* check_status, but CLI_OK for a module that cannot load */
void env_print_row(const struct result *r, const struct opts *o);

/* --emit (check-emit.c): the environment's needs in another tool's terms. */
enum { EMIT_DOCKER = 1, EMIT_CONDA, EMIT_VARIANT };
int check_emit_format(const char *name); /* EMIT_*, or 0 */
/* The compute capabilities of NVIDIA's GPUs on which every file with
 * kernels (among those whose name begins with prefix; NULL: all) runs, and
 * whether every one carries PTX that later GPUs JIT-compile (open). */
#define ARCHSET_MAX 64
struct archset {
	int n, open, files;
	struct gpu_arch cc[ARCHSET_MAX];
	unsigned char runs[ARCHSET_MAX];
	int need[ARCHSET_MAX]; /* the driver its PTX needs there, where it is PTX that runs; 0 none */
};
void check_archset(const struct result *rs, size_t n, const char *prefix, struct archset *s);
struct env;
void check_emit(const struct env *e, const struct result *rs, size_t n, const struct opts *o);
/* Each wheel whose name, version, requirements or variant label say
 * otherwise than its files (check-declared.c): one line each, on out. */
void check_declared(const struct tree *t, const struct result *rs, size_t n, FILE *out, const char *lead);

/* NVIDIA's forward-compatibility package (a libcuda.so carrying the note
 * .note.cuda.fwd_compatibility) found in a tree (check-compat.c): whether
 * the driver given uses it, and whether each GPU accepts it. */
enum { COMPAT_UNKNOWN, COMPAT_ACCEPTED, COMPAT_REFUSED };
struct compat {
	char path[4096];
	char cuda_text[16], drivers[128], devices[128]; /* the note's fields */
	int cuda;      /* the note's CUDA version (13010), 0 when it does not say */
	int host;      /* the driver given, which the package stands in for; 0 none */
	int branch;    /* its branch, 0 unknown */
	int used;      /* 1: the package is the driver programs see; 0: not; -1: cannot tell */
	int gpu[CHECK_MAX_GPUS]; /* COMPAT_*: whether each GPU accepts it */
	int refused;   /* a GPU refuses it: cuInit fails with 804 */
};
/* Finds the package among the tree's libraries, and judges it against the
 * driver and GPUs given: where it is used and accepted, o->versus becomes
 * the CUDA version it provides.  0 when there is none. */
int check_compat(const struct tree *t, struct opts *o, struct compat *c);
void check_compat_print(const struct compat *c, const struct opts *o);
void check_compat_json(const struct compat *c, const struct opts *o);
/* The verdict's reason where a GPU refuses it (error 804), in words. */
void check_compat_refusal(const struct compat *c, const struct opts *o, char *buf, size_t size);

/* The libraries a file needs (check-needed.c). */
int check_cuda_library(const char *name); /* a CUDA library, by its name */
/* The folder $ORIGIN stands for: the file's own (a member's, inside its wheel). */
void check_origin(const char *path, char *out, size_t size);
/* A library that cannot be loaded: nothing provides it (path NULL), or the
 * loader stops at path, for why. */
void check_add_unfound(struct result *r, const char *name, const char *path, const char *why);
/* The first that fails the file (fatal 1), or the first that does not. */
const struct unfound *check_first_unfound(const struct result *r, int fatal);
/* "it needs X, which nothing in the tree or the system provides", or "it
 * needs X, and the loader stops at PATH: WHY". */
void check_unfound_words(const struct unfound *u, char *buf, size_t size);
/* The same without "it needs X": ", which nothing ...", ", and the loader ...". */
const char *check_unfound_tail(const struct unfound *u, char *buf, size_t size);
void check_free_unfound(struct result *r);

/* What a file loads at run time and the release it was built for
 * (check-loads.c): read with the file; resolved as the loader would inside
 * the tree (rpath and runpath expanded); then settled: the runtime it
 * loads becomes its runtime, and the release it was built for is known. */
void check_loads_read(struct result *r, Elf *elf);
struct tree;
void check_loads_resolve(const struct tree *t, struct result *r, const char *origin, const char *rpath,
			 const char *runpath);
void check_loads_settle(struct result *r);
/* Its lines of text: what it loads, found or not, and the release it was
 * built for; and --json's "loads" and "built_for". */
void check_print_loads(const struct result *r);
void check_json_loads(const struct result *r);
/* The first library it loads that nothing provides, or NULL; in words:
 * "loads libcudart.so.12 at run time; this tree has none: the
 * nvidia-cuda-runtime-cu12 wheel provides it". */
const struct cli_load *check_first_unloaded(const struct result *r);
void check_unloaded_words(const struct result *r, const struct cli_load *l, char *buf, size_t size);
/* "its CUDA runtime" or "the CUDA release it was built for": what sets
 * runtime_need. */
void check_built_reason(const struct result *r, const struct opts *o, char *buf, size_t size);

void check_read(struct result *r, const char *path);
/* p[0..n): a file already in memory, named name (a wheel's member). */
void check_read_memory(struct result *r, unsigned char *p, size_t n, const char *name);
/* WHEEL:MEMBER (check-wheel.c): 0 when path names none; 1 when it does and
 * its bytes were handed to take; -1 when they could not be read (why says
 * so). */
typedef void check_memory_fn(struct result *r, unsigned char *p, size_t n, const char *name);
int check_read_wheel_member(struct result *r, const char *path, check_memory_fn *take, char *why, size_t whysize);
void check_set_error(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void check_free(struct result *r);
void check_judge(struct result *r, const struct opts *o);
int check_status(const struct result *r); /* CLI_OK, CLI_FAIL or CLI_ERROR */
/* Whether it runs on a GPU asked for is unknown (NVIDIA does not say). */
int check_fit_unknown(const struct result *r, const struct opts *o);
/* A file's verdict as JSON: true, false, or null (an error, a fit unknown). */
const char *check_runs_json(const struct result *r, const struct opts *o);
void check_print_text(const struct result *r, const struct opts *o);
void check_print_json_head(const struct opts *o);
void check_print_json_file(const struct result *r, const struct opts *o, int first);
const char *check_driver_name(int version, char *buf, size_t size); /* "CUDA 12.0 (branch 525)" */
/* The i-th GPU asked for, as it was named: "sm_90", "sm_100f". */
const char *check_gpu_name(const struct opts *o, int i, char *buf, size_t size);
/* No GPU named, and its kernels are PTX alone: what the driver needs to
 * JIT-compile them, in words (check-report.c). */
void check_ptx_only_words(const struct result *r, const struct opts *o, char *buf, size_t size);

#endif
