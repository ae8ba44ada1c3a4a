/* A sticky error explained.  A kernel that faults (700 illegal address,
 * 710 device assert, 714 to 717, 719 launch failure, 720) poisons its
 * context: the error surfaces at a later call, long after the launch.  The
 * first call that returns one, once per context, says which call saw it, in
 * which thread, and, from the flight recorder's rings, the kernels launched
 * since the last synchronisation that completed without error, newest
 * first: name (from the call that made the handle: cuModuleGetFunction,
 * cuLibraryGetKernel, cuKernelGetFunction; demangled where the C++ runtime
 * is loaded), grid, block, dynamic shared memory, stream, thread, and how
 * long before the error.  Without the recorder it says how to get the list.
 * The rings are read, never waited for; nothing here holds a lock. */
#include "table.h"
#include "state.h"
#include "errnames.h"
#include "explain.h"
#include "recorder.h"
#include "stamp.h"
#include "peek.h"
#include "realdriver.h"
#include "sticky.h"
#include "realdlsym.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NAMED 8 /* launches named in the message; the rest counted */

struct item {
	struct cushim_rec r;
	int tid;
};

struct gather {
	struct item *it;
	size_t n, cap;
};

enum { NONE, LAUNCH, LAUNCH_EX, GRAPH, SYNC_CTX, SYNC_STREAM, NAMING };

static int kind_of(unsigned fn)
{
	const char *n = cushim_syms[fn].name;
	if (strncmp(n, "cuLaunchKernelEx", 16) == 0)
		return LAUNCH_EX;
	if (strncmp(n, "cuLaunchKernel", 14) == 0 || strncmp(n, "cuLaunchCooperativeKernel", 25) == 0)
		return strstr(n, "Multi") ? NONE : LAUNCH;
	if (strncmp(n, "cuGraphLaunch", 13) == 0)
		return GRAPH;
	if (strncmp(n, "cuCtxSynchronize", 16) == 0)
		return SYNC_CTX;
	if (strncmp(n, "cuStreamSynchronize", 19) == 0)
		return SYNC_STREAM;
	if (strcmp(n, "cuModuleGetFunction") == 0 || strcmp(n, "cuLibraryGetKernel") == 0 ||
	    strcmp(n, "cuKernelGetFunction") == 0)
		return NAMING;
	return NONE;
}

static int keep(struct gather *ga, const struct cushim_rec *rec, int tid)
{
	if (ga->n == ga->cap) {
		size_t cap = ga->cap ? 2 * ga->cap : 256;
		struct item *it = realloc(ga->it, cap * sizeof *it);
		if (!it)
			return 1;
		ga->it = it, ga->cap = cap;
	}
	ga->it[ga->n].r = *rec;
	ga->it[ga->n++].tid = tid;
	return 0;
}

static int gather_ring(struct cushim_ring *g, int tid, void *ctx)
{
	struct cushim_cursor c;
	struct cushim_rec rec;
	cushim_cursor_oldest(g, &c);
	while (cushim_ring_read(g, &c, &rec))
		if (rec.fn < CUSHIM_NSYMS && kind_of(rec.fn) != NONE && keep(ctx, &rec, tid))
			return 1;
	return 0;
}

/* ---- names ---- */
/* The handle's name: the driver's own copy, whole, where it gave one (read
 * through the checked copy into buf), else the bytes the record kept. */
static const char *name_of(const struct gather *ga, uint64_t handle, int depth, char *buf, size_t size)
{
	int cut;
	for (size_t k = ga->n; k-- > 0;) {
		const struct cushim_rec *r = &ga->it[k].r;
		if (kind_of(r->fn) != NAMING || !r->made || r->made != handle)
			continue;
		if (r->made_name && cushim_peek_str((const void *)(uintptr_t)r->made_name, buf, size, &cut) > 0)
			return buf;
		if (r->str_arg >= 0 && r->str[0])
			return r->str;
		if (depth == 0) /* cuKernelGetFunction: the kernel's name */
			return name_of(ga, r->argv[1], 1, buf, size);
	}
	return NULL;
}

/* name demangled into buf where the C++ runtime is in the process: in its
 * global scope, or loaded privately (Python loads its extensions' so). */
static const char *demangled(const char *name, char *buf, size_t size)
{
	typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
	demangle_fn d = (demangle_fn)cushim_dlsym(RTLD_DEFAULT, "__cxa_demangle");
	void *h = d ? NULL : cushim_dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (h)
		d = (demangle_fn)cushim_dlsym(h, "__cxa_demangle");
	int st = -1;
	char *out = d && name[0] == '_' && name[1] == 'Z' ? d(name, NULL, NULL, &st) : NULL;
	snprintf(buf, size, "%s", out && st == 0 ? out : name);
	free(out);
	if (h)
		dlclose(h);
	return buf;
}

static int by_start(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	return x->r.t0 < y->r.t0 ? -1 : x->r.t0 > y->r.t0;
}

/* ---- what was in flight ---- */
static uint64_t stream_of(const struct cushim_rec *r)
{
	int k = kind_of(r->fn);
	return k == LAUNCH ? r->argv[8] : k == GRAPH ? r->argv[1] : ~(uint64_t)0;
}

/* The launches (indices into it, oldest first, into out) that no
 * synchronisation completed without error since: how many. */
static size_t in_flight(const struct item *it, size_t n, size_t *out)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		const struct cushim_rec *r = &it[k].r;
		int kind = kind_of(r->fn);
		if ((kind == LAUNCH || kind == LAUNCH_EX || kind == GRAPH) && r->result == CUDA_SUCCESS) {
			out[m++] = k;
		} else if (kind == SYNC_CTX && r->result == CUDA_SUCCESS) {
			m = 0;
		} else if (kind == SYNC_STREAM && r->result == CUDA_SUCCESS) {
			size_t w = 0;
			for (size_t j = 0; j < m; j++)
				if (stream_of(&it[out[j]].r) != r->argv[0])
					out[w++] = out[j];
			m = w;
		}
	}
	return m;
}

/* One launch, for the message. */
static size_t describe(char *buf, size_t size, const struct gather *ga, const struct item *l, uint64_t at)
{
	char dm[1024], ago[32], raw[4096];
	const struct cushim_rec *r = &l->r;
	int kind = kind_of(r->fn);
	uint64_t f = kind == LAUNCH_EX ? r->argv[1] : r->argv[0];
	const char *name = kind == GRAPH ? NULL : name_of(ga, f, 0, raw, sizeof raw);
	double us = (double)(at - r->t0) * cushim_ns_per_tick / 1e3;

	snprintf(ago, sizeof ago, us >= 1000 ? "%.3f ms" : "%.1f us", us >= 1000 ? us / 1000 : us);
	if (kind == GRAPH)
		return (size_t)snprintf(buf, size, "a graph launch (%s of graph 0x%llx) on stream 0x%llx, thread %d, %s "
					"before", cushim_syms[r->fn].name, (unsigned long long)r->argv[0],
					(unsigned long long)r->argv[1], l->tid, ago);
	if (name)
		demangled(name, dm, sizeof dm);
	else
		snprintf(dm, sizeof dm, "function 0x%llx (its name not recorded)", (unsigned long long)f);
	if (strlen(dm) > 300) /* a C++ template's: its head is enough */
		memcpy(dm + 297, "...", 4);
	if (kind == LAUNCH_EX)
		return (size_t)snprintf(buf, size, "%s (%s; grid and block in its launch configuration), thread %d, %s "
					"before", dm, cushim_syms[r->fn].name, l->tid, ago);
	return (size_t)snprintf(buf, size, "%s grid (%u,%u,%u) block (%u,%u,%u) shared %u B stream 0x%llx, thread %d, "
				"%s before", dm, (unsigned)r->argv[1], (unsigned)r->argv[2], (unsigned)r->argv[3],
				(unsigned)r->argv[4], (unsigned)r->argv[5], (unsigned)r->argv[6], (unsigned)r->argv[7],
				(unsigned long long)r->argv[8], l->tid, ago);
}

/* ---- the message ---- */
static uintptr_t said_in[16]; /* the contexts said for */

/* The launches in flight, newest first, after "text" (o bytes of size). */
static size_t list_launches(char *text, size_t o, size_t size, uint64_t at)
{
	struct gather ga = { NULL, 0, 0 };
	cushim_rings_each(gather_ring, &ga);
	qsort(ga.it, ga.n, sizeof *ga.it, by_start);
	size_t *idx = malloc((ga.n ? ga.n : 1) * sizeof *idx), m = idx ? in_flight(ga.it, ga.n, idx) : 0;
	if (!m)
		o += (size_t)snprintf(text + o, size - o, " The records hold no kernel launched since the last "
				      "synchronisation that completed without error (each thread's ring keeps its "
				      "latest calls).");
	else
		o += (size_t)snprintf(text + o, size - o, " Kernels launched since the last synchronisation that "
				      "completed without error, newest first:");
	for (size_t j = 0; j < m && j < MAX_NAMED && o < size; j++) {
		o += (size_t)snprintf(text + o, size - o, " %zu. ", j + 1);
		if (o < size)
			o += describe(text + o, size - o, &ga, &ga.it[idx[m - 1 - j]], at);
		if (o < size)
			o += (size_t)snprintf(text + o, size - o, ";");
	}
	if (m > MAX_NAMED && o < size)
		o += (size_t)snprintf(text + o, size - o, " and %zu earlier.", m - MAX_NAMED);
	else if (m && o < size)
		text[o - 1] = '.';
	free(idx);
	free(ga.it);
	return o < size ? o : size - 1;
}

void cushim_sticky(unsigned i, CUresult r, uint64_t at, int recording)
{
	char text[CUSHIM_CAUSE_TEXT];
	const char *said = NULL;
	cushim_fn_cuGetErrorString *str = (cushim_fn_cuGetErrorString *)cushim_real[CUSHIM_IDX_cuGetErrorString];

	if (!cushim_first_in_context(said_in, 16))
		return;
	if (!str || str(r, &said) != CUDA_SUCCESS || !said)
		said = "";
	size_t o = (size_t)snprintf(text, sizeof text, "%s returned %s (%d%s%s%s) in thread %ld: a kernel failed on the "
				    "GPU before, and the error is sticky: every later call on this context fails "
				    "with it.", cushim_syms[i].name, cushim_error_name((int)r) ? cushim_error_name((int)r) :
				    "an error", (int)r, *said ? ", \"" : "", said, *said ? "\"" : "",
				    (long)syscall(SYS_gettid));
	if (o >= sizeof text)
		o = sizeof text - 1;
	if (recording)
		o = list_launches(text, o, sizeof text, at);
	else
		o += (size_t)snprintf(text + o, sizeof text - o, " Which kernels were in flight is not recorded: run the "
				      "program under cushim run --record to have them named.");
	if (r == CUDA_ERROR_ASSERT && o < sizeof text)
		snprintf(text + o, sizeof text - o, " The device printed the failed assertion's text on the program's "
			 "standard output.");
	cushim_cause("sticky", text);
}
