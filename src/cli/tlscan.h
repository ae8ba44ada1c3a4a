/* A CUSHIM_TIMELINE file's events, whole, however many processes wrote it
 * and wherever a kill cut it (tlscan.c), for cushim timeline. */
#ifndef CUSHIM_TLSCAN_H
#define CUSHIM_TLSCAN_H
#include <stdio.h>

#define TL_MAX_PIDS 1024
#define TL_MAX_RUNS 16
struct tl_scan {
	size_t events;        /* whole events (objects) */
	size_t keep;          /* where the last of them ends */
	size_t tail;          /* bytes of a cut event at the end */
	int opens, closes;    /* '[' and ']' between events */
	int after_close;      /* an event after a ']' */
	int npids, named;     /* pids seen; those with a process_name event */
	long pids[TL_MAX_PIDS];
	unsigned char has_name[TL_MAX_PIDS];
	int nruns;            /* the runs its bootstrap events name */
	char runs[TL_MAX_RUNS][48];
};
typedef void (*tl_event_fn)(const char *p, size_t n, void *arg);

/* Every whole event of p[0..n), to fn (unless NULL); 0, or -1 with why when
 * it is no timeline. */
int tl_scan(const char *p, size_t n, struct tl_scan *s, tl_event_fn fn, void *arg, const char **why);
/* What one event (p[0..n), an object) adds: its pid, name, run. */
void tl_note(struct tl_scan *s, const char *p, size_t n);
/* Written by more than one process (or one process twice). */
int tl_mixed(const struct tl_scan *s);
/* The pids, sorted (has_name no longer matches them after). */
void tl_list_pids(FILE *f, struct tl_scan *s);
/* The file open as fd, mapped; NULL with a message. */
char *tl_map(const char *path, int fd, size_t *size);

/* Events written as one array: "[" before the first, ",\n" before the others. */
struct tl_writer {
	FILE *f;
	size_t n;
};
void tl_put_event(const char *p, size_t n, void *arg); /* arg: a tl_writer */
/* A process_name event for each pid of s that has none. */
void tl_name_orphans(struct tl_writer *w, const struct tl_scan *s);

#endif
