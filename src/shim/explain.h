/* Naming the cause of the commonest CUDA failures at run time, once each
 * (explain-*.c, each with its header): explain.c says them: the log at
 * warn, the timeline, the summary's JSON. */
#ifndef CUSHIM_EXPLAIN_H
#define CUSHIM_EXPLAIN_H
#include "table.h"
#include <stddef.h>
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
#endif
