/* The objects calls came from, remembered without a lock (callers.h).
 * Each entry is a sequence lock: a writer makes seq odd, writes, makes it
 * even again; a reader that sees seq odd or changed takes the entry for
 * absent.  Nobody waits (a signal handler may interrupt a writer), and no
 * half-written entry is believed.  A writer that finds an entry being
 * written gives way: the object is then judged again at its next call. */
#include "config.h"
#include "callers.h"
#include "realdlsym.h"
#include "realdriver.h" /* cushim_dlsym */
#include <dlfcn.h>

#define NCALLERS 16

static struct entry {
	unsigned long seq; /* 0: never written; odd: being written */
	struct cushim_caller c;
} table[NCALLERS];
static unsigned next_entry;

#ifdef DLFO_EH_SEGMENT_TYPE
typedef int (*find_fn)(void *, struct dl_find_object *);
static find_fn finder;

/* By name: cushim loads on glibc 2.34, which has none. */
void cushim_callers_start(void)
{
	static int sought;
	if (!__atomic_exchange_n(&sought, 1, __ATOMIC_ACQ_REL))
		__atomic_store_n(&finder, (find_fn)cushim_dlsym(RTLD_DEFAULT, "_dl_find_object"), __ATOMIC_RELEASE);
}

int cushim_caller_key(const void *addr, struct cushim_key *k)
{
	find_fn find = __atomic_load_n(&finder, __ATOMIC_ACQUIRE);
	struct dl_find_object f;

	if (!find)
		return 0;
	k->stamp = k->aux = 0;
	if (find((void *)addr, &f) == 0)
		k->stamp = (uintptr_t)f.dlfo_link_map, k->aux = (uintptr_t)f.dlfo_eh_frame;
	return 1;
}
#else
void cushim_callers_start(void)
{
}

int cushim_caller_key(const void *addr, struct cushim_key *k)
{
	(void)addr, (void)k;
	return 0;
}
#endif

static int read_entry(int k, struct cushim_caller *c)
{
	unsigned long s = __atomic_load_n(&table[k].seq, __ATOMIC_ACQUIRE);

	if (!s || (s & 1))
		return 0;
	c->lo = __atomic_load_n(&table[k].c.lo, __ATOMIC_RELAXED);
	c->hi = __atomic_load_n(&table[k].c.hi, __ATOMIC_RELAXED);
	c->key.stamp = __atomic_load_n(&table[k].c.key.stamp, __ATOMIC_RELAXED);
	c->key.aux = __atomic_load_n(&table[k].c.key.aux, __ATOMIC_RELAXED);
	c->id = __atomic_load_n(&table[k].c.id, __ATOMIC_RELAXED);
	c->kind = __atomic_load_n(&table[k].c.kind, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&table[k].seq, __ATOMIC_RELAXED) == s;
}

static void write_entry(int k, const struct cushim_caller *c)
{
	unsigned long s = __atomic_load_n(&table[k].seq, __ATOMIC_RELAXED);

	if ((s & 1) || !__atomic_compare_exchange_n(&table[k].seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&table[k].c.lo, c->lo, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].c.hi, c->hi, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].c.key.stamp, c->key.stamp, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].c.key.aux, c->key.aux, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].c.id, c->id, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].c.kind, c->kind, __ATOMIC_RELAXED);
	__atomic_store_n(&table[k].seq, s + 2, __ATOMIC_RELEASE);
}

int cushim_caller_kind(const void *addr, const struct cushim_key *k)
{
	struct cushim_caller c;

	for (int j = 0; j < NCALLERS; j++)
		if (read_entry(j, &c) && c.key.stamp == k->stamp && c.key.aux == k->aux &&
		    (uintptr_t)addr - c.lo < c.hi - c.lo)
			return c.kind;
	return 0;
}

int cushim_caller_restamp(const struct cushim_caller *c)
{
	struct cushim_caller old;

	for (int k = 0; k < NCALLERS; k++)
		if (read_entry(k, &old) && old.lo == c->lo && old.hi == c->hi && old.id == c->id) {
			old.key = c->key;
			write_entry(k, &old);
			return 1;
		}
	return 0;
}

void cushim_caller_remember(const struct cushim_caller *c)
{
	struct cushim_caller old;
	int k = 0;

	while (k < NCALLERS && !(read_entry(k, &old) && old.lo < c->hi && c->lo < old.hi))
		k++;
	if (k == NCALLERS)
		k = (int)(__atomic_fetch_add(&next_entry, 1, __ATOMIC_RELAXED) % NCALLERS);
	write_entry(k, c);
}
