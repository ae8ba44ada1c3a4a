/* The exit summary (CUSHIM_SUMMARY): per function, the calls, errors and
 * times the threads counted (trace.c collects them).  FILE.json is claimed
 * when tracing starts, so that a run's first process owns the name however
 * late it exits (outputs.c); a forked child claims its own at exit, and
 * writes none when it made no call.  The text is made in memory and written
 * at once: the JSON file whole, the table with one write(2) where the log is
 * a file.  A JSON file that cannot be written (a full disk) is left empty,
 * said once, and the table goes to the log instead, as for a name that
 * cannot be opened. */
#include "table.h"
#include "conf.h"
#include "outputs.h"
#include "runmark.h"
#include "log.h"
#include "trace.h"
#include "summary.h"
#include "explain.h"
#include "jsonstr.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int summary_fd = -1;
static char summary_path[4096];
static int forked;
static int lost_said;

void cushim_summary_claim(void)
{
	if (cushim_conf.summary == 2)
		summary_fd = cushim_output_open("CUSHIM_SUMMARY", cushim_conf.summary_file, 0, summary_path,
						sizeof summary_path);
}

void cushim_summary_forked(void)
{
	if (summary_fd >= 0)
		close(summary_fd); /* the parent's, still locked by the parent */
	summary_fd = -1;
	forked = 1;
	lost_said = 0;
}

struct text {
	char *p;
	size_t left;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->p, t->left, fmt, ap);
	va_end(ap);
	if (n > 0) {
		size_t m = (size_t)n < t->left ? (size_t)n : t->left ? t->left - 1 : 0;
		t->p += m, t->left -= m;
	}
}

static void json(struct text *t, const struct cushim_summary_row *rows, unsigned n, uint64_t calls, double ns)
{
	char run[CUSHIM_RUN_ID_MAX];

	add(t, "{\"pid\": %d, \"program\": \"", (int)getpid());
	size_t m = cushim_json_escape(t->p, t->left, program_invocation_short_name);
	t->p += m, t->left -= m;
	cushim_run_id(run, sizeof run);
	add(t, "\", \"run\": \"%s\", \"calls\": %" PRIu64 ", \"functions\": [", run, calls);
	for (unsigned k = 0; k < n; k++) {
		const struct cushim_counters *c = &rows[k].c;
		add(t, "%s\n  {\"name\": \"%s\", \"calls\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"total_ns\": %.0f, "
		    "\"mean_ns\": %.1f, \"max_ns\": %.0f}", k ? "," : "", cushim_syms[rows[k].i].name, c->calls,
		    c->errors, (double)c->ticks * ns, (double)c->ticks * ns / (double)c->calls, (double)c->max * ns);
	}
	add(t, "\n]");
	m = cushim_causes_json(t->p, t->left);
	t->p += m, t->left -= m;
	add(t, "}\n");
}

static void table(struct text *t, const struct cushim_summary_row *rows, unsigned n, uint64_t calls, double ns)
{
	add(t, "cushim: summary of pid %d: %u functions, %" PRIu64 " calls\ncushim: %10s %8s %12s %10s %10s  %s\n",
	    (int)getpid(), n, calls, "calls", "errors", "total ms", "mean us", "max us", "function");
	for (unsigned k = 0; k < n; k++) {
		const struct cushim_counters *c = &rows[k].c;
		add(t, "cushim: %10" PRIu64 " %8" PRIu64 " %12.3f %10.3f %10.3f  %s\n", c->calls, c->errors,
		    (double)c->ticks * ns / 1e6, (double)c->ticks * ns / 1e3 / (double)c->calls,
		    (double)c->max * ns / 1e3, cushim_syms[rows[k].i].name);
	}
}

/* The table on the log in one write where the log is a file, so that the
 * rows of processes sharing it stay together; a pipe takes PIPE_BUF at
 * once, so there it is cut at lines. */
static void to_log(const char *buf, size_t len, int log_is_file)
{
	for (size_t off = 0; off < len;) {
		size_t m = len - off;
		if (m > 4096 && !log_is_file) {
			m = 4096;
			while (m > 1 && buf[off + m - 1] != '\n')
				m--;
		}
		cushim_log_write(buf + off, m);
		off += m;
	}
}

void cushim_summary_write(const struct cushim_summary_row *rows, unsigned n, uint64_t calls, double ns_per_tick,
			  int log_is_file, int keep)
{
	size_t size = 512 + (size_t)n * 256 + CUSHIM_CAUSES_JSON_MAX;
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct text t = { buf, size };

	if (buf == MAP_FAILED)
		return;
	if (cushim_conf.summary == 2 && !(forked && calls == 0)) {
		if (summary_fd < 0)
			cushim_summary_claim();
		json(&t, rows, n, calls, ns_per_tick);
		if (summary_fd < 0) {
			cushim_log(CUSHIM_LOG_WARN, "cannot write CUSHIM_SUMMARY file %s; summary on the log instead",
				   summary_path);
		} else if (ftruncate(summary_fd, 0) != 0 || cushim_write_all(summary_fd, buf, (size_t)(t.p - buf)) != 0) {
			int e = errno;
			/* No half summary: cushim summary calls an empty file one whose process did not end. */
			while (ftruncate(summary_fd, 0) != 0 && errno == EINTR)
				;
			cushim_log_lost(&lost_said, "cannot write CUSHIM_SUMMARY file %s: %s; summary on the log instead",
					summary_path, strerror(e));
		} else {
			t.p = NULL;
		}
		if (summary_fd >= 0 && !keep) {
			close(summary_fd);
			summary_fd = -1;
		}
	}
	if (t.p && !(cushim_conf.summary == 2 && forked && calls == 0)) {
		t = (struct text){ buf, size };
		table(&t, rows, n, calls, ns_per_tick);
		to_log(buf, (size_t)(t.p - buf), log_is_file);
	}
	munmap(buf, size);
}
