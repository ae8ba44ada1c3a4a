/* Naming the cause of the commonest CUDA failures at run time, once each:
 * a forked child that cannot use the CUDA its parent initialised
 * (explain-fork.c), a module image the GPU cannot run (explain-module.c),
 * a runtime that refuses the driver cushim answers for (explain-runtime.c).
 * explain.c says them: the log at warn, the timeline, the summary's JSON. */
#ifndef CUSHIM_EXPLAIN_H
#define CUSHIM_EXPLAIN_H
#include "table.h"
#include <stdint.h>
#include <stdio.h>

/* explain.c: text said at warn, as an instant event named "cushim: CAUSE"
 * and kept for the summary's "causes" section. */
void cushim_cause(const char *cause, const char *text) CUSHIM_HIDDEN;
/* ,"causes":[{"cause":...,"message":...},...] for the summary's JSON, into
 * buf (at most size bytes, CUSHIM_CAUSES_JSON_MAX always suffice); the
 * bytes written, not counting the terminating NUL. */
#define CUSHIM_MAX_CAUSES 16
#define CUSHIM_CAUSE_TEXT 3000
#define CUSHIM_CAUSES_JSON_MAX (CUSHIM_MAX_CAUSES * (2 * CUSHIM_CAUSE_TEXT + 64) + 32)
size_t cushim_causes_json(char *buf, size_t size) CUSHIM_HIDDEN;
/* Whether key (never 0) is seen the first time among the n slots of said:
 * 1 the first time, 0 after, and 0 once the slots are full (nothing is
 * said twice).  cushim_first_in_context: the calling thread's current
 * context as the key, for what is said once per context. */
int cushim_first_key(uintptr_t *said, int n, uintptr_t key) CUSHIM_HIDDEN;
int cushim_first_in_context(uintptr_t *said, int n) CUSHIM_HIDDEN;
/* In a forked child: what its parent said is not its own. */
void cushim_causes_forget(void) CUSHIM_HIDDEN;

/* explain-fork.c */
extern int cushim_fork_watch CUSHIM_HIDDEN; /* a forked child of a process that initialised CUDA */
void cushim_fork_initialised(void) CUSHIM_HIDDEN; /* the program's cuInit succeeded */
void cushim_fork_warm(void) CUSHIM_HIDDEN;        /* in the bootstrap: the unwinder loaded */
void cushim_fork_prepare(void) CUSHIM_HIDDEN;     /* before fork, before any lock */
void cushim_fork_lock(void) CUSHIM_HIDDEN;        /* across fork: the record whole */
void cushim_fork_unlock(void) CUSHIM_HIDDEN;
int cushim_fork_child(void) CUSHIM_HIDDEN;        /* in the child, after fork: 1 to start watching */
void cushim_fork_watching(void) CUSHIM_HIDDEN;    /* its calls go through the trace wrappers now */
void cushim_fork_failed(unsigned i) CUSHIM_HIDDEN; /* export i returned 3 in such a child */

/* explain-module.c: the module, library and link loaders' wrappers, into
 * cushim_impl. */
void cushim_module_install(void) CUSHIM_HIDDEN;
/* explain-image.c: the bytes of a refused image that the reader of images
 * (modimage.c) looks at, from the program's memory (through peek.h) or
 * from a file; zeros where it looks at none.  A size of 0: as its header
 * says.  Free with cushim_image_free, whatever the outcome. */
struct cushim_image {
	unsigned char *p;          /* the copy, n bytes (NULL where none) */
	size_t n;                  /* the image's extent */
	size_t bad;                /* the first offset that cannot be read, SIZE_MAX if none */
	const void *at;            /* in memory: where (past a fatbin wrapper) */
	const char *why;           /* why it was not read at all, or NULL */
	int err;                   /* the errno behind why or behind a file's short read, or 0 */
	const unsigned char *mem;  /* the copy's own: its source, */
	int fd;
	size_t span;               /* and the mapping's length */
};
void cushim_image_from_memory(const void *image, size_t size, struct cushim_image *im) CUSHIM_HIDDEN;
void cushim_image_from_file(const char *path, struct cushim_image *im) CUSHIM_HIDDEN;
/* Every byte the reader looks at was read. */
int cushim_image_readable(const struct cushim_image *im) CUSHIM_HIDDEN;
void cushim_image_free(struct cushim_image *im) CUSHIM_HIDDEN;

/* explain-init.c: cuInit's failure (own_cuInit calls it with what the driver
 * returned), and the context creators' wrappers, into the implementations. */
void cushim_init_failed(CUresult r) CUSHIM_HIDDEN;
void cushim_init_install(void) CUSHIM_HIDDEN;

/* explain-oom.c: the allocators' wrappers (and, with count, the frees' and
 * the count of what the process holds), into the implementations. */
void cushim_oom_install(int count) CUSHIM_HIDDEN;

/* explain-runtime.c: in masquerade, cuDriverGetVersion's answer judged
 * against the runtimes loaded. */
void cushim_runtime_gate_install(void) CUSHIM_HIDDEN;
#endif
