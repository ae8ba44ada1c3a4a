/* What the fake driver (fake-driver.c) and the fake runtime (fake-cudart.c)
 * tell the tests.  The tests reach these through dlsym, never by linking: a
 * program whose libcuda.so.1 is cushim itself (the never-recurse test) must
 * still load. */
#ifndef CUSHIM_FAKE_H
#define CUSHIM_FAKE_H

/* Every fake export records the first FAKE_NWORDS integer words of its call:
 * the argument registers (six on x86-64 SysV, eight on AArch64), then the
 * stack words. */
#define FAKE_NWORDS 12

/* One cuGetProcAddress / cuGetProcAddress_v2 call that reached the fake. */
struct fake_lookup {
	char symbol[64];            /* as asked (truncated) */
	int version;                /* cudaVersion asked */
	unsigned long long flags;   /* flags asked */
	int result;                 /* CUresult answered */
	int status;                 /* CUdriverProcAddressQueryResult written, -1 if none */
	void *fn;                   /* pointer answered */
};

/* Driver side (libcuda.so.1). */
typedef int (*fake_level_fn)(void);                               /* fake_level: 11040, ... */
typedef int (*fake_initialised_fn)(void);                         /* 1 once this process ran cuInit */
typedef long (*fake_calls_total_fn)(void);                        /* calls of every export */
typedef long (*fake_calls_fn)(const char *name);                  /* calls of one export, -1 if unknown */
typedef const char *(*fake_last_name_fn)(void);                   /* export called last */
typedef unsigned long long (*fake_last_word_fn)(int k);           /* its word k < FAKE_NWORDS */
typedef int (*fake_lookups_total_fn)(void);                       /* lookups so far */
typedef int (*fake_lookup_at_fn)(int i, struct fake_lookup *out); /* 0 if i is valid */
typedef int (*fake_lookup_count_fn)(const char *symbol);          /* lookups of one symbol */
typedef void *(*fake_export_fn)(const char *name);                /* the fake function of that name at this level */

/* Runtime side (libcudart.so.*). */
typedef int (*fake_rt_version_fn)(void);                          /* 11040, 12000, 13000 */
typedef long (*fake_rt_calls_fn)(void);                           /* entry-point calls answered */
typedef long (*fake_rt_refusals_fn)(void);                        /* ... answered cudaErrorInsufficientDriver */
#endif
