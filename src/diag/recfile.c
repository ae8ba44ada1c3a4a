/* The record file (CUSHIM_RECORD=FILE): every thread's ring as it stands,
 * written at exit, at exec and on a crash (SIGSEGV, SIGBUS, SIGABRT,
 * SIGFPE, SIGILL), each time over the last, so that the file holds the
 * latest records.  `cushim trace FILE` decodes it with the same reader
 * (records.c).  The file is opened once when recording starts (a forked
 * child opens one of its own); a dump is pwrite and ftruncate alone, safe
 * in a signal handler, and takes no lock: a ring another thread is writing
 * meanwhile is read back by its tags, whole records only.
 *
 * The format: text lines, then each ring's cells as they are in memory:
 *   cushim-record 1
 *   pid PID
 *   driver VERSION
 *   table VERSION NSYMS DIGEST        (the exports' names, FNV-1a)
 *   clock NS_PER_TICK_BITS START_TICKS START_NS
 *   ring TID CELLS_LOG2 RESERVED      (then 64 << CELLS_LOG2 bytes)
 *   end */
#include "table.h"
#include "state.h"
#include "records.h"
#include "recorder.h"
#include "recfile.h"
#include "outputs.h"
#include "conf.h"
#include "log.h"
#include "stamp.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int rec_fd = -1;
static const char *rec_value;
static char rec_path[4096];
static off_t at;
static int dumping;
static int put_failed; /* errno of a write that failed in the last dump; 0 none */

/* ---- writing, with nothing but pwrite ---- */
static void put(const void *p, size_t n)
{
	while (n > 0) {
		ssize_t w = pwrite(rec_fd, p, n, at);
		if (w <= 0 && errno != EINTR) {
			put_failed = w < 0 ? errno : ENOSPC;
			return;
		}
		if (w > 0)
			p = (const char *)p + w, n -= (size_t)w, at += w;
	}
}

static void put_num(uint64_t v, int hex, char sep)
{
	char buf[24];
	int k = sizeof buf;
	buf[--k] = sep;
	do {
		buf[--k] = "0123456789abcdef"[hex ? v % 16 : v % 10];
		v = hex ? v / 16 : v / 10;
	} while (v);
	put(buf + k, sizeof buf - (size_t)k);
}

static void put_line(const char *key, const uint64_t *v, int n, int hex_first)
{
	put(key, strlen(key));
	put(" ", 1);
	for (int k = 0; k < n; k++)
		put_num(v[k], hex_first && k == 0, k + 1 < n ? ' ' : '\n');
}

static int dump_ring(struct cushim_ring *g, int tid, void *ctx)
{
	uint64_t size = g->mask + 1, log2 = 0, v[3];
	while ((1ull << log2) < size)
		log2++;
	v[0] = (uint64_t)(unsigned)tid, v[1] = log2, v[2] = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	put_line("ring", v, 3, 0);
	put(g->cells, (size_t)(size * sizeof(struct cushim_cell)));
	return 0;
}

void cushim_recfile_dump(void)
{
	uint64_t v[3];
	double npt = cushim_ns_per_tick;

	if (rec_fd < 0 || __atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE))
		return;
	int saved = errno;
	at = 0;
	put_failed = 0;
	put("cushim-record 1\n", 16);
	v[0] = (uint64_t)getpid(), put_line("pid", v, 1, 0);
	v[0] = (uint64_t)(unsigned)cushim_state.real_driver_version, put_line("driver", v, 1, 0);
	v[0] = CUSHIM_TABLE_VERSION, v[1] = CUSHIM_NSYMS, v[2] = cushim_table_digest();
	put("table ", 6), put_num(v[0], 0, ' '), put_num(v[1], 0, ' '), put_num(v[2], 1, '\n');
	memcpy(&v[0], &npt, 8), v[1] = cushim_start_ticks, v[2] = cushim_trace_ns(cushim_start_ticks);
	put_line("clock", v, 3, 1);
	cushim_rings_each(dump_ring, NULL);
	put("end\n", 4);
	if (ftruncate(rec_fd, at) != 0) {
		/* the file keeps its old length: the "end" line marks where this dump ends */
	}
	errno = saved;
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

/* ---- a crash: the rings written, then the program's own handler or the
 * default action, as without cushim ---- */
static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
static struct sigaction before[sizeof fatal / sizeof *fatal];

static void (*at_crash)(void);

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	if (at_crash)
		at_crash();
	cushim_recfile_dump();
	for (size_t k = 0; k < sizeof fatal / sizeof *fatal; k++)
		if (fatal[k] == sig)
			sigaction(sig, &before[k], NULL);
	/* returning runs the faulting instruction again, or abort() raises
	 * again: now to the handler the program had, or the default action */
}

void cushim_crash_watch(void (*also)(void))
{
	struct sigaction sa;
	at_crash = also;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < sizeof fatal / sizeof *fatal; k++)
		sigaction(fatal[k], &sa, &before[k]);
}

static void open_file(void)
{
	rec_fd = cushim_output_open("CUSHIM_RECORD", rec_value, 0, rec_path, sizeof rec_path);
	if (rec_fd < 0)
		cushim_log(CUSHIM_LOG_WARN, "CUSHIM_RECORD=%s: cannot create %s: %s: the records stay in memory, for a "
			   "sticky error's explanation", rec_value, rec_path, strerror(errno));
}

void cushim_recfile_start(const char *value)
{
	if (!value)
		return;
	rec_value = value;
	open_file();
}

/* At exit or exec (not in a signal handler): a dump whose write failed, said once. */
void cushim_recfile_report(void)
{
	static int said;
	if (put_failed && !said++)
		cushim_log(CUSHIM_LOG_WARN, "cannot write CUSHIM_RECORD file %s: %s; it holds only part of the records",
			   rec_path, strerror(put_failed));
}

void cushim_recfile_forked(void)
{
	if (rec_fd < 0)
		return;
	close(rec_fd);
	open_file();
}

const char *cushim_recfile_path(void)
{
	return rec_fd >= 0 ? rec_path : NULL;
}
