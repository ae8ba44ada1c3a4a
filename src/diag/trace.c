/* Diagnostics: the trace wrappers' back end.
 *
 * With CUSHIM_LOG=errors or trace, or CUSHIM_SUMMARY set, the slots hold the
 * generated trace wrappers (wrappers.c) instead of the driver's functions, so
 * the plain forwarding path stays as it is.  Each thread formats its lines into
 * a buffer of its own and writes whole lines, at most PIPE_BUF bytes at a time,
 * so lines never tear; buffers are flushed when full, at thread exit, at fork
 * and at exit.  Each thread counts its own calls for the summary.
 *
 * The locks.  A buffer's busy flag is taken without waiting by its owner, and
 * by a flusher (thread exit, fork, exit) holding list_lock; list_lock is held
 * with every signal blocked, so that no signal handler runs on a thread that
 * holds it.  No wait is on the waiting thread itself: where the owner of a
 * buffer is this very thread (a signal handler that forks or exits while its
 * thread was in the middle of a line), the buffer is left to that call, and
 * a wait for another thread's buffer is bounded.  Nothing here holds
 * list_lock across the loader, the driver or stdio: under it run write(2),
 * the open of a forked child's timeline file at its first event, and the
 * message of a failed write. */
#include "table.h"
#include "conf.h"
#include "outputs.h"
#include "log.h"
#include "trace.h"
#include "stamp.h"
#include "summary.h"
#include "timeline.h"
#include "enums.h"
#include <errno.h>
#include "explain.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int cushim_tracing;
int cushim_lines;
__thread struct cushim_counters *cushim_my_counters __attribute__((tls_model("initial-exec")));

#define TBUF_SIZE 16384
#define LINE_MAX_LEN 2048

#define counters cushim_counters

static pid_t my_pid;

/* A thread's buffer and counters, one mapping each.  Buffers are never
 * freed: a thread that exits hands its buffer back (free = 1) for the next
 * new thread, so the list only grows by head insertion with a
 * compare-and-swap, and a signal handler making a thread's first traced call
 * allocates nothing with malloc and takes no lock. */
struct tbuf {
	struct tbuf *next;
	int busy;          /* taken by the owner while it writes, or by a flusher */
	int free;          /* its thread has exited: the next new thread may take it */
	int tid;
	size_t len;
	struct counters *cnt;
	char *tl;          /* the timeline's events (timeline.c), NULL without one */
	size_t tllen;
	int tl_tid;        /* the thread the timeline has named for this buffer */
	size_t sent, tlsent; /* what of data and tl is written already: a flush in progress, or an exec */
	int held;          /* prefork took it: postfork gives it back in the parent */
	int stale;         /* a forked child's copy, held by the call its fork interrupted: emptied at its next take */
	char data[TBUF_SIZE];
};
#define TL_SIZE 131072

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *buffers;
static struct counters retired[CUSHIM_NSYMS]; /* what exited threads counted */
static pthread_key_t tbuf_key;
static __thread struct tbuf *my_tbuf __attribute__((tls_model("initial-exec")));
static __thread int tbuf_failed __attribute__((tls_model("initial-exec")));

/* ---- per-thread buffers ---- */
static int log_is_file; /* one write of whole lines is atomic there; pipes need PIPE_BUF */
static int text_lines;  /* as cushim_lines, for the text trace alone */
static int timeline;    /* CUSHIM_TIMELINE's file is open */

/* What b holds, written; sent and tlsent follow, so that an exec from a
 * signal handler that interrupted this writes only the rest. */
static void write_held(struct tbuf *b)
{
	while (b->sent < b->len) {
		size_t n = b->len - b->sent;
		if (n > 4096 && !log_is_file) { /* PIPE_BUF: cut at the last whole line */
			n = 4096;
			while (n > 0 && b->data[b->sent + n - 1] != '\n')
				n--;
			if (n == 0)
				n = 4096;
		}
		cushim_log_write(b->data + b->sent, n);
		b->sent += n;
	}
	if (b->tlsent < b->tllen) {
		cushim_timeline_write(b->tl + b->tlsent, b->tllen - b->tlsent);
		b->tlsent = b->tllen;
	}
}

static void flush_locked(struct tbuf *b)
{
	write_held(b);
	b->len = b->sent = 0;
	b->tllen = b->tlsent = 0;
}

/* b's busy flag, taken without waiting: 1, or 0 where another holds it.  A
 * stale copy is emptied first: what it holds is the parent's. */
static inline int take(struct tbuf *b)
{
	if (__atomic_exchange_n(&b->busy, 1, __ATOMIC_ACQUIRE))
		return 0;
	if (__builtin_expect(b->stale, 0)) {
		b->len = b->tllen = b->sent = b->tlsent = 0;
		b->tl_tid = 0;
		b->stale = 0;
	}
	return 1;
}

static inline void give(struct tbuf *b)
{
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
}

/* list_lock, with every signal blocked (the mask before in *old). */
static void lock_list(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pthread_mutex_lock(&list_lock);
}

static void unlock_list(const sigset_t *old)
{
	pthread_mutex_unlock(&list_lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Another thread's buffer, taken under list_lock: its owner ends its line
 * within microseconds, unless a signal handler on it waits for what this
 * thread holds (a fork's lock, list_lock); so the wait is bounded, and a
 * buffer not had by then is left to its owner.  1 when taken. */
static int take_waiting(struct tbuf *b)
{
	struct timespec t0, t;

	if (take(b))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sched_yield();
		if (take(b))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000000L);
	return 0;
}

static void fold_counters(struct tbuf *b)
{
	if (!b->cnt)
		return;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		struct counters *c = &b->cnt[i], *r = &retired[i];
		r->calls += c->calls, r->errors += c->errors, r->ticks += c->ticks;
		if (c->max > r->max)
			r->max = c->max;
	}
	memset(b->cnt, 0, CUSHIM_NSYMS * sizeof *b->cnt);
}

/* Thread exit: flush, count what it counted, and free the buffer for reuse.
 * Under list_lock only the owner takes a buffer without the lock, and the
 * owner is this thread: a busy flag set here was left by a call of this
 * thread's that never ends (pthread_exit from a signal handler), so the
 * buffer is simply taken. */
static void tbuf_retire(void *p)
{
	struct tbuf *b = p;
	sigset_t old;

	my_tbuf = NULL;
	cushim_my_counters = NULL;
	tbuf_failed = 1; /* a destructor after this one traces straight to the log */
	lock_list(&old);
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELAXED); /* no other holder, as said above */
	take(b);
	flush_locked(b);
	fold_counters(b);
	give(b);
	__atomic_store_n(&b->free, 1, __ATOMIC_RELEASE);
	unlock_list(&old);
}

static struct tbuf *new_tbuf(void)
{
	size_t size = sizeof(struct tbuf);
	size_t csize = cushim_conf.summary ? CUSHIM_NSYMS * sizeof(struct counters) : 0;
	size_t tlsize = timeline ? TL_SIZE : 0;
	struct tbuf *b = mmap(NULL, size + csize + tlsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED)
		return NULL;
	if (csize)
		b->cnt = (struct counters *)(void *)((char *)b + size);
	if (tlsize)
		b->tl = (char *)b + size + csize;
	b->next = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&buffers, &b->next, b, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		;
	return b;
}

/* This thread's buffer: a freed one if there is one, else a new mapping.
 * Safe in a signal handler: no malloc, no lock. */
static struct tbuf *get_tbuf(void)
{
	struct tbuf *b = my_tbuf;
	if (b || tbuf_failed)
		return b;
	tbuf_failed = 1; /* a handler interrupting us writes its line directly */
	for (b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		int one = 1;
		if (__atomic_load_n(&b->free, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&b->free, &one, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (!b && !(b = new_tbuf()))
		return NULL; /* tbuf_failed stays set: lines go straight to the log */
	b->tid = (int)syscall(SYS_gettid);
	pthread_setspecific(tbuf_key, b);
	my_tbuf = b;
	cushim_my_counters = b->cnt;
	tbuf_failed = 0;
	return b;
}

void cushim_count_first(unsigned i, CUresult r, uint64_t ticks)
{
	struct counters *c;
	if (!get_tbuf() || !(c = cushim_my_counters))
		return;
	c += i;
	c->calls++;
	c->errors += r != CUDA_SUCCESS;
	c->ticks += ticks;
	c->max = ticks > c->max ? ticks : c->max;
}

/* "cushim: 12.345678 PID TID call = RESULT 1.234 us\n" */
static size_t format_line(char *buf, size_t size, int tid, unsigned i, CUresult r, uint64_t t0, uint64_t t1,
			  const uint64_t *argv)
{
	enum { TAIL = 32 }; /* room kept for " 123456789.123 us\n" */
	struct cushim_out o = { buf, size - TAIL };
	uint64_t since_us = (uint64_t)((double)(t0 - cushim_start_ticks) * cushim_ns_per_tick / 1e3);
	uint64_t took_ns = (uint64_t)((double)(t1 - t0) * cushim_ns_per_tick);

	cushim_put_raw(&o, "cushim: ", 8);
	cushim_put_milli(&o, since_us, 6);
	cushim_put_raw(&o, " ", 1);
	cushim_put_u(&o, (uint64_t)my_pid);
	cushim_put_raw(&o, " ", 1);
	cushim_put_u(&o, (uint64_t)tid);
	cushim_put_raw(&o, " ", 1);
	o.p += cushim_format_call(o.p, o.left, i, r, argv, NULL);
	o.left = size - (size_t)(o.p - buf);
	cushim_put_raw(&o, " ", 1);
	cushim_put_milli(&o, took_ns, 3);
	cushim_put_raw(&o, " us\n", 4);
	return (size_t)(o.p - buf);
}

void cushim_trace_call(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	if (__builtin_expect(cushim_fork_watch, 0) && r == CUDA_ERROR_NOT_INITIALIZED)
		cushim_fork_failed(i);
	if (!cushim_tracing)
		return; /* only a forked child's watch (explain-fork.c) sent it here */
	struct tbuf *b = get_tbuf();
	int text = text_lines > 1 || (text_lines && r != CUDA_SUCCESS);

	if (!b || !take(b)) {
		/* No buffer, or re-entered from a signal handler, or being flushed:
		 * write this one line (and event) straight away. */
		char tmp[LINE_MAX_LEN];
		int tid = (int)syscall(SYS_gettid);
		if (text)
			cushim_log_write(tmp, format_line(tmp, sizeof tmp, tid, i, r, t0, t1, argv));
		if (timeline)
			cushim_timeline_direct(tid, i, r, t0, t1, argv);
		return;
	}
	if (TBUF_SIZE - b->len < LINE_MAX_LEN || (b->tl && TL_SIZE - b->tllen < CUSHIM_TL_EVENT_MAX))
		flush_locked(b);
	if (text)
		b->len += format_line(b->data + b->len, LINE_MAX_LEN, b->tid, i, r, t0, t1, argv);
	if (b->tl)
		b->tllen += cushim_timeline_event(b->tl + b->tllen, CUSHIM_TL_EVENT_MAX, &b->tl_tid, b->tid, i, r, t0,
						  t1, argv);
	give(b);
}

/* A forked child's watch (explain-fork.c): its failed calls reach
 * cushim_trace_call, whether or not it traces. */
void cushim_trace_failures(void)
{
	if (!cushim_lines)
		cushim_lines = 1;
}

/* ---- fork and exit ---- */
/* prefork takes every buffer it can and flushes it; postfork in the parent
 * gives back only those (held): a thread's first line may insert a new one
 * at the head meanwhile, which its owner holds.  A fork from a signal
 * handler whose thread was in the middle of a line leaves that thread's
 * buffer to the line: it ends in the parent, and in the child, where the
 * buffer holds the parent's lines, it is emptied at its next take (stale).
 * Signals stay blocked from prefork to postfork. */
static sigset_t fork_mask;

void cushim_trace_prefork(void)
{
	sigset_t old;

	if (!cushim_tracing)
		return;
	lock_list(&old);
	fork_mask = old;
	for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		b->held = b == my_tbuf ? take(b) : take_waiting(b);
		if (b->held)
			flush_locked(b);
	}
}

/* In the child, only this thread lives on: the others' buffers are free for
 * reuse, and what they hold and counted is the parent's. */
static void child_buffers(void)
{
	for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		if (b->cnt)
			memset(b->cnt, 0, CUSHIM_NSYMS * sizeof *b->cnt);
		if (b == my_tbuf && !b->held) {
			b->stale = 1; /* the interrupted line gives it back */
			continue;
		}
		if (b != my_tbuf)
			b->free = 1;
		b->len = b->tllen = b->sent = b->tlsent = 0;
		b->tl_tid = 0;
		b->held = 0;
		b->busy = 0;
	}
	memset(retired, 0, sizeof retired);
	if (my_tbuf)
		my_tbuf->tid = (int)syscall(SYS_gettid);
}

void cushim_trace_postfork(int child)
{
	sigset_t old = fork_mask;

	if (!cushim_tracing)
		return;
	if (child) {
		child_buffers();
		my_pid = getpid();
		cushim_run_forked();
		cushim_log_reopen_child();
		cushim_timeline_child();
		cushim_summary_forked();
	} else {
		for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next)
			if (b->held) {
				b->held = 0;
				give(b);
			}
	}
	unlock_list(&old);
}

static int by_total(const void *a, const void *b)
{
	const struct cushim_summary_row *x = a, *y = b;
	return x->c.ticks < y->c.ticks ? 1 : x->c.ticks > y->c.ticks ? -1 : strcmp(cushim_syms[x->i].name, cushim_syms[y->i].name);
}

/* Every function called, its counters summed over the threads, in rows;
 * the number of rows, and of calls in *calls. */
static unsigned collect_rows(struct cushim_summary_row *rows, uint64_t *calls)
{
	unsigned n = 0;

	*calls = 0;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		struct counters c = retired[i];
		for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next)
			if (b->cnt) {
				c.calls += b->cnt[i].calls, c.errors += b->cnt[i].errors, c.ticks += b->cnt[i].ticks;
				if (b->cnt[i].max > c.max)
					c.max = b->cnt[i].max;
			}
		if (c.calls) {
			rows[n].i = i, rows[n].c = c, n++;
			*calls += c.calls;
		}
	}
	return n;
}

static int exiting; /* the exit has begun: an exec after it has nothing to add */

/* At exit: every buffer written, the timeline closed, the summary.  A
 * process that ends with _exit (Python's fork and forkserver workers) runs
 * no destructor: its timeline stays cut and its summary file empty, as a
 * killed one's.  A buffer whose owner is in the middle of a line stays
 * unwritten.  The summary is written after list_lock is let go. */
__attribute__((destructor)) static void cushim_trace_exit(void)
{
	static struct cushim_summary_row rows[CUSHIM_NSYMS];
	uint64_t calls = 0;
	unsigned n = 0;
	sigset_t old;

	if (!cushim_tracing)
		return;
	__atomic_store_n(&exiting, 1, __ATOMIC_RELAXED);
	lock_list(&old);
	for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next)
		if (take(b)) {
			flush_locked(b);
			give(b);
		}
	if (cushim_conf.summary)
		n = collect_rows(rows, &calls);
	unlock_list(&old);
	cushim_timeline_finish();
	if (cushim_conf.summary) {
		qsort(rows, n, sizeof *rows, by_total); /* most time first */
		cushim_summary_write(rows, n, calls, cushim_ns_per_tick, log_is_file, 0);
	}
}

/* ---- exec (exec.c) ---- */
/* Before the process image is replaced: every thread's lines and events
 * written, the timeline closed and the summary written, as at exit, so
 * that an exec loses nothing the threads' calls made before it.  Another
 * thread's buffer is had as at fork; this thread's own, where the exec
 * comes from a signal handler that interrupted a line, is written whole but
 * left to the line (sent, tlsent).  The summary's file stays open: if the
 * exec fails, the exit writes it again.  A vfork child (another pid in its
 * parent's memory) has nothing of its own here. */
void cushim_trace_exec(void)
{
	struct cushim_summary_row *rows = NULL;
	size_t size = CUSHIM_NSYMS * sizeof *rows;
	uint64_t calls = 0;
	unsigned n = 0;
	sigset_t old;

	if (!cushim_tracing || __atomic_load_n(&exiting, __ATOMIC_RELAXED) || getpid() != my_pid)
		return;
	lock_list(&old);
	for (struct tbuf *b = __atomic_load_n(&buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		int mine = b == my_tbuf;
		if (mine ? take(b) : take_waiting(b)) {
			flush_locked(b);
			give(b);
		} else if (mine) {
			write_held(b);
		}
	}
	if (cushim_conf.summary &&
	    (rows = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED)
		n = collect_rows(rows, &calls);
	unlock_list(&old);
	cushim_timeline_exec(1);
	if (rows && rows != MAP_FAILED) {
		qsort(rows, n, sizeof *rows, by_total);
		cushim_summary_write(rows, n, calls, cushim_ns_per_tick, log_is_file, 1);
		munmap(rows, size);
	}
}

/* The exec returned, so failed: the process goes on, and its timeline with it. */
void cushim_trace_exec_failed(void)
{
	if (cushim_tracing && !__atomic_load_n(&exiting, __ATOMIC_RELAXED) && getpid() == my_pid)
		cushim_timeline_exec(0);
}

void cushim_trace_start(void)
{
	struct stat st;
	cushim_stamp_calibrate();
	my_pid = getpid();
	log_is_file = fstat(cushim_log_fd(), &st) == 0 && S_ISREG(st.st_mode);
	text_lines = cushim_conf.level >= CUSHIM_LOG_TRACE ? 2 : cushim_conf.level >= CUSHIM_LOG_ERRORS ? 1 : 0;
	timeline = cushim_timeline_start();
	cushim_summary_claim();
	cushim_lines = timeline ? 2 : text_lines; /* the timeline has every call */
	pthread_key_create(&tbuf_key, tbuf_retire);
	cushim_tracing = 1;
}
