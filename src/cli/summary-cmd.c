/* cushim summary: the CUSHIM_SUMMARY=FILE.json files of a run's processes
 * as one: per function, the calls, errors and times added up over them (the
 * longest call: the longest of any), as a table or --json, with how many
 * processes and which pids were read. */
#include "table.h"
#include "config.h"
#include "cli.h"
#include "jsonread.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 4096
#define MAX_RUNS 16
struct fn_row {
	char name[128];
	double calls, errors, total_ns, max_ns;
};
struct total {
	struct fn_row rows[CUSHIM_NSYMS];
	int n, files;
	long pids[MAX_FILES];
	char runs[MAX_RUNS][48];
	int nruns;
	double calls, errors;
};

static void add_row(struct total *t, const char *name, const struct jv *f)
{
	int k;
	for (k = 0; k < t->n && strcmp(t->rows[k].name, name) != 0; k++)
		;
	if (k == t->n) {
		if (t->n == CUSHIM_NSYMS)
			return;
		memset(&t->rows[k], 0, sizeof t->rows[k]);
		snprintf(t->rows[t->n++].name, sizeof t->rows[k].name, "%s", name);
	}
	struct fn_row *r = &t->rows[k];
	double calls = jv_num(f, "calls", 0), errors = jv_num(f, "errors", 0), max = jv_num(f, "max_ns", 0);
	r->calls += calls, r->errors += errors, r->total_ns += jv_num(f, "total_ns", 0);
	if (max > r->max_ns)
		r->max_ns = max;
	t->calls += calls, t->errors += errors;
}

/* One process's summary added to t; why it is not one. */
static const char *add_doc(struct total *t, const struct jv *doc)
{
	const struct jv *fns = jv_get(doc, "functions"), *run = jv_get(doc, "run");
	double pid = jv_num(doc, "pid", -1);

	if (doc->type != JV_OBJ || pid < 0 || !fns || fns->type != JV_ARR)
		return "it has no \"pid\" and \"functions\" (is it a CUSHIM_SUMMARY file?)";
	for (size_t k = 0; k < fns->n; k++) {
		const struct jv *name = jv_get(&fns->items[k], "name");
		if (!name || name->type != JV_STR || jv_num(&fns->items[k], "calls", -1) < 0)
			return "a function without a name or calls";
	}
	for (size_t k = 0; k < fns->n; k++)
		add_row(t, jv_get(&fns->items[k], "name")->str, &fns->items[k]);
	if (t->files < MAX_FILES)
		t->pids[t->files] = (long)pid;
	t->files++;
	if (run && run->type == JV_STR) {
		int k;
		for (k = 0; k < t->nruns && strcmp(t->runs[k], run->str) != 0; k++)
			;
		if (k == t->nruns && k < MAX_RUNS)
			snprintf(t->runs[t->nruns++], sizeof t->runs[0], "%s", run->str);
	}
	return NULL;
}

static int add_file(struct total *t, const char *path)
{
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type);
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	const char *why = NULL;
	struct jv doc;
	ssize_t r = 0;

	if (fd < 0 || !buf) {
		cli_error("%s: %s", path, type ? type : strerror(errno));
		if (fd >= 0)
			close(fd);
		free(buf);
		return CLI_ERROR;
	}
	while (buf && (r = read(fd, buf + len, cap - len)) > 0)
		if ((len += (size_t)r) == cap)
			buf = realloc(buf, cap *= 2);
	close(fd);
	if (!buf || r < 0) {
		cli_error("%s: %s", path, buf ? strerror(errno) : "out of memory");
		free(buf);
		return CLI_ERROR;
	}
	if (len == 0)
		cli_error("%s is empty: its process has not ended, or did not exit normally (killed, _exit, exec), so it "
			  "wrote no summary", path);
	else if (jv_parse(buf, len, &doc, &why) != 0 || (why = add_doc(t, &doc)))
		cli_error("%s: not a summary cushim can read: %s", path, why);
	if (len)
		jv_free(&doc);
	free(buf);
	return len == 0 ? CLI_FAIL : why ? CLI_ERROR : CLI_OK;
}

static int by_total(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : strcmp(x->name, y->name);
}

static int by_pid(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static void print_pids(const struct total *t)
{
	for (int k = 0; k < t->files && k < MAX_FILES; k++)
		printf("%s%ld", k ? ", " : "", t->pids[k]);
}

static void print_table(const struct total *t)
{
	printf("%d processes (pids ", t->files);
	print_pids(t);
	printf("): %d functions, %.0f calls, %.0f errors\n", t->n, t->calls, t->errors);
	printf("%10s %8s %12s %10s %10s  %s\n", "calls", "errors", "total ms", "mean us", "max us", "function");
	for (int k = 0; k < t->n; k++) {
		const struct fn_row *r = &t->rows[k];
		printf("%10.0f %8.0f %12.3f %10.3f %10.3f  %s\n", r->calls, r->errors, r->total_ns / 1e6,
		       r->calls ? r->total_ns / 1e3 / r->calls : 0, r->max_ns / 1e3, r->name);
	}
}

static void print_json(const struct total *t)
{
	printf("{\"processes\": %d, \"pids\": [", t->files);
	print_pids(t);
	printf("], \"runs\": [");
	for (int k = 0; k < t->nruns; k++) {
		fputs(k ? ", " : "", stdout);
		cushim_json_print(stdout, t->runs[k]);
	}
	printf("], \"calls\": %.0f, \"errors\": %.0f, \"functions\": [", t->calls, t->errors);
	for (int k = 0; k < t->n; k++) {
		const struct fn_row *r = &t->rows[k];
		printf("%s\n  {\"name\": ", k ? "," : "");
		cushim_json_print(stdout, r->name);
		printf(", \"calls\": %.0f, \"errors\": %.0f, \"total_ns\": %.0f, \"mean_ns\": %.1f, \"max_ns\": %.0f}",
		       r->calls, r->errors, r->total_ns, r->calls ? r->total_ns / r->calls : 0, r->max_ns);
	}
	printf("\n]}\n");
}

int cmd_summary(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "merge", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct total t;
	int c, json = 0, rc = CLI_OK;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'j') {
			json = 1;
		} else if (c == 'h') {
			printf("Usage: cushim summary [--json] FILE...\n");
			return CLI_OK;
		} else if (c != 'm') {
			cli_error("usage: cushim summary [--json] FILE...");
			return CLI_ERROR;
		}
	}
	if (optind >= argc) {
		cli_error("summary needs a FILE: cushim summary [--json] FILE...");
		return CLI_ERROR;
	}
	for (int k = optind; k < argc; k++) {
		int r = add_file(&t, argv[k]);
		rc = r > rc ? r : rc;
	}
	if (rc == CLI_ERROR)
		return rc;
	qsort(t.rows, (size_t)t.n, sizeof *t.rows, by_total);
	qsort(t.pids, (size_t)(t.files < MAX_FILES ? t.files : MAX_FILES), sizeof *t.pids, by_pid);
	if (t.nruns > 1)
		cli_note("the files come from %d runs (an earlier run's files among them?): %s, %s%s", t.nruns,
			 t.runs[0], t.runs[1], t.nruns > 2 ? ", ..." : "");
	if (json)
		print_json(&t);
	else
		print_table(&t);
	return rc;
}
