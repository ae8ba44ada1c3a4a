/* Diagnostics: the trace wrappers' back end.
 *
 * With CUSHIM_LOG=errors or trace, CUSHIM_TIMELINE, CUSHIM_RECORD or
 * CUSHIM_SUMMARY set, the slots hold the generated trace wrappers
 * (wrappers.c) instead of the driver's functions, so the plain forwarding
 * path stays as it is.  A call is one record in its thread's ring (the
 * flight recorder, recorder.c): nothing is formatted, locked or written on
 * the calling thread.  The text trace and the timeline are read from the
 * rings by a writer thread, every few milliseconds, and at fork, exec and
 * exit; a record a ring overwrote before the writer read it is counted, and
 * the count said.  Each thread counts its own calls for the summary.
 *
 * The locks.  drain_owner says which thread reads the rings now (the
 * writer, or a fork, an exec, an exit, a crash); it is taken with every
 * signal blocked, and never waited for by the thread that holds it (a
 * signal handler on that thread reads nothing), nor for long by another.
 * Under it run the formatting and write(2), the open of a forked child's
 * timeline file at its first event, and the message of a failed write: never
 * the loader, the driver or stdio.  count_lock guards the counters of
 * threads that exited, for a moment. */
#include "table.h"
#include "conf.h"
#include "runmark.h"
#include "execnext.h"
#include "log.h"
#include "trace.h"
#include "stamp.h"
#include "summary.h"
#include "timeline.h"
#include "recorder.h"
#include "recfile.h"
#include "sticky.h"
#include "explain.h"
#include "explain-fork.h"
#include <errno.h>
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

__thread struct cushim_counters *cushim_my_counters __attribute__((tls_model("initial-exec")));

#define counters cushim_counters
#define RING_LOG2 14   /* 16384 cells, 1 MiB a thread */
#define OUT_SIZE 65536 /* the writer's buffers */

static pid_t my_pid;
static int log_is_file; /* one write of whole lines is atomic there; pipes need PIPE_BUF */
static int text_lines;  /* 0: none, 1: failed calls, 2: every call */
static int timeline;    /* CUSHIM_TIMELINE's file is open */
static int reading;     /* a writer reads the rings into the trace and the timeline */

/* ---- the counters of the summary: one block a thread ---- */
struct cblock {
	struct cblock *next;
	int free;
	struct counters c[CUSHIM_NSYMS];
};
static struct cblock *blocks;
static struct counters retired[CUSHIM_NSYMS]; /* what exited threads counted */
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t count_key;
static __thread struct cblock *my_block __attribute__((tls_model("initial-exec")));
static __thread int block_failed __attribute__((tls_model("initial-exec")));

static void block_retire(void *p)
{
	struct cblock *b = p;
	sigset_t all, old;
	my_block = NULL;
	cushim_my_counters = NULL;
	block_failed = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&count_lock);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		struct counters *c = &b->c[i], *r = &retired[i];
		r->calls += c->calls, r->errors += c->errors, r->ticks += c->ticks;
		r->max = c->max > r->max ? c->max : r->max;
	}
	memset(b->c, 0, sizeof b->c);
	__atomic_store_n(&b->free, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&count_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* This thread's block: a freed one, else a new mapping.  Safe in a signal
 * handler: no malloc, no lock. */
static struct cblock *get_block(void)
{
	struct cblock *b;
	if (block_failed)
		return NULL;
	block_failed = 1;
	for (b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next) {
		int one = 1;
		if (__atomic_load_n(&b->free, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&b->free, &one, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
	}
	if (!b) {
		b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return NULL;
		b->next = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE);
		while (!__atomic_compare_exchange_n(&blocks, &b->next, b, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			;
	}
	pthread_setspecific(count_key, b);
	my_block = b;
	cushim_my_counters = b->c;
	block_failed = 0;
	return b;
}

void cushim_count_first(unsigned i, CUresult r, uint64_t ticks)
{
	struct counters *c;
	if (!get_block() || !(c = cushim_my_counters))
		return;
	c += i;
	c->calls++;
	c->errors += r != CUDA_SUCCESS;
	c->ticks += ticks;
	c->max = ticks > c->max ? ticks : c->max;
}

/* ---- the call path ---- */
static int writer_started;

/* A call with no ring to go to (a signal handler on a thread making its
 * first), written at once: its line and its event. */
static void write_direct(unsigned i, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	char tmp[2048];
	int tid = (int)syscall(SYS_gettid);
	if (!reading) {
		cushim_recorder_unringed();
		return;
	}
	if (text_lines > 1 || (text_lines && r != CUDA_SUCCESS)) {
		struct cushim_line l = { my_pid, tid, (uint64_t)((double)(t0 - cushim_start_ticks) * cushim_ns_per_tick / 1e3),
					 (uint64_t)((double)(t1 - t0) * cushim_ns_per_tick), i, r, argv, NULL };
		cushim_log_write(tmp, cushim_format_line(tmp, sizeof tmp, &l));
	}
	if (timeline)
		cushim_timeline_direct(tid, i, r, t0, t1, argv);
}

/* Every call but a successful one recorded in a ring its thread has. */
static __attribute__((noinline)) void trace_rest(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1,
						 const uint64_t *argv)
{
	if (__builtin_expect(r == CUDA_ERROR_NOT_INITIALIZED, 0) && cushim_fork_watch)
		cushim_fork_failed(i);
	if (!cushim_hot.tracing)
		return; /* only a forked child's watch (explain-fork.c) sent it here */
	if (cushim_hot.recording && !cushim_record(i, desc, r, t0, t1, argv))
		write_direct(i, r, t0, t1, argv);
	if (__builtin_expect(cushim_sticky_code(r), 0))
		cushim_sticky(i, r, t1, cushim_hot.recording);
}

/* The usual call first, in few instructions and no frame: a launch's work
 * in the driver leaves cushim's code cold too. */
void cushim_trace_call(unsigned i, unsigned desc, CUresult r, uint64_t t0, uint64_t t1, const uint64_t *argv)
{
	if (__builtin_expect(r == CUDA_SUCCESS && cushim_hot.recording && cushim_hot.tracing && CUSHIM_ME.g, 1)) {
		cushim_record_in(i, desc, r, t0, t1, argv);
		return;
	}
	trace_rest(i, desc, r, t0, t1, argv);
}

/* A forked child's watch (explain-fork.c): its failed calls reach
 * cushim_trace_call, whether or not it traces. */
void cushim_trace_failures(void)
{
	if (!cushim_hot.lines)
		cushim_hot.lines = 1;
}

/* ---- reading the rings ---- */
#define MAX_READERS 4096
struct reader {
	struct cushim_ring *g;
	struct cushim_cursor c;
	int tl_tid; /* the thread the timeline has named for this ring */
};
static struct reader *readers; /* the drain owner's alone */
static size_t nreaders;
static uint64_t lost_total;
static char *text_out, *tl_out;
static size_t text_len, tl_len;
static int drain_owner; /* the thread reading the rings; 0: none */

static struct reader *reader_of(struct cushim_ring *g)
{
	for (size_t k = 0; k < nreaders; k++)
		if (readers[k].g == g)
			return &readers[k];
	if (nreaders == MAX_READERS)
		return NULL;
	struct reader *rd = &readers[nreaders++];
	rd->g = g, rd->tl_tid = 0;
	uint64_t floor = __atomic_load_n(&g->floor, __ATOMIC_ACQUIRE); /* past what a fork or an exit made forgotten */
	rd->c.cell = CUSHIM_CELLS(floor), rd->c.serial = CUSHIM_SERIAL(floor), rd->c.lost = 0;
	return rd;
}

/* What text_out holds, written: at most PIPE_BUF at a time, cut at a
 * line's end, where the log is no file, so that lines never tear. */
static void flush_text(void)
{
	size_t off = 0;
	while (off < text_len) {
		size_t n = text_len - off;
		if (n > 4096 && !log_is_file) {
			n = 4096;
			while (n > 0 && text_out[off + n - 1] != '\n')
				n--;
			if (n == 0)
				n = 4096;
		}
		cushim_log_write(text_out + off, n);
		off += n;
	}
	text_len = 0;
	if (tl_len)
		cushim_timeline_write(tl_out, tl_len);
	tl_len = 0;
}

static void emit(struct reader *rd, const struct cushim_rec *r)
{
	struct cushim_strarg sa = { r->str_arg, r->str_state, r->str };
	const struct cushim_strarg *s = r->str_arg >= 0 ? &sa : NULL;
	if (text_lines > 1 || (text_lines && r->result != CUDA_SUCCESS)) {
		struct cushim_line l = { my_pid, rd->g->tid,
					 (uint64_t)((double)(r->t0 - cushim_start_ticks) * cushim_ns_per_tick / 1e3),
					 (uint64_t)((double)(r->t1 - r->t0) * cushim_ns_per_tick), r->fn, r->result, r->argv,
					 s };
		if (OUT_SIZE - text_len < 2048)
			flush_text();
		text_len += cushim_format_line(text_out + text_len, 2048, &l);
	}
	if (timeline) {
		if (OUT_SIZE - tl_len < CUSHIM_TL_EVENT_MAX)
			flush_text();
		tl_len += cushim_timeline_event(tl_out + tl_len, CUSHIM_TL_EVENT_MAX, &rd->tl_tid, rd->g->tid, r->fn,
						r->result, r->t0, r->t1, r->argv, s);
	}
}

static int read_ring(struct cushim_ring *g, int tid, void *ctx)
{
	struct reader *rd = reader_of(g);
	struct cushim_rec r;
	(void)tid, (void)ctx;
	if (!rd)
		return 0;
	uint64_t before = rd->c.lost;
	int done = __atomic_load_n(&g->retired, __ATOMIC_ACQUIRE);
	while (cushim_ring_read(g, &rd->c, &r))
		if (r.fn < CUSHIM_NSYMS)
			emit(rd, &r);
	lost_total += rd->c.lost - before;
	if (done) { /* its thread exited before this read began: all of it is read */
		flush_text();
		rd->tl_tid = 0;
		cushim_ring_release(g, &rd->c);
	}
	return 0;
}

/* The rings read to their ends, into the trace and the timeline. */
static void drain(void)
{
	if (reading) {
		cushim_rings_each(read_ring, NULL);
		flush_text();
	}
}

/* The right to read the rings, within wait_ms (0: only if free): 1 when
 * had.  Never waited for by the thread that holds it. */
static int take_drain(int wait_ms)
{
	int me = (int)syscall(SYS_gettid);
	struct timespec nap = { 0, 200000 };
	for (int k = 0;; k++) {
		int was = 0;
		if (__atomic_compare_exchange_n(&drain_owner, &was, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
		if (was == me || k * 200 >= wait_ms * 1000)
			return 0;
		nanosleep(&nap, NULL);
	}
}

static void give_drain(void)
{
	__atomic_store_n(&drain_owner, 0, __ATOMIC_RELEASE);
}

/* Read the rings, with every signal blocked, within wait_ms. */
static void drain_now(int wait_ms)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (take_drain(wait_ms)) {
		drain();
		give_drain();
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A thread's exit: the rings read now, on this thread, so that what it did
 * is written as it ends. */
static void drain_on_this_thread(void)
{
	drain_now(1000);
}

/* ---- the writer thread ---- */
static int writer_stop;

static void *writer(void *arg)
{
	struct timespec nap = { 0, 2000000 }; /* 2 ms: a ring of 16384 cells holds more at a launch's pace */
	(void)arg;
	while (!__atomic_load_n(&writer_stop, __ATOMIC_ACQUIRE)) {
		/* a nap, even while calls come: reading right behind a thread that
		 * writes would take its cache lines from under it at every call */
		nanosleep(&nap, NULL);
		if (take_drain(0)) {
			drain();
			give_drain();
		}
	}
	return NULL;
}

/* The writer, with every signal blocked (it runs none of the program's
 * handlers).  Started where tracing starts; a child forked from a
 * process of threads has none. */
static void start_writer(void)
{
	pthread_attr_t a;
	pthread_t t;
	sigset_t all, old;
	if (__atomic_exchange_n(&writer_started, 1, __ATOMIC_ACQ_REL))
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, writer, NULL) != 0)
		cushim_log(CUSHIM_LOG_WARN, "cannot start the trace's writer thread: the trace and the timeline are "
			   "written at fork, exec and exit only");
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- fork, exec, exit, a crash ---- */
static int fork_drained, lone_at_fork;

/* Whether this thread is the process's only one: /proc counts a process's
 * threads in the links of its task folder (2 + threads).  Without /proc,
 * no: the safe answer for what a forked child may start. */
static int lone_thread(void)
{
	struct stat st;
	return stat("/proc/self/task", &st) == 0 && st.st_nlink == 3;
}

void cushim_trace_prefork(void)
{
	cushim_run_prefork();
	if (!cushim_hot.tracing) {
		/* tracing may start in the child: it may have a writer only
		 * where the parent had no other thread */
		lone_at_fork = lone_thread();
		return;
	}
	fork_drained = 0;
	if (reading) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		fork_drained = take_drain(100);
		if (fork_drained)
			drain(); /* what the parent recorded before the fork, written by the parent */
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
}

/* In the child, only this thread lives on: the rings and counters hold the
 * parent's, and no writer runs. */
static void child_state(void)
{
	for (struct cblock *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next) {
		memset(b->c, 0, sizeof b->c);
		if (b != my_block)
			b->free = 1;
	}
	memset(retired, 0, sizeof retired);
	cushim_recorder_forked();
	nreaders = 0;
	lost_total = 0;
	text_len = tl_len = 0;
	drain_owner = 0;
	/* No writer thread in a child forked from a process of threads (a thread
	 * started there is beyond what POSIX allows, and ThreadSanitizer
	 * refuses it): the child's rings are read at its threads' exits, at
	 * fork, exec and exit; what a ring overwrites before then is counted. */
	writer_started = 1;
}

void cushim_trace_postfork(int child)
{
	if (child)
		cushim_run_forked();
	if (!cushim_hot.tracing) {
		if (child && !lone_at_fork)
			writer_started = 1; /* as child_state says */
		return;
	}
	if (child) {
		child_state();
		my_pid = getpid();
		cushim_log_reopen_child();
		cushim_timeline_child();
		cushim_summary_forked();
		cushim_recfile_forked();
	} else if (fork_drained) {
		give_drain();
	}
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
	pthread_mutex_lock(&count_lock);
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++) {
		struct counters c = retired[i];
		for (struct cblock *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next) {
			c.calls += b->c[i].calls, c.errors += b->c[i].errors, c.ticks += b->c[i].ticks;
			c.max = b->c[i].max > c.max ? b->c[i].max : c.max;
		}
		if (c.calls) {
			rows[n].i = i, rows[n].c = c, n++;
			*calls += c.calls;
		}
	}
	pthread_mutex_unlock(&count_lock);
	return n;
}

/* Records the writer never read, said once: on the log, in the timeline and the summary. */
static void say_lost(uint64_t lost)
{
	char text[400];
	static int said;
	if (!lost || said++)
		return;
	snprintf(text, sizeof text, "%llu call%s not in the trace or the timeline: %s thread's ring (%d records at "
		 "least) was overwritten before the writer read it, or no ring could be made for it",
		 (unsigned long long)lost, lost == 1 ? " is" : "s are", lost == 1 ? "its" : "their", 1 << (RING_LOG2 - 2));
	cushim_cause("dropped", text);
}

static int exiting; /* the exit has begun: an exec after it has nothing to add */

/* What the rings hold written, the timeline closed, the summary (rows
 * mapped: an exec may come from a signal handler), the record file. */
static int exec_held; /* an exec took the rings from the writer: given back if it fails */

static void write_all(int at_exec, int wait_ms)
{
	size_t size = CUSHIM_NSYMS * sizeof(struct cushim_summary_row);
	struct cushim_summary_row *rows = NULL;
	uint64_t calls = 0;
	unsigned n = 0;
	sigset_t all, old;

	/* The rings read a last time, and kept from the writer from then on,
	 * so that it writes nothing into a timeline being closed. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int had = take_drain(wait_ms);
	if (had) {
		drain();
		say_lost(lost_total + cushim_recorder_lost());
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	exec_held = at_exec && had;
	if (at_exec)
		cushim_timeline_exec(1);
	else
		cushim_timeline_finish();
	if (cushim_conf.summary &&
	    (rows = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
		n = collect_rows(rows, &calls);
		qsort(rows, n, sizeof *rows, by_total); /* most time first */
		cushim_summary_write(rows, n, calls, cushim_ns_per_tick, log_is_file, at_exec);
		munmap(rows, size);
	}
	cushim_recfile_dump();
	cushim_recfile_report();
}

/* At exit.  A process that ends with _exit (Python's fork and forkserver
 * workers) runs no destructor: its timeline stays cut and its summary file
 * empty, as a killed one's; its record file holds what the last dump wrote. */
__attribute__((destructor)) static void cushim_trace_exit(void)
{
	if (!cushim_hot.tracing)
		return;
	__atomic_store_n(&exiting, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELEASE);
	write_all(0, 2000);
}

/* ---- exec (exec.c) ---- */
/* Before the process image is replaced: every thread's records read into
 * the trace and the timeline, the timeline closed and the summary written,
 * as at exit.  The summary's file stays open: if the exec fails, the exit
 * writes it again.  A vfork child (another pid in its parent's memory) has
 * nothing of its own here. */
void cushim_trace_exec(void)
{
	if (!cushim_hot.tracing || __atomic_load_n(&exiting, __ATOMIC_RELAXED) || getpid() != my_pid)
		return;
	write_all(1, 100);
}

/* The exec returned, so failed: the process goes on, and its timeline with
 * it; the writer has the rings again. */
void cushim_trace_exec_failed(void)
{
	if (cushim_hot.tracing && !__atomic_load_n(&exiting, __ATOMIC_RELAXED) && getpid() == my_pid) {
		cushim_timeline_exec(0);
		if (exec_held)
			exec_held = 0, give_drain();
	}
}

/* A crash: the last records read into the trace and the timeline, as far
 * as a signal handler may (the writer may hold them: then the record file
 * alone has them). */
static void on_crash(void)
{
	if (take_drain(50)) {
		drain();
		give_drain();
	}
}

void cushim_trace_start(void)
{
	struct stat st;
	cushim_run_start();
	cushim_stamp_calibrate();
	my_pid = getpid();
	log_is_file = fstat(cushim_log_fd(), &st) == 0 && S_ISREG(st.st_mode);
	text_lines = cushim_conf.level >= CUSHIM_LOG_TRACE ? 2 : cushim_conf.level >= CUSHIM_LOG_ERRORS ? 1 : 0;
	timeline = cushim_timeline_start();
	cushim_summary_claim();
	reading = text_lines || timeline;
	cushim_hot.recording = reading || cushim_conf.record;
	cushim_hot.lines = cushim_hot.recording ? 2 : 1; /* the summary alone: failed calls, for a sticky error */
	cushim_hot.summary = cushim_conf.summary != 0;
	pthread_key_create(&count_key, block_retire);
	if (cushim_hot.recording) {
		void *out = reading ? mmap(NULL, 2 * OUT_SIZE + MAX_READERS * sizeof *readers, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
		if (out == MAP_FAILED)
			reading = 0, out = NULL;
		if (out)
			text_out = out, tl_out = text_out + OUT_SIZE, readers = (struct reader *)(void *)(tl_out + OUT_SIZE);
		cushim_recorder_start(RING_LOG2, reading ? drain_on_this_thread : NULL);
		cushim_recfile_start(cushim_conf.record_file);
		cushim_crash_watch(on_crash);
	}
	cushim_hot.tracing = 1;
	if (reading)
		start_writer();
}
