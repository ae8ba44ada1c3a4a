/* cushim timeline: is a CUSHIM_TIMELINE file complete, and --repair one that
 * a kill cut short.  The library writes the JSON array as a stream: "[" and
 * whole events, each write behind ",\n", and CUSHIM_TL_CLOSE at exit; a cut
 * file lacks the close and perhaps the tail of one write. */
#include "config.h"
#include "cli.h"
#include "cushim-internal.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct scan {
	size_t events; /* elements of the array that end */
	size_t keep;   /* where the last of them ends */
	int complete;  /* the array is closed, and nothing follows */
};

static int blank(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* Walk the array's top level, strings and nesting aside.  0, or -1 with why. */
static int scan(const char *p, size_t n, struct scan *s, const char **why)
{
	size_t k = 0;
	int depth = 1, in_str = 0, escaped = 0;

	memset(s, 0, sizeof *s);
	while (k < n && blank(p[k]))
		k++;
	if (k == n || p[k] != '[') {
		*why = "it does not begin with '[' (is it a CUSHIM_TIMELINE file?)";
		return -1;
	}
	s->keep = ++k;
	for (; k < n; k++) {
		char c = p[k];
		if (in_str) {
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c != '}' && c != ']') {
			continue;
		} else if (--depth == 1) {
			s->events++; /* an element of the array ends */
			s->keep = k + 1;
		} else if (depth == 0) {
			while (++k < n && blank(p[k]))
				;
			s->complete = k == n;
			*why = "there is more after the closing ']' (did two processes write it? name it with %p)";
			return s->complete ? 0 : -1;
		}
	}
	return 0;
}

/* Cut a cut event and close the array. */
static int repair(int fd, const struct scan *s)
{
	if (ftruncate(fd, (off_t)s->keep) != 0 || lseek(fd, 0, SEEK_END) < 0)
		return -1;
	ssize_t w = write(fd, CUSHIM_TL_CLOSE, sizeof CUSHIM_TL_CLOSE - 1);
	return w == (ssize_t)(sizeof CUSHIM_TL_CLOSE - 1) && fsync(fd) == 0 ? 0 : -1;
}

static int one_file(const char *path, int fix)
{
	int fd = open(path, (fix ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	struct stat st;
	struct scan s;
	const char *why = "it is empty";
	int rc = CLI_ERROR;

	if (fd < 0 || fstat(fd, &st) != 0) {
		cli_error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CLI_ERROR;
	}
	char *p = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (st.st_size > 0 && p == MAP_FAILED)
		why = strerror(errno);
	if (p == MAP_FAILED || scan(p, (size_t)st.st_size, &s, &why) != 0) {
		cli_error("%s: not a timeline cushim can read: %s", path, why);
	} else if (s.complete) {
		printf("%s: complete, %zu events\n", path, s.events);
		rc = CLI_OK;
	} else if (!fix) {
		printf("%s: cut short after %zu events (%zu bytes after the last); cushim timeline --repair %s "
		       "makes it valid JSON\n", path, s.events, (size_t)st.st_size - s.keep, path);
		rc = CLI_FAIL;
	} else if (repair(fd, &s) != 0) {
		cli_error("%s: cannot repair it: %s", path, strerror(errno));
	} else {
		printf("%s: repaired: %zu events kept, %zu bytes of a cut event dropped, the array closed\n", path,
		       s.events, (size_t)st.st_size - s.keep);
		rc = CLI_OK;
	}
	if (p != MAP_FAILED)
		munmap(p, (size_t)st.st_size);
	close(fd);
	return rc;
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fix = 0, rc = CLI_OK;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'r') {
			fix = 1;
		} else if (c == 'h') {
			printf("Usage: cushim timeline [--repair] FILE...\n");
			return CLI_OK;
		} else {
			cli_error("usage: cushim timeline [--repair] FILE...");
			return CLI_ERROR;
		}
	}
	if (optind >= argc) {
		cli_error("timeline needs a FILE: cushim timeline [--repair] FILE...");
		return CLI_ERROR;
	}
	for (int k = optind; k < argc; k++) {
		int r = one_file(argv[k], fix);
		if (r > rc)
			rc = r;
	}
	return rc;
}
