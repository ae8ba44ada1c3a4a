/* cushim check's work queue (check-queue.c): the files to read, those
 * named and the tree's, then with --recursive what they need; each read and
 * judged, then reported, or kept for an environment's one report.  An
 * environment without --recursive has its files read on every core. */
#ifndef CUSHIM_CLI_CHECK_QUEUE_H
#define CUSHIM_CLI_CHECK_QUEUE_H
#include "check-steps.h"
#include "check-tree.h"

struct job {
	char *path, *shown, *needed_by, *rpath_chain;
	int in_tree; /* found in a folder named: what it needs is looked for in the tree */
};

struct work {
	struct job *jobs;
	size_t njobs, cap;
	char **seen;
	size_t nseen;
	int status, nfiles, any_cuda, unknown;
	struct tree tree;
	struct result *kept; /* an environment: judged first, reported after */
	size_t nkept, capkept;
	int env;
	const struct opts *o; /* what each file is compared with */
	int recursive;        /* --recursive: what each file needs is judged next */
};

/* A file to read, last in the queue: the queue owns the strings (malloc'd;
 * needed_by and chain may be NULL). */
void check_add_job(struct work *w, char *path, char *shown, char *needed_by, char *chain);
/* Job j read, judged and reported (or kept); with --recursive each file
 * once, and what it needs queued. */
void check_one(struct work *w, size_t j);
/* Every job read in parallel, then reported (or kept) in order. */
void check_all_parallel(struct work *w);
/* The results kept for an environment's report, freed. */
void check_free_kept(struct work *w);
void check_free_work(struct work *w);

#endif
