/* The realdrv program's parts: realdrv-app.c (the driver's answers, with and
 * without cushim), realdrv-exports.c (every export's target) and the import
 * table that imports.awk generates.  No cuda.h here: the generated table
 * declares every export itself. */
#ifndef REALDRV_H
#define REALDRV_H
#include "cushim.h"

/* One export, as the program imports it: with -z now the loader binds it
 * before main, to cushim's stub under LD_PRELOAD.  fn is NULL for the few the
 * toolkit's stub lacks (realdrv_export finds those by name). */
struct realdrv_import {
	const char *name;
	void (*fn)(void);
};
void *realdrv_export(const struct realdrv_import *imp);
extern const struct realdrv_import realdrv_imports[];
extern const int realdrv_nimports;

/* What libcushim.so says about itself, its functions of cushim.h:
 * realdrv_shim.driver_version is cushim_driver_version, and so on. */
#define REALDRV_SHIM(fn) __typeof__(&cushim_##fn) fn
struct realdrv_shim {
	REALDRV_SHIM(driver_version);
	REALDRV_SHIM(real_driver_version);
	REALDRV_SHIM(real_pointer);
	REALDRV_SHIM(export_state);
	REALDRV_SHIM(export_origin);
	REALDRV_SHIM(origin_counts);
	REALDRV_SHIM(entry_via);
	REALDRV_SHIM(driver_path);
	REALDRV_SHIM(exports_resolved);
	REALDRV_SHIM(exports_missing);
};
extern struct realdrv_shim realdrv_shim;
extern void *realdrv_drv; /* the driver the program linked (libcuda.so.1) */
int realdrv_open(void);
void realdrv_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int realdrv_failures;

/* What the export check counted. */
struct realdrv_counts {
	int resolved, adapted, missing;
	int exact;          /* resolved, and the target is dlsym(driver, name) */
	int imported;       /* exports the program imports */
	int bound;          /* of those, bound to cushim's own export */
	int in_shim;        /* exports found by name in cushim */
	int by_origin[4];   /* none, driver, dlsym, runtime */
};
void realdrv_check_exports(struct realdrv_counts *c, const char *want_origin);
int realdrv_call_missing(void);
int realdrv_dump(const char *path);
#endif
