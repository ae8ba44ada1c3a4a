/* cushim timeline --merge: the files of a run (one per process) as one
 * Chrome trace, each process on its own track (its pid), for Perfetto.
 * Whole events only: a file cut short or written by several processes
 * gives what it holds whole.  The merged file is no more open than its
 * inputs: created mode 0600, then given the permissions every input has
 * (0600 for the library's files).  An input that is not a regular file is
 * refused, never read (a FIFO would block). */
#include "timeline.h"
#include "config.h"
#include "cli.h"
#include "tlscan.h"
#include "timeline-merge.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct merge {
	struct tl_writer w;
	struct tl_scan all; /* pids, names and runs over every file */
	mode_t mode;        /* the permissions every input has */
};

static void take(const char *p, size_t n, void *arg)
{
	struct merge *m = arg;
	tl_put_event(p, n, &m->w);
	tl_note(&m->all, p, n);
}

/* One input's events into m; an exit status. */
static int merge_one(struct merge *m, const char *path, const struct stat *out)
{
	static struct tl_scan s;
	struct stat st;
	const char *why;
	size_t size;
	char *p;
	int rc = CLI_ERROR, fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		cli_error("%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		cli_error("%s: not a regular file: leave it out of the files to merge", path);
	} else if (out && st.st_dev == out->st_dev && st.st_ino == out->st_ino) {
		cli_error("%s is the output too: leave it out of the files to merge", path);
	} else if ((p = tl_map(path, fd, &size))) {
		m->mode &= st.st_mode & 0777;
		if (tl_scan(p, size, &s, take, m, &why) != 0) {
			cli_error("%s: not a timeline cushim can read: %s", path, why);
		} else {
			rc = CLI_OK;
			if (tl_mixed(&s))
				cli_note("%s: written by %d processes: its %zu whole events are merged", path, s.npids,
					 s.events);
			else if (s.closes != 1 || s.tail)
				cli_note("%s: cut short: its %zu whole events are merged", path, s.events);
		}
		munmap(p, size);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int tl_merge(const char *out, char **files, int n)
{
	static struct merge m;
	struct stat ost;
	char tmp[4096];
	int fd, rc = CLI_OK, have_out = stat(out, &ost) == 0;
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.merge-%ld", out, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0 || !(f = fdopen(fd, "w"))) {
		cli_error("cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CLI_ERROR;
	}
	m.w = (struct tl_writer){ f, 0 };
	m.mode = 0777;
	for (int k = 0; k < n; k++) {
		int r = merge_one(&m, files[k], have_out ? &ost : NULL);
		if (r > rc)
			rc = r;
	}
	tl_name_orphans(&m.w, &m.all);
	fputs(m.w.n ? CUSHIM_TL_CLOSE : "[" CUSHIM_TL_CLOSE, f);
	fchmod(fd, m.mode & 0600 ? m.mode : 0600); /* where it fails, 0600 stays */
	if (fclose(f) != 0 || rc != CLI_OK || rename(tmp, out) != 0) {
		if (rc == CLI_OK)
			cli_error("cannot write %s: %s", out, strerror(errno));
		unlink(tmp);
		return CLI_ERROR;
	}
	printf("%s: %zu events of %d processes (pids ", out, m.w.n, m.all.npids);
	tl_list_pids(stdout, &m.all);
	printf(") from %d files\n", n);
	if (m.all.nruns > 1)
		cli_note("the files come from %d runs (an earlier run's files among them?): %s, %s%s", m.all.nruns,
			 m.all.runs[0], m.all.runs[1], m.all.nruns > 2 ? ", ..." : "");
	return CLI_OK;
}
