/* The messages of a bootstrap or an adoption (notes.c).  Several threads may
 * run either at once, each finding the same into its own memory, and only
 * the findings of the first to finish are published (boot.c): each keeps its
 * messages with its findings, and only the one published says them, so
 * that a message is said once whatever the number of threads. */
#ifndef CUSHIM_NOTES_H
#define CUSHIM_NOTES_H
#include <stddef.h>
#include "hidden.h"

struct cushim_notes {
	size_t len;
	char text[32768]; /* each message: its level (one byte), its text, a NUL */
};
/* From now on the calling thread's notes go into n; NULL: cushim_note is
 * cushim_log again. */
void cushim_notes_keep(struct cushim_notes *n) CUSHIM_HIDDEN;
/* Say every message in n, in order (cushim_log). */
void cushim_notes_say(const struct cushim_notes *n) CUSHIM_HIDDEN;
/* A message of the bootstrap's or of an adoption's: kept where the thread
 * keeps its notes, else said at once. */
void cushim_note(int level, const char *fmt, ...) CUSHIM_HIDDEN __attribute__((format(printf, 2, 3)));
#endif
