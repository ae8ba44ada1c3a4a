/* The exit summary (summary.c). */
#ifndef CUSHIM_SUMMARY_H
#define CUSHIM_SUMMARY_H
#include "trace.h"

struct cushim_summary_row {
	unsigned i; /* the function's index */
	struct cushim_counters c;
};
void cushim_summary_claim(void) CUSHIM_HIDDEN;  /* CUSHIM_SUMMARY=FILE.json's name, when tracing starts */
void cushim_summary_forked(void) CUSHIM_HIDDEN; /* in a forked child: the parent's file is not its own */
/* rows (most time first) as JSON into the claimed file, or as a table on the
 * log; keep: the file stays open and claimed (an exec: if it fails, the
 * exit writes it again). */
void cushim_summary_write(const struct cushim_summary_row *rows, unsigned n, uint64_t calls, double ns_per_tick,
			  int log_is_file, int keep) CUSHIM_HIDDEN;

#endif
