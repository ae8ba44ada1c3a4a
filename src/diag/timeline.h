/* The timeline: Chrome trace-event JSON (timeline.c). */
#ifndef CUSHIM_TIMELINE_H
#define CUSHIM_TIMELINE_H
#include "table.h"
#include "callfmt.h"

#define CUSHIM_TL_EVENT_MAX 4096 /* one call's event, with its thread's name */
#define CUSHIM_TL_CLOSE "\n]\n"  /* what ends a complete file */
int cushim_timeline_start(void) CUSHIM_HIDDEN; /* 1: the file is open */
void cushim_timeline_child(void) CUSHIM_HIDDEN;
void cushim_timeline_finish(void) CUSHIM_HIDDEN;
/* Closed before an exec (before 1), opened again after one that failed (0). */
void cushim_timeline_exec(int before) CUSHIM_HIDDEN;
void cushim_timeline_write(const char *buf, size_t n) CUSHIM_HIDDEN;
/* ",\n{...}": the call's complete event, after a thread_name event when
 * *named is not tid yet (named NULL: none). At most size bytes. */
size_t cushim_timeline_event(char *buf, size_t size, int *named, int tid, unsigned i, CUresult r, uint64_t t0,
			     uint64_t t1, const uint64_t *argv, const struct cushim_strarg *sa) CUSHIM_HIDDEN;
/* The same, written at once (no buffer for this thread, or it is busy). */
void cushim_timeline_direct(int tid, unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
	CUSHIM_HIDDEN;
void cushim_timeline_missing(unsigned i, CUresult returns) CUSHIM_HIDDEN;
void cushim_timeline_cause(const char *cause, const char *text) CUSHIM_HIDDEN; /* explain.c */

#endif
