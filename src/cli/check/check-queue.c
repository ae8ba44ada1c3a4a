/* cushim check's work queue (check-queue.h): each file read and judged
 * (check-read.c, check-judge.c), its libraries found as the loader finds
 * them (in the tree, or with --recursive where the system has them), and
 * reported or kept for the environment's report. */
#include "config.h"
#include "check-queue.h"
#include "check-wheel.h"
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_MAX_THREADS 16

void check_add_job(struct work *w, char *path, char *shown, char *needed_by, char *chain)
{
	if (w->njobs == w->cap && !(w->jobs = realloc(w->jobs, (w->cap = w->cap * 2 + 8) * sizeof *w->jobs)))
		abort();
	w->jobs[w->njobs++] = (struct job){ path, shown, needed_by, chain, 0 };
}

/* --recursive: each file once, by its real path. */
static int seen_before(struct work *w, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return 0;
	for (size_t k = 0; k < w->nseen; k++)
		if (strcmp(w->seen[k], real) == 0)
			return 1;
	if (!(w->seen = realloc(w->seen, (w->nseen + 1) * sizeof *w->seen)))
		abort();
	w->seen[w->nseen++] = strdup(real);
	return 0;
}

static int is_driver_name(const char *n)
{
	return strcmp(n, "libcuda.so.1") == 0 || strcmp(n, "libcuda.so") == 0;
}

/* The rpath a needed library is looked up with: the file's own DT_RPATH
 * (unless it has DT_RUNPATH), then its loaders'. */
static char *rpath_chain(const struct result *r, const struct job *jb, const char *origin)
{
	char *rp = r->rpath && !r->has_runpath ? cli_ld_expand(r->rpath, origin) : NULL;
	size_t len = (rp ? strlen(rp) : 0) + (jb->rpath_chain ? strlen(jb->rpath_chain) : 0) + 2;
	char *chain = malloc(len);
	if (!chain)
		abort();
	snprintf(chain, len, "%s%s%s", rp ? rp : "", rp && jb->rpath_chain && *jb->rpath_chain ? ":" : "",
		 jb->rpath_chain ? jb->rpath_chain : "");
	free(rp);
	return chain;
}

/* --recursive: each library a file needs, found where the loader finds it,
 * is judged next.  One the loader would stop at fails the run, named. */
static void follow_needed(struct work *w, size_t j, const struct result *r)
{
	char dir[PATH_MAX], real[PATH_MAX], found[PATH_MAX], why[512];
	snprintf(dir, sizeof dir, "%s", realpath(w->jobs[j].path, real) ? real : w->jobs[j].path);
	char *origin = dirname(dir);
	char *chain = rpath_chain(r, &w->jobs[j], origin);
	char *run = r->runpath ? cli_ld_expand(r->runpath, origin) : NULL;
	for (size_t k = 0; k < r->nneeded; k++) {
		if (is_driver_name(r->needed[k]))
			continue; /* the driver itself: what this command compares with */
		char *name = cli_ld_expand(r->needed[k], origin);
		int v = cli_ld_find(name, r->has_runpath ? NULL : chain, run, found, sizeof found, why, sizeof why);
		if (v == CLI_LD_SKIPPED) {
			cli_note("%s (needed by %s) was not found where the loader looks; not checked", name, r->file);
		} else if (v == CLI_LD_STOPS) {
			cli_error("%s (needed by %s): the loader stops at %s: %s", name, r->file, found, why);
			w->status = w->status > CLI_FAIL ? w->status : CLI_FAIL;
		} else {
			check_add_job(w, strdup(found), strdup(found), strdup(r->file), strdup(r->has_runpath ? "" : chain));
		}
		free(name);
	}
	free(run);
	free(chain);
}

/* A file of a folder named: each library it needs is looked for as the
 * loader would inside the tree; what cannot be loaded is part of its
 * verdict (check-needed.c), and with --recursive what the system provides
 * is judged too. */
static void resolve_in_tree(struct work *w, size_t j, struct result *r, int recursive)
{
	char origin[PATH_MAX], found[PATH_MAX], why[512];
	check_origin(w->jobs[j].path, origin, sizeof origin);
	char *rp = r->rpath && !r->has_runpath ? cli_ld_expand(r->rpath, origin) : NULL;
	char *run = r->runpath ? cli_ld_expand(r->runpath, origin) : NULL;
	for (size_t k = 0; k < r->nneeded; k++) {
		if (is_driver_name(r->needed[k]))
			continue;
		char *name = cli_ld_expand(r->needed[k], origin);
		int v = tree_resolve(&w->tree, name, rp, run, found, sizeof found, why, sizeof why);
		if (v != CLI_LD_LOADS)
			check_add_unfound(r, name, v == CLI_LD_STOPS ? found : NULL, why);
		else if (recursive && !strstr(found, ".whl:") && !tree_has_file(&w->tree, found))
			check_add_job(w, strdup(found), strdup(found), strdup(r->file), NULL);
		free(name);
	}
	check_loads_resolve(&w->tree, r, origin, rp, run);
	free(rp);
	free(run);
}

static void report_error(const struct result *r)
{
	const char *what = r->error ? r->error : r->gpu.error;
	const char *pre = r->error ? "" : "has GPU code cushim cannot read: ";
	if (r->needed_by)
		cli_error("%s (needed by %s) %s%s", r->file, r->needed_by, pre, what);
	else
		cli_error("%s %s%s", r->file, pre, what);
}

static void keep_result(struct work *w, const struct result *r)
{
	if (w->nkept == w->capkept &&
	    !(w->kept = realloc(w->kept, (w->capkept = w->capkept * 2 + 64) * sizeof *w->kept)))
		abort();
	w->kept[w->nkept++] = *r;
}

void check_free_kept(struct work *w)
{
	for (size_t k = 0; k < w->nkept; k++)
		check_free(&w->kept[k]);
	free(w->kept);
}

/* One file read and judged: what needs no other file's result. */
static void read_one(struct work *w, size_t j, struct result *r)
{
	struct job *jb = &w->jobs[j];
	r->file = strdup(jb->shown);
	r->needed_by = jb->needed_by ? strdup(jb->needed_by) : NULL;
	check_read(r, jb->path);
	const struct tree_input *wheel = jb->in_tree ? tree_wheel_of(&w->tree, jb->path) : NULL;
	r->tag = wheel ? &wheel->tag : NULL;
	if (jb->in_tree && !r->error && r->native == 1)
		resolve_in_tree(w, j, r, w->recursive);
	if (!r->error)
		check_loads_settle(r);
	check_judge(r, w->o);
}

static void finish_one(struct work *w, size_t j, struct result *r)
{
	int st = w->env ? env_status(r) : check_status(r);
	if (r->error || r->gpu.error[0])
		report_error(r);
	if (st > w->status)
		w->status = st;
	w->any_cuda |= r->nimports > 0 || r->rt.linkage != RT_NONE;
	w->unknown += check_fit_unknown(r, w->o);
	if (w->env)
		keep_result(w, r);
	else if (w->o->json)
		check_print_json_file(r, w->o, w->nfiles == 0);
	else
		check_print_text(r, w->o);
	w->nfiles++;
	if (w->recursive && !r->error && r->native == 2)
		cli_note("%s is a binary for %s: its libraries are not looked for here", r->file, r->machine);
	else if (w->recursive && !r->error && !w->jobs[j].in_tree)
		follow_needed(w, j, r);
	if (!w->env)
		check_free(r);
}

void check_one(struct work *w, size_t j)
{
	struct result r = { 0 };
	if (w->recursive && seen_before(w, w->jobs[j].path))
		return;
	read_one(w, j, &r);
	finish_one(w, j, &r);
}

/* ---- an environment without --recursive: its files read on every core ---- */
struct pool {
	struct work *w;
	struct result *rs;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *reader(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t j = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (j >= p->n) {
			tree_wheel_close();
			return NULL;
		}
		read_one(p->w, j, &p->rs[j]);
	}
}

/* The files are read in parallel (libelf and libzip handles are each
 * thread's own), then reported in order, one thread. */
void check_all_parallel(struct work *w)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = cpus < 1 ? 1 : cpus > CHECK_MAX_THREADS ? CHECK_MAX_THREADS : (int)cpus, started = 0;
	struct pool p = { w, calloc(w->njobs ? w->njobs : 1, sizeof *p.rs), w->njobs, 0, PTHREAD_MUTEX_INITIALIZER };
	pthread_t t[CHECK_MAX_THREADS];
	if (!p.rs)
		abort();
	for (int i = 1; i < nt; i++)
		started += pthread_create(&t[started], NULL, reader, &p) == 0;
	reader(&p);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (size_t j = 0; j < p.n; j++)
		finish_one(w, j, &p.rs[j]);
	free(p.rs);
}

void check_free_work(struct work *w)
{
	for (size_t j = 0; j < w->njobs; j++) {
		free(w->jobs[j].path);
		free(w->jobs[j].shown);
		free(w->jobs[j].needed_by);
		free(w->jobs[j].rpath_chain);
	}
	free(w->jobs);
	for (size_t k = 0; k < w->nseen; k++)
		free(w->seen[k]);
	free(w->seen);
	tree_free(&w->tree);
}
