/* cushim trace FILE...: a record file (CUSHIM_RECORD, cushim run --record)
 * as the text trace the library writes live, every thread's records in the
 * order they began, with the reader and the formatting the library uses
 * (records.c, callfmt.c).  A file made with another table of exports (another
 * cushim) is refused by name: its function numbers would mean other
 * functions here. */
#include "config.h"
#include "cli.h"
#include "records.h"
#include "callfmt.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct decoded {
	struct cushim_rec rec;
	int tid;
};

struct recfile {
	int pid;
	double ns_per_tick;
	uint64_t start_ticks;
	struct decoded *d;
	size_t n, cap;
	uint64_t lost;
};

/* "KEY N N N" from the text at *p: how many numbers; *p past the line. */
static int line(const char **p, const char *end, const char *key, uint64_t *v, int max)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t k = strlen(key);
	int n = 0;
	if (!nl || (size_t)(nl - *p) < k || memcmp(*p, key, k) != 0)
		return -1;
	for (const char *q = *p + k; q < nl && n < max; n++) {
		char *e;
		int hex = strcmp(key, "table ") == 0 ? n == 2 : strcmp(key, "clock ") == 0 ? n == 0 : 0;
		v[n] = strtoull(q, &e, hex ? 16 : 10);
		if (e == q)
			break;
		q = e;
	}
	*p = nl + 1;
	return n;
}

static int keep(struct recfile *f, const struct cushim_rec *r, int tid)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 1024;
		struct decoded *d = realloc(f->d, cap * sizeof *d);
		if (!d)
			return -1;
		f->d = d, f->cap = cap;
	}
	f->d[f->n].rec = *r;
	f->d[f->n++].tid = tid;
	return 0;
}

/* One ring of the file at *p: its records kept; -1 where it is cut short. */
static int read_ring(struct recfile *f, const char **p, const char *end)
{
	uint64_t v[3];
	if (line(p, end, "ring ", v, 3) != 3 || v[1] < 6 || v[1] > 30)
		return -1;
	size_t bytes = sizeof(struct cushim_cell) << v[1];
	if ((size_t)(end - *p) < bytes)
		return -1;
	struct cushim_ring *g = malloc(sizeof *g + bytes);
	if (!g)
		return -1;
	memset(g, 0, sizeof *g);
	g->mask = (1ull << v[1]) - 1, g->reserved = v[2];
	memcpy(g->cells, *p, bytes);
	*p += bytes;
	struct cushim_cursor c;
	struct cushim_rec r;
	cushim_cursor_oldest(g, &c);
	while (cushim_ring_read(g, &c, &r))
		if (r.fn < CUSHIM_NSYMS && keep(f, &r, (int)v[0]) != 0)
			break;
	f->lost += c.lost;
	free(g);
	return 0;
}

/* The whole file at path into *buf: its size, or -1 with the message said. */
static long slurp(const char *path, char **buf)
{
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type);
	if (fd < 0) {
		cli_error("%s: %s", path, type ? type : strerror(errno));
		return -1;
	}
	*buf = malloc((size_t)st.st_size + 1);
	ssize_t got = *buf ? (ssize_t)cli_read_full(fd, *buf, (size_t)st.st_size) : -1; /* a read may come short */
	close(fd);
	if (got != st.st_size) {
		cli_error("%s: cannot be read: %s", path, got < 0 ? strerror(errno) : "it is shorter than it was");
		free(*buf);
		return -1;
	}
	return (long)got;
}

/* The header: 0, or -1 with the message said. */
static int header(const char *path, struct recfile *f, const char **p, const char *end)
{
	uint64_t v[3];
	if ((size_t)(end - *p) < 16 || memcmp(*p, "cushim-record 1\n", 16) != 0) {
		cli_error("%s: not a cushim record file (it does not begin \"cushim-record 1\")", path);
		return -1;
	}
	*p += 16;
	if (line(p, end, "pid ", v, 1) != 1)
		goto bad;
	f->pid = (int)v[0];
	if (line(p, end, "driver ", v, 1) != 1 || line(p, end, "table ", v, 3) != 3)
		goto bad;
	if (v[1] != CUSHIM_NSYMS || v[2] != cushim_table_digest()) {
		cli_error("%s: recorded by a cushim whose table of exports is another (CUDA %d.%d, %llu exports); decode it "
			  "with that cushim", path, (int)(v[0] / 1000), (int)(v[0] % 1000 / 10), (unsigned long long)v[1]);
		return -1;
	}
	if (line(p, end, "clock ", v, 3) != 3)
		goto bad;
	memcpy(&f->ns_per_tick, &v[0], sizeof f->ns_per_tick);
	f->start_ticks = v[1];
	return 0;
bad:
	cli_error("%s: its header is cut short or damaged", path);
	return -1;
}

static int by_start(const void *a, const void *b)
{
	const struct decoded *x = a, *y = b;
	return x->rec.t0 < y->rec.t0 ? -1 : x->rec.t0 > y->rec.t0;
}

static void print_lines(const struct recfile *f)
{
	char buf[4096];
	for (size_t k = 0; k < f->n; k++) {
		const struct cushim_rec *r = &f->d[k].rec;
		struct cushim_strarg sa = { r->str_arg, r->str_state, r->str };
		struct cushim_line l = { f->pid, f->d[k].tid,
					 (uint64_t)((double)(r->t0 - f->start_ticks) * f->ns_per_tick / 1e3),
					 (uint64_t)((double)(r->t1 - r->t0) * f->ns_per_tick), r->fn, r->result, r->argv,
					 r->str_arg >= 0 ? &sa : NULL };
		fwrite(buf, 1, cushim_format_line(buf, sizeof buf, &l), stdout);
	}
}

static int decode_file(const char *path)
{
	struct recfile f = { 0 };
	char *buf = NULL;
	long n = slurp(path, &buf);
	if (n < 0)
		return 2;
	const char *p = buf, *end = buf + n;
	int rc = header(path, &f, &p, end);
	while (rc == 0 && (size_t)(end - p) >= 4 && memcmp(p, "end\n", 4) != 0)
		if (read_ring(&f, &p, end) != 0) {
			cli_error("%s: cut short in its rings (the process was killed while writing it?): what came "
				  "before is decoded", path);
			rc = 1;
		}
	if (rc >= 0 && f.n) {
		qsort(f.d, f.n, sizeof *f.d, by_start);
		print_lines(&f);
	}
	if (f.lost)
		cli_note("%s: %llu records were overwritten in their ring before the file was written", path,
			 (unsigned long long)f.lost);
	free(f.d);
	free(buf);
	return rc < 0 ? 2 : rc;
}

int cmd_trace(int argc, char **argv)
{
	int rc = 0;
	cushim_records_init();
	if (argc < 2) {
		cli_error("trace: name a record file (CUSHIM_RECORD=FILE, cushim run --record=FILE)");
		return 2;
	}
	for (int k = 1; k < argc; k++) {
		int r = decode_file(argv[k]);
		rc = r > rc ? r : rc;
	}
	return rc;
}
