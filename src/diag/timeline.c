/* The timeline (CUSHIM_TIMELINE=FILE.json): every traced call as a Chrome
 * trace event, the JSON that Perfetto and chrome://tracing open, one file per
 * process.
 *
 * The file is a JSON array written as a stream: "[" and the process's name
 * event first; every later write begins with ",\n" and ends with a whole
 * event, and the exit writes the closing "\n]\n".  A file cut short by a kill
 * lacks only that (and at worst the tail of one write): `cushim timeline
 * --repair` puts it back.  A write that fails (a full disk) is said once, and
 * nothing is written after it.  The events of calls are formatted into trace.c's
 * per-thread buffers (a thread's name event before its first call) and
 * written when a buffer fills, at thread exit, at fork and at exit; the
 * bootstrap and each missing export are instant events, written at once.
 * Timestamps are CLOCK_MONOTONIC in microseconds, read as the trace reads
 * them (the TSC, calibrated), so the files of one machine's processes line
 * up. */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "conf.h"
#include "settings.h"
#include "outputs.h"
#include "runmark.h"
#include "log.h"
#include "stamp.h"
#include "timeline.h"
#include "errnames.h"
#include "jsonstr.h"
#include "ticks.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* OFF: no timeline.  PENDING: a forked child's, opened by its first write,
 * so that a child that only execs leaves no file (and the program it execs,
 * with the same pid, finds the name free).  OPENING, then OPEN: tl_fd. */
enum { OFF, PENDING, OPENING, OPEN };
static int tl_state, tl_fd = -1;
static int tl_pid;
static __thread int opener __attribute__((tls_model("initial-exec")));
/* Writers in progress, and whether the closing bracket is written: an event
 * written after it would break the file, so it is dropped instead.  Atomics,
 * not a lock: a signal handler's call may write while its thread was writing. */
static int writers, closed;

/* ---- formatting: the event text, never longer than the room given ---- */
struct jout {
	char *p;
	size_t left; /* bytes still free at p */
};

static void lit(struct jout *o, const char *s, size_t n)
{
	if (n > o->left)
		n = o->left;
	memcpy(o->p, s, n);
	o->p += n;
	o->left -= n;
}
#define LIT(o, s) lit(o, s, sizeof s - 1)

/* A JSON string's contents, as jsonstr.h says (a name that is not UTF-8
 * stays valid JSON), cut between whole escapes where room runs out. */
static void esc(struct jout *o, const char *s, size_t n)
{
	size_t m = cushim_json_escape_n(o->p, o->left, s, n);
	o->p += m;
	o->left -= m;
}

static void str(struct jout *o, const char *s)
{
	LIT(o, "\"");
	esc(o, s, strlen(s));
	LIT(o, "\"");
}

/* v with `decimals` (0 or 3) decimals: nanoseconds as microseconds. */
static void num(struct jout *o, uint64_t v, int decimals)
{
	size_t n = cushim_format_decimal(o->p, o->left, v, decimals);
	o->p += n;
	o->left -= n;
}

static void key(struct jout *o, const char *k)
{
	str(o, k);
	LIT(o, ":");
}

/* What this thread wrote last, kept: formatting numbers is most of an
 * event's cost, and its ids and the whole seconds of its clock change
 * seldom. */
static __thread struct {
	int pid, tid;
	unsigned char len, seclen;
	char text[48], sectext[24];
	uint64_t sec;
} ids __attribute__((tls_model("initial-exec")));

/* ns as microseconds with three decimals: the whole seconds, then nine
 * digits (six of microseconds, three of nanoseconds). */
static void stamp(struct jout *o, uint64_t ns)
{
	uint64_t sec = ns / 1000000000u;
	uint32_t rest = (uint32_t)(ns % 1000000000u);
	char *d;

	if (sec == 0 || o->left < sizeof ids.sectext + 10) { /* no leading zeros in a JSON number */
		num(o, ns, 3);
		return;
	}
	/* Copied whole, then checked: a signal handler's call on this thread
	 * may have turned the kept second over meanwhile. */
	size_t n;
	do {
		if (sec != ids.sec || !ids.seclen) {
			ids.seclen = (unsigned char)cushim_format_decimal(ids.sectext, sizeof ids.sectext, sec, 0);
			ids.sec = sec;
		}
		n = ids.seclen;
		memcpy(o->p, ids.sectext, sizeof ids.sectext);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (ids.sec != sec || ids.seclen != n);
	o->p += n, o->left -= n;
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "4041424344454647484950515253545556575859606162636465666768697071727374757677787980"
				    "81828384858687888990919293949596979899";
	uint32_t us = rest / 1000, frac = rest % 1000;
	d = o->p; /* written in place */
	d[9] = (char)('0' + frac % 10);
	memcpy(d + 7, pairs + 2 * (frac / 10), 2);
	d[6] = '.';
	memcpy(d + 4, pairs + 2 * (us % 100), 2);
	memcpy(d + 2, pairs + 2 * (us / 100 % 100), 2);
	memcpy(d, pairs + 2 * (us / 10000), 2);
	o->p += 10, o->left -= 10;
}

static void where(struct jout *o, uint64_t ns, int tid)
{
	LIT(o, ",\"ts\":");
	stamp(o, ns);
	if (ids.pid != tl_pid || ids.tid != tid) {
		struct jout t = { ids.text, sizeof ids.text };
		LIT(&t, ",\"pid\":");
		num(&t, (uint64_t)tl_pid, 0);
		LIT(&t, ",\"tid\":");
		num(&t, (uint64_t)tid, 0);
		ids.len = (unsigned char)(t.p - ids.text);
		ids.pid = tl_pid, ids.tid = tid;
	}
	if (o->left >= sizeof ids.text) { /* a fixed-size copy is a few moves */
		memcpy(o->p, ids.text, sizeof ids.text);
		o->p += ids.len, o->left -= ids.len;
	} else {
		lit(o, ids.text, ids.len);
	}
}

/* ,\n{"name":"thread_name","ph":"M",...}: this thread's name, for its track. */
static void thread_name(struct jout *o, int tid)
{
	char name[17] = "";
	prctl(PR_GET_NAME, name);
	LIT(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
	num(o, (uint64_t)tl_pid, 0);
	LIT(o, ",\"tid\":");
	num(o, (uint64_t)tid, 0);
	LIT(o, ",\"args\":{\"name\":");
	str(o, name);
	LIT(o, "}}");
}

/* Text that needs no escaping: names of functions, arguments and results. */
static void plain(struct jout *o, const char *s)
{
	lit(o, s, strlen(s));
}

/* One argument, "name":value: integers as numbers, the rest as the text
 * trace shows them, as strings (only a C string's can hold a quote or a
 * backslash). */
static void arg(struct jout *o, const struct cushim_argdesc *d, uint64_t v, const struct cushim_strarg *sa)
{
	char tmp[512];
	size_t n;
	int number = d->cls == CUSHIM_A_INT || d->cls == CUSHIM_A_UINT;

	LIT(o, "\"");
	plain(o, d->name);
	if (number)
		LIT(o, "\":");
	else
		LIT(o, "\":\"");
	if (d->cls == CUSHIM_A_STR) {
		n = cushim_format_arg(tmp, sizeof tmp, d, v, sa);
		esc(o, tmp, n);
	} else {
		n = cushim_format_arg(o->p, o->left, d, v, NULL);
		o->p += n;
		o->left -= n;
	}
	if (!number)
		LIT(o, "\"");
}

enum { TAIL = 160, ARG_ROOM = 1200 }; /* the result and closing; one argument at most */

size_t cushim_timeline_event(char *buf, size_t size, int *named, int tid, unsigned i, CUresult r, uint64_t t0,
			     uint64_t t1, const uint64_t *argv, const struct cushim_strarg *sa)
{
	struct jout o = { buf, size - TAIL };
	const char *rn = cushim_error_name((int)r);
	uint64_t ns0 = cushim_trace_ns(t0), ns1 = cushim_trace_ns(t1);

	if (named && *named != tid) {
		thread_name(&o, tid);
		*named = tid;
	}
	LIT(&o, ",\n{\"name\":\"");
	plain(&o, cushim_syms[i].name);
	if (r == CUDA_SUCCESS)
		LIT(&o, "\",\"cat\":\"call\",\"ph\":\"X\"");
	else
		LIT(&o, "\",\"cat\":\"failed\",\"ph\":\"X\"");
	where(&o, ns0, tid);
	LIT(&o, ",\"dur\":");
	num(&o, ns1 > ns0 ? ns1 - ns0 : 0, 3);
	LIT(&o, ",\"args\":{");
	for (unsigned k = 0; k < cushim_nargs[i]; k++) {
		if (o.left < ARG_ROOM) {
			LIT(&o, "\"(more arguments)\":\"not shown\",");
			break;
		}
		arg(&o, &cushim_argdescs[i][k], argv[k], sa && sa->arg == (int)k ? sa : NULL);
		LIT(&o, ",");
	}
	o.left += TAIL;
	LIT(&o, "\"result\":");
	if (rn) {
		LIT(&o, "\"");
		plain(&o, rn);
		LIT(&o, "\"");
	} else {
		LIT(&o, "\"");
		num(&o, (uint64_t)(unsigned)r, 0);
		LIT(&o, "\"");
	}
	LIT(&o, "}}");
	return (size_t)(o.p - buf);
}

/* ---- the file ---- */
static int open_pending(void);
static char tl_path[4096];
/* A write failed (a full disk, say): said once, and nothing more is
 * written, so that the file holds whole events up to there (and perhaps
 * part of the one being written, which --repair drops). */
static int lost, lost_said;
static __thread int my_writes __attribute__((tls_model("initial-exec")));
static off_t exec_end = -1; /* an exec's bracket begins there: cut off when the exec fails */

static void write_or_lose(const char *buf, size_t n)
{
	if (__atomic_load_n(&lost, __ATOMIC_ACQUIRE) || cushim_write_all(tl_fd, buf, n) == 0)
		return;
	__atomic_store_n(&lost, 1, __ATOMIC_RELEASE);
	cushim_log_lost(&lost_said, "cannot write CUSHIM_TIMELINE file %s: %s; the timeline is cut there and "
			"later events are lost (cushim timeline --repair keeps what it holds)", tl_path, strerror(errno));
}

void cushim_timeline_write(const char *buf, size_t n)
{
	__atomic_add_fetch(&writers, 1, __ATOMIC_SEQ_CST);
	my_writes++;
	if (!__atomic_load_n(&closed, __ATOMIC_SEQ_CST) &&
	    (__atomic_load_n(&tl_state, __ATOMIC_ACQUIRE) == OPEN || open_pending()))
		write_or_lose(buf, n);
	my_writes--;
	__atomic_sub_fetch(&writers, 1, __ATOMIC_SEQ_CST);
}

/* Its own frame: the text trace's direct path keeps its small stack. */
__attribute__((noinline)) void cushim_timeline_direct(int tid, unsigned i, CUresult r, uint64_t t0, uint64_t t1,
						      const uint64_t *argv)
{
	char tmp[CUSHIM_TL_EVENT_MAX];
	cushim_timeline_write(tmp, cushim_timeline_event(tmp, sizeof tmp, NULL, tid, i, r, t0, t1, argv, NULL));
}

/* FILE with %p expanded, or a name derived from it when another process
 * owns that, or it is not the user's own file (outputs.c): FILE.PID.json
 * for a forked child, for a program another one started, or beside another
 * run's process. */
static int open_file(void)
{
	int fd = cushim_output_open("CUSHIM_TIMELINE", cushim_conf.timeline, O_APPEND, tl_path, sizeof tl_path);

	if (fd < 0)
		cushim_log(CUSHIM_LOG_WARN, "cannot open CUSHIM_TIMELINE file %s: %s; no timeline", tl_path,
			   strerror(errno));
	lost = lost_said = 0;
	return fd;
}

/* "[" and the process's name: the first write of a file. */
static void header(void)
{
	char buf[512];
	struct jout o = { buf, sizeof buf };

	LIT(&o, "[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
	num(&o, (uint64_t)tl_pid, 0);
	LIT(&o, ",\"tid\":");
	num(&o, (uint64_t)tl_pid, 0);
	LIT(&o, ",\"args\":{\"name\":");
	str(&o, program_invocation_short_name);
	LIT(&o, "}}");
	write_or_lose(buf, (size_t)(o.p - buf));
}

/* ,\n{"name":NAME,"cat":CAT,"ph":"i","s":SCOPE,...,"args":{ -- the caller
 * adds its arguments and the closing "}}". */
static void instant(struct jout *o, const char *name, const char *cat, const char *scope)
{
	LIT(o, ",\n{\"name\":");
	str(o, name);
	LIT(o, ",\"cat\":");
	str(o, cat);
	LIT(o, ",\"ph\":\"i\",\"s\":");
	str(o, scope);
	where(o, cushim_trace_ns(cushim_ticks()), (int)syscall(SYS_gettid));
	LIT(o, ",\"args\":{");
}

static void version_arg(struct jout *o, const char *k, int version, const char *more)
{
	char v[16];
	key(o, k);
	LIT(o, "\"");
	if (version) {
		cushim_format_version(version, v);
		LIT(o, "CUDA ");
		esc(o, v, strlen(v));
	} else {
		LIT(o, "unknown");
	}
	esc(o, more, strlen(more));
	LIT(o, "\"");
}

/* The bootstrap, as it ended: what it found and how long it took. */
static void bootstrap_event(void)
{
	char buf[6000], run[CUSHIM_RUN_ID_MAX];
	struct jout o = { buf, sizeof buf - 8 };
	const struct cushim_state *s = &cushim_state;

	instant(&o, "cushim bootstrap", "cushim", "p");
	version_arg(&o, "driver", s->driver_version,
		    cushim_emulating ? " (emulated)" : "");
	LIT(&o, ",");
	key(&o, "via");
	str(&o, s->via ? s->via : "");
	LIT(&o, ",");
	key(&o, "path");
	str(&o, s->path);
	LIT(&o, ",");
	key(&o, "run");
	cushim_run_id(run, sizeof run);
	str(&o, run);
	LIT(&o, ",\"resolved\":");
	num(&o, (uint64_t)s->resolved, 0);
	LIT(&o, ",\"adapted\":");
	num(&o, (uint64_t)s->adapted, 0);
	LIT(&o, ",\"missing\":");
	num(&o, (uint64_t)s->missing, 0);
	LIT(&o, ",\"find_us\":");
	num(&o, s->find_ns, 3);
	LIT(&o, ",\"resolve_us\":");
	num(&o, s->resolve_ns, 3);
	o.left += 8;
	LIT(&o, "}}");
	cushim_timeline_write(buf, (size_t)(o.p - buf));
}

/* Why export i is missing, as the bootstrap found it (state.h) and as
 * missing.c's warning says it. */
static const char *missing_why(unsigned i)
{
	switch (cushim_missing_why[i]) {
	case CUSHIM_WHY_NEWER:
		return "needs a newer driver";
	case CUSHIM_WHY_HIDDEN:
		return "hidden by CUSHIM_HIDE";
	case CUSHIM_WHY_SELF:
		return "resolved to cushim itself, not to a driver";
	default:
		return "not provided by this driver";
	}
}

/* An export the driver lacks, the first time it is called. */
void cushim_timeline_missing(unsigned i, CUresult returns)
{
	const struct cushim_sym *s = &cushim_syms[i];
	char buf[1024], name[128];
	struct jout o = { buf, sizeof buf - 8 };
	const char *rn = cushim_error_name((int)returns);

	if (__atomic_load_n(&tl_state, __ATOMIC_ACQUIRE) == OFF)
		return;
	snprintf(name, sizeof name, "missing %s", s->name);
	instant(&o, name, "missing", "t");
	key(&o, "function");
	str(&o, s->name);
	LIT(&o, ",");
	version_arg(&o, "needs", s->version, "");
	LIT(&o, ",");
	version_arg(&o, "driver", cushim_state.driver_version, "");
	LIT(&o, ",");
	key(&o, "why");
	str(&o, missing_why(i));
	LIT(&o, ",");
	key(&o, "returns");
	str(&o, rn ? rn : "?");
	o.left += 8;
	LIT(&o, "}}");
	cushim_timeline_write(buf, (size_t)(o.p - buf));
}

/* A failure cushim named the cause of (explain.c): "cushim: CAUSE". */
void cushim_timeline_cause(const char *cause, const char *text)
{
	char buf[6000], name[64];
	struct jout o = { buf, sizeof buf - 8 };

	if (__atomic_load_n(&tl_state, __ATOMIC_ACQUIRE) == OFF)
		return;
	snprintf(name, sizeof name, "cushim: %s", cause);
	instant(&o, name, "cause", "p");
	key(&o, "cause");
	str(&o, cause);
	LIT(&o, ",");
	key(&o, "message");
	str(&o, text);
	o.left += 8;
	LIT(&o, "}}");
	cushim_timeline_write(buf, (size_t)(o.p - buf));
}

int cushim_timeline_start(void)
{
	if (!cushim_conf.timeline || (tl_fd = open_file()) < 0)
		return 0;
	tl_pid = (int)getpid();
	header();
	__atomic_store_n(&tl_state, OPEN, __ATOMIC_RELEASE);
	bootstrap_event();
	return 1;
}

/* The first write of a forked child opens its file; the others wait for it,
 * and one from a signal handler interrupting the opener is dropped. */
static int open_pending(void)
{
	int st = PENDING;
	if (__atomic_compare_exchange_n(&tl_state, &st, OPENING, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		opener = 1;
		if ((tl_fd = open_file()) >= 0)
			header();
		opener = 0;
		__atomic_store_n(&tl_state, tl_fd >= 0 ? OPEN : OFF, __ATOMIC_RELEASE);
		return tl_fd >= 0;
	}
	while (st == OPENING && !opener) {
		sched_yield();
		st = __atomic_load_n(&tl_state, __ATOMIC_ACQUIRE);
	}
	return st == OPEN;
}

/* After fork, in the child (its only thread): a file of its own, later. */
void cushim_timeline_child(void)
{
	if (tl_state == OFF)
		return;
	if (tl_fd >= 0)
		close(tl_fd);
	tl_fd = -1;
	tl_state = PENDING;
	tl_pid = (int)getpid();
	writers = closed = 0; /* the threads that counted are gone */
	my_writes = 0;
	exec_end = -1;
}

/* Close the array, once; where it ends before the bracket in *end (or -1).
 * Writers of other threads are given a while to end; one this thread was in
 * the middle of (a signal handler that called exit or exec) never ends
 * before this returns. */
static void close_array(off_t *end)
{
	*end = -1;
	if (__atomic_load_n(&tl_state, __ATOMIC_ACQUIRE) != OPEN || __atomic_exchange_n(&closed, 1, __ATOMIC_SEQ_CST))
		return;
	for (int spins = 0; __atomic_load_n(&writers, __ATOMIC_SEQ_CST) > my_writes && spins < 100000; spins++)
		sched_yield();
	*end = lseek(tl_fd, 0, SEEK_END);
	write_or_lose(CUSHIM_TL_CLOSE, sizeof CUSHIM_TL_CLOSE - 1);
}

/* At exit, once every buffer is written: close the array. */
void cushim_timeline_finish(void)
{
	off_t end;
	close_array(&end);
}

/* An exec closes the array as the exit does, so that the file is whole
 * when the new program runs; where the exec fails, the bracket is cut off
 * again and the file goes on. */
void cushim_timeline_exec(int before)
{
	if (before) {
		close_array(&exec_end);
	} else if (exec_end >= 0) {
		if (ftruncate(tl_fd, exec_end) == 0)
			__atomic_store_n(&closed, 0, __ATOMIC_SEQ_CST);
		exec_end = -1;
	}
}
