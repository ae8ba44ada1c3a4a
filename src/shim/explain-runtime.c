/* A runtime that refuses the driver.  A CUDA runtime checks the driver's
 * version itself (cudaErrorInsufficientDriver, which never reaches the
 * driver); under masquerade the version it reads is cushim's answer to
 * cuDriverGetVersion.  When that answer is below what a runtime loaded in
 * the process accepts (minor version compatibility: a runtime of CUDA X.y
 * runs on a driver of CUDA X.0 or later, requirements.c), cushim says which
 * file carries that runtime, its version, the driver it needs, and that
 * cushim cannot lift that gate.  A runtime is a libcudart.so.N loaded, or one
 * linked statically into the main program or into the object that called,
 * known by the marks cushim check reads (rtmarks.c).
 *
 * Judged once, not on every call.  A call's object (callers.c) is judged
 * the first time it calls: the runtimes loaded, and the one linked into it.
 * A call from the main program or from a runtime's object is that
 * program's or that runtime's own, and costs a lock-free lookup once its
 * object was judged: a runtime loaded later makes its own first call, and
 * is judged then.  A call from another object (an interposer that hooks
 * the driver, or cushim's own trace) may carry a runtime's: the runtimes
 * loaded are judged again where the loader's set of objects changed since.
 * The loader counts the objects it added and removed (dlpi_adds, dlpi_subs,
 * which only grow, so their sum changes at every load and unload), read
 * from the first object dl_iterate_phdr reports.
 *
 * Locking: none.  The gate runs in whatever thread calls, a library's
 * constructor inside dlopen (the loader's lock held) and a signal handler
 * included, so it holds no lock of cushim's, ever: no call it makes into
 * the loader (dl_iterate_phdr; dlsym once, callers.c), the C library
 * (realpath, stdio) or the driver can wait on a thread that waits on it.
 * It never calls dladdr: it takes the lock a running constructor holds.
 * Threads that judge at once each judge; what they find is published by
 * atomic stores, and the refusal is said once (an atomic exchange).  The
 * loader's list is read only inside dl_iterate_phdr's callbacks, which
 * copy out what they need; the slow work (realpath, reading segments) runs
 * after it returns.
 *
 * The program's segments are read only through the checked copy (peek.h),
 * in chunks that overlap by the longest mark, so that a mark across two
 * chunks is whole in the second; a page that cannot be read (a program
 * may make one PROT_NONE) is skipped as if absent. */
#include "table.h"
#include "slots.h"
#include "settings.h"
#include "source.h"
#include "state.h"
#include "explain.h"
#include "explain-runtime.h"
#include "requirements.h"
#include "rtmarks.h"
#include "peek.h"
#include "callers.h"
#include <errno.h> /* program_invocation_name */
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCAND 4   /* libcudart.so.N objects judged at once (the newest kept) */
#define NSEG 16   /* readable segments read in one object */
#define CHUNK 4096
/* The longest text a mark needs whole: the runtime's error text, or the
 * release line with its version ("13.0"). */
#define OVERLAP (sizeof RUNTIME_MARK > sizeof RELEASE_MARK + 8 ? sizeof RUNTIME_MARK : sizeof RELEASE_MARK + 8)
/* The slow paths, out of line: their buffers stay off the fast path's frame
 * and off each other's. */
#define SLOW __attribute__((noinline, cold))
enum { UNKNOWN, FORWARDS, OWN }; /* a caller's kind (callers.h) */

static void *answer; /* cuDriverGetVersion as it was before the gate */
static int said;
/* The loader's adds + subs when the loaded runtimes were last judged and
 * none refused; ~0 before. */
static unsigned long long judged = ~0ULL;

struct runtime {
	const char *path;
	int version; /* 13000 */
	int linked;  /* linked statically into path */
};

/* The version a runtime's file name says: libcudart.so.12.4.127 -> 12040,
 * libcudart.so.12 -> 12000; 0 for another name. */
static int version_of_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *end;
	long major, minor = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, "libcudart.so.", 13) != 0)
		return 0;
	major = strtol(base + 13, &end, 10);
	if (*end == '.')
		minor = strtol(end + 1, NULL, 10);
	return major > 0 && major < 100 && minor >= 0 && minor < 100 ? (int)(major * 1000 + minor * 10) : 0;
}

/* The loader's count of objects added and removed, *subs the latter; 0
 * where this C library does not give them. */
static unsigned long long counts(const struct dl_phdr_info *info, size_t size, unsigned long long *subs)
{
	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
		return 0;
	*subs = info->dlpi_subs;
	return info->dlpi_adds + info->dlpi_subs;
}

struct generation {
	unsigned long long sum, subs;
};

static int first_counts(struct dl_phdr_info *info, size_t size, void *data)
{
	struct generation *g = data;
	g->sum = counts(info, size, &g->subs);
	return 1;
}

/* ---- one object's loaded segments ---- */
struct object {
	const void *addr; /* in the object sought; NULL: the main program */
	int found;
	struct cushim_caller range; /* its range and id; key and kind set by the judge */
	int nseg;
	struct {
		uintptr_t at;
		size_t len;
	} seg[NSEG];
	char name[1024]; /* "" for the main program */
};

static int holds(const struct dl_phdr_info *info, const void *addr)
{
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (uintptr_t)addr >= at && (uintptr_t)addr - at < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The object sought, copied out: its range, its readable segments, its name. */
static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct object *o = data;
	uint64_t id = 14695981039346656037ULL;

	if (o->addr ? !holds(info, o->addr) : info->dlpi_name[0] != '\0')
		return 0;
	o->found = 1;
	o->range.lo = UINTPTR_MAX;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		o->range.lo = at < o->range.lo ? at : o->range.lo;
		o->range.hi = at + ph->p_memsz > o->range.hi ? at + ph->p_memsz : o->range.hi;
		if ((ph->p_flags & PF_R) && ph->p_filesz && o->nseg < NSEG)
			o->seg[o->nseg].at = at, o->seg[o->nseg++].len = ph->p_filesz;
	}
	snprintf(o->name, sizeof o->name, "%s", info->dlpi_name);
	for (const char *c = o->name; *c; c++)
		id = (id ^ (unsigned char)*c) * 1099511628211ULL;
	o->range.id = id ^ info->dlpi_addr;
	return 1;
}

/* The newest release the runtime's marks name in the object's segments,
 * read through the checked copy; 0 where it has no runtime. */
SLOW static int scan(const struct object *o)
{
	unsigned char buf[OVERLAP + CHUNK];
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	int mark = 0, release = 0;
	char text[64];

	for (int k = 0; k < o->nseg; k++) {
		uintptr_t at = o->seg[k].at, end = at + o->seg[k].len;
		size_t keep = 0; /* the previous chunk's tail, at buf's start */
		while (at < end) {
			size_t want = end - at < CHUNK ? end - at : CHUNK;
			size_t got = cushim_peek((const void *)at, buf + keep, want), n = keep + got;
			mark |= rt_has_runtime_mark(buf, n);
			rt_find_release(buf, n, &release, text, sizeof text);
			if (got < want) { /* an unreadable page: on after it, nothing kept */
				at = ((at + got) | (page - 1)) + 1;
				keep = 0;
				continue;
			}
			at += got;
			keep = n < OVERLAP ? n : OVERLAP;
			memmove(buf, buf + n - keep, keep);
		}
	}
	return mark ? release : 0;
}

/* The runtime linked into the main program: read once (main_seen holds it
 * plus one; 0 before). */
SLOW static int main_release(void)
{
	static int main_seen;
	int seen = __atomic_load_n(&main_seen, __ATOMIC_ACQUIRE);
	struct object o = { .addr = NULL };

	if (seen)
		return seen - 1;
	dl_iterate_phdr(find_object, &o);
	seen = (o.found ? scan(&o) : 0) + 1;
	__atomic_store_n(&main_seen, seen, __ATOMIC_RELEASE);
	return seen - 1;
}

/* ---- the judgement ---- */
static void say(int answered, const struct runtime *rt, int min)
{
	char text[2048], a[16], r[16], need[16], real[16];
	int emulated = cushim_emulating && cushim_state.real_driver_version > answered;
	int liftable = emulated && cushim_state.real_driver_version >= min; /* the real driver would do */

	cushim_format_version(answered, a);
	cushim_format_version(rt->version, r);
	cushim_format_version(min, need);
	snprintf(text, sizeof text, "cuDriverGetVersion answers CUDA %s%s%s%s, but the CUDA runtime %s %s %s needs a "
		 "driver of CUDA %s or later (branch %d or later) and refuses this one (cudaErrorInsufficientDriver). "
		 "cushim cannot lift that gate: the runtime checks the version itself. %s%s%s", a,
		 emulated ? " (emulated by CUSHIM_DRIVER_VERSION; the driver is CUDA " : "",
		 emulated ? cushim_format_version(cushim_state.real_driver_version, real) : "", emulated ? ")" : "",
		 r, rt->linked ? "linked statically into" : "in", rt->path, need, req_driver_branch(min),
		 liftable ? "Unset CUSHIM_DRIVER_VERSION or set it to " : "Update the driver to ",
		 liftable ? need : "that branch", " or later, or use a CUDA runtime this driver accepts (the program "
		 "built with a toolkit of the driver's major release).");
	cushim_cause("runtime", text);
}

/* Whether rt refuses the answer: said the first time. */
static int refuses(int answered, const struct runtime *rt)
{
	int min = req_runtime_min_driver(rt->version);

	if (!rt->version || answered >= min)
		return 0;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
		say(answered, rt, min);
	return 1;
}

struct loaded {
	unsigned long long sum, subs;
	int n;
	struct {
		char path[1024];
		int version; /* by its name */
	} cand[NCAND];
};

/* The libcudart.so.N objects loaded, copied out (the newest by name kept). */
static int find_runtimes(struct dl_phdr_info *info, size_t size, void *data)
{
	struct loaded *l = data;
	int v = version_of_name(info->dlpi_name), k = 0;

	l->sum = counts(info, size, &l->subs);
	if (!v)
		return 0;
	if (l->n < NCAND) {
		k = l->n++;
	} else { /* full: the oldest gives way to a newer one */
		for (int j = 1; j < NCAND; j++)
			k = l->cand[j].version < l->cand[k].version ? j : k;
		if (v <= l->cand[k].version)
			return 0;
	}
	snprintf(l->cand[k].path, sizeof l->cand[k].path, "%s", info->dlpi_name);
	l->cand[k].version = v;
	return 0;
}

/* The newest libcudart loaded, into path: its version from the file its
 * name leads to (libcudart.so.12 -> libcudart.so.12.4.127), else from the
 * name; 0 for none.  *sum: the loader's counts it was seen at. */
SLOW static int newest_loaded(char *path, size_t size, unsigned long long *sum)
{
	struct loaded l = { 0 };
	char real[PATH_MAX];
	int best = 0;

	dl_iterate_phdr(find_runtimes, &l);
	for (int k = 0; k < l.n; k++) {
		int v = l.cand[k].version, exact;
		if (realpath(l.cand[k].path, real) && (exact = version_of_name(real)) / 1000 == v / 1000)
			v = exact;
		if (v > best)
			best = v, snprintf(path, size, "%s", l.cand[k].path);
	}
	*sum = l.sum;
	return best;
}

/* The newest runtime loaded or linked into the main program (own).  Never
 * a call into a runtime: it may be asking from inside its own
 * initialisation. */
SLOW static void judge_loaded(int answered, int own)
{
	char path[1024];
	unsigned long long sum;
	struct runtime best = { path, newest_loaded(path, sizeof path, &sum), 0 };

	if (own > best.version)
		best.path = program_invocation_name, best.version = own, best.linked = 1;
	if (!refuses(answered, &best) && sum)
		__atomic_store_n(&judged, sum, __ATOMIC_RELEASE);
}

/* The runtime linked into the caller's object, read once per object, and
 * whether the object's calls are its own (the main program's, or a
 * runtime's); its entry written under its key (k where it has no other). */
SLOW static void judge_caller(int answered, const void *caller, struct cushim_key k)
{
	struct object o = { .addr = caller };
	struct runtime rt = { "", 0, 1 };

	cushim_callers_start();
	cushim_caller_key(caller, &k);
	dl_iterate_phdr(find_object, &o);
	o.range.key = k;
	o.range.kind = FORWARDS;
	if (!o.found) { /* code outside every object (made at run time): its page */
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
		o.range.lo = (uintptr_t)caller & ~(page - 1);
		o.range.hi = o.range.lo + page;
		cushim_caller_remember(&o.range);
		return;
	}
	if (cushim_caller_restamp(&o.range))
		return;
	rt.version = o.name[0] ? scan(&o) : main_release();
	rt.path = o.name[0] ? o.name : program_invocation_name;
	if (!o.name[0] || rt.version || version_of_name(o.name))
		o.range.kind = OWN;
	if (!refuses(answered, &rt))
		cushim_caller_remember(&o.range);
}

/* Without _dl_find_object, a caller's key is the loader's subs count, read
 * with the counts the check of the runtimes loaded needs. */
static CUresult CUDAAPI gate_cuDriverGetVersion(int *version)
{
	CUresult r = ((CUresult (CUDAAPI *)(int *))answer)(version);
	const void *caller = __builtin_return_address(0);
	struct generation g = { 0, 0 };
	struct cushim_key k = { 0, 0 };
	int kind = FORWARDS;

	if (r != CUDA_SUCCESS || !version || __atomic_load_n(&said, __ATOMIC_ACQUIRE))
		return r;
	if (!cushim_inside_self(caller)) {
		if (!cushim_caller_key(caller, &k)) {
			dl_iterate_phdr(first_counts, &g);
			k.stamp = (uintptr_t)g.subs;
		}
		if ((kind = cushim_caller_kind(caller, &k)) == OWN)
			return r;
	}
	if (!g.sum)
		dl_iterate_phdr(first_counts, &g);
	if (!g.sum || g.sum != __atomic_load_n(&judged, __ATOMIC_ACQUIRE))
		judge_loaded(*version, main_release());
	if (kind == UNKNOWN && !__atomic_load_n(&said, __ATOMIC_ACQUIRE))
		judge_caller(*version, caller, k);
	return r;
}

size_t cushim_runtime_gate_claims(struct cushim_claim *c)
{
	c[0] = (struct cushim_claim){ CUSHIM_IDX_cuDriverGetVersion, (void *)gate_cuDriverGetVersion, CUSHIM_OWNER_GATE,
				      CUSHIM_CLAIM_WRAP, &answer };
	return 1;
}
