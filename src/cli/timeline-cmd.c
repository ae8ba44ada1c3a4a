/* cushim timeline: is a CUSHIM_TIMELINE file complete; --repair one that a
 * kill cut short or that several processes wrote; --merge the files of a
 * run into one trace, each process on its own track. */
#include "config.h"
#include "cli.h"
#include "timeline.h"
#include "tlscan.h"
#include "timeline-merge.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Cut a cut event and close the array, in place. */
static int repair_cut(int fd, const struct tl_scan *s)
{
	if (ftruncate(fd, (off_t)s->keep) != 0 || lseek(fd, 0, SEEK_END) < 0)
		return -1;
	ssize_t w = write(fd, CUSHIM_TL_CLOSE, sizeof CUSHIM_TL_CLOSE - 1);
	return w == (ssize_t)(sizeof CUSHIM_TL_CLOSE - 1) && fsync(fd) == 0 ? 0 : -1;
}

/* Every whole event as one array, a name for each process that lost its
 * own, in a new file renamed over path. */
static int repair_mixed(const char *path, const char *p, size_t n)
{
	char tmp[4096];
	struct tl_scan s;
	const char *why;
	int fd;
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.repair-%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct tl_writer w = { f, 0 };
	tl_scan(p, n, &s, tl_put_event, &w, &why);
	tl_name_orphans(&w, &s);
	fputs(w.n ? CUSHIM_TL_CLOSE : "[" CUSHIM_TL_CLOSE, f);
	int bad = fflush(f) != 0 || fsync(fd) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int report(const char *path, int fd, const char *p, size_t size, struct tl_scan *s, int fix)
{
	if (tl_mixed(s)) {
		printf("%s: written by %d processes (pids ", path, s->npids);
		tl_list_pids(stdout, s);
		printf("), not one: %d '[' and %d ']' between %zu whole events", s->opens, s->closes, s->events);
		if (!fix) {
			printf("; cushim timeline --repair %s keeps them as one valid trace, each process on its own "
			       "track (name the file with %%p, or let this cushim name each process's file)\n", path);
			return CLI_FAIL;
		}
		if (repair_mixed(path, p, size) != 0) {
			printf("\n");
			cli_error("%s: cannot repair it: %s", path, strerror(errno));
			return CLI_ERROR;
		}
		printf("; repaired: %zu events kept, %zu bytes of a cut event dropped, %d process names added for "
		       "pids whose own was overwritten\n", s->events, s->tail, s->npids - s->named);
		return CLI_OK;
	}
	if (s->closes == 1 && !s->tail) {
		printf("%s: complete, %zu events\n", path, s->events);
		return CLI_OK;
	}
	if (!fix) {
		printf("%s: cut short after %zu events (%zu bytes after the last); cushim timeline --repair %s "
		       "makes it valid JSON\n", path, s->events, size - s->keep, path);
		return CLI_FAIL;
	}
	if (repair_cut(fd, s) != 0) {
		cli_error("%s: cannot repair it: %s", path, strerror(errno));
		return CLI_ERROR;
	}
	printf("%s: repaired: %zu events kept, %zu bytes of a cut event dropped, the array closed\n", path,
	       s->events, size - s->keep);
	return CLI_OK;
}

static int one_file(const char *path, int fix)
{
	static struct tl_scan s;
	struct stat st;
	const char *why, *type;
	size_t size;
	char *p;
	int fd = cli_open_regular_as(path, fix ? O_RDWR : O_RDONLY, &st, &type), rc = CLI_ERROR;

	if (fd < 0) {
		cli_error("%s: %s", path, type ? type : strerror(errno));
		return CLI_ERROR;
	}
	if ((p = tl_map(path, fd, &size))) {
		if (tl_scan(p, size, &s, NULL, NULL, &why) != 0)
			cli_error("%s: not a timeline cushim can read: %s", path, why);
		else
			rc = report(path, fd, p, size, &s, fix);
		munmap(p, size);
	}
	close(fd);
	return rc;
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ "merge", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char use[] = "cushim timeline [--repair] FILE... | cushim timeline --merge FILE... -o OUT.json";
	int c, fix = 0, merge = 0, rc = CLI_OK;
	const char *out = NULL;

	while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		if (c == 'r') {
			fix = 1;
		} else if (c == 'm') {
			merge = 1;
		} else if (c == 'o') {
			out = optarg;
		} else if (c == 'h') {
			printf("Usage: %s\n", use);
			return CLI_OK;
		} else {
			cli_error("usage: %s", use);
			return CLI_ERROR;
		}
	}
	if (optind >= argc || merge != (out != NULL) || (merge && fix)) {
		cli_error(optind >= argc ? "timeline needs a FILE: %s" : "--merge goes with -o OUT.json, alone: %s", use);
		return CLI_ERROR;
	}
	if (merge)
		return tl_merge(out, argv + optind, argc - optind);
	for (int k = optind; k < argc; k++) {
		int r = one_file(argv[k], fix);
		if (r > rc)
			rc = r;
	}
	return rc;
}
