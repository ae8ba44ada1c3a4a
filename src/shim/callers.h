/* The loaded objects calls came from, each remembered with what was
 * decided about it, without a lock (callers.c).  An object is known by a
 * key: with _dl_find_object (glibc 2.35 and later, lock-free and safe in a
 * signal handler) its link map and its unwinding table's address, which
 * name it while it stays loaded; without it, the loader's count of objects
 * removed (dlpi_subs), which the caller reads, and the object's range. */
#ifndef CUSHIM_CALLERS_H
#define CUSHIM_CALLERS_H
#include "hidden.h"
#include <stdint.h>

struct cushim_key {
	uintptr_t stamp, aux; /* link map and unwinding table; else subs and 0 */
};

struct cushim_caller {
	uintptr_t lo, hi; /* the object's loaded range */
	struct cushim_key key;
	uint64_t id; /* the object's name and base, hashed */
	int kind;    /* what was decided, never 0 */
};

/* Looks _dl_find_object up, once (a call into the loader: no lock may be
 * held across it). */
void cushim_callers_start(void) CUSHIM_HIDDEN;
/* The key of the object that holds addr into *k ({0, 0}: outside every
 * object); 0 where _dl_find_object is not had (then *k is untouched). */
int cushim_caller_key(const void *addr, struct cushim_key *k) CUSHIM_HIDDEN;
/* The kind remembered for the object that holds addr under key k; 0 if none. */
int cushim_caller_kind(const void *addr, const struct cushim_key *k) CUSHIM_HIDDEN;
/* The entry of the same object (range and id) takes c's key; 0 where
 * there is none. */
int cushim_caller_restamp(const struct cushim_caller *c) CUSHIM_HIDDEN;
/* A new entry, in the place of one that overlaps it, else of the oldest. */
void cushim_caller_remember(const struct cushim_caller *c) CUSHIM_HIDDEN;
#endif
