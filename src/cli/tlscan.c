/* Reading a CUSHIM_TIMELINE file for cushim timeline (timeline.c).  The library writes the JSON array as a stream: "["
 * and whole events, each write behind ",\n", and CUSHIM_TL_CLOSE at exit; a
 * cut file lacks the close and perhaps the tail of one write.  A file that
 * several processes wrote (an older cushim's, or one named by hand in two
 * programs) holds more than one '[' or ']', or the events of several pids:
 * its whole events are still whole, and each keeps its pid. */
#include "config.h"
#include "cli.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tlscan.h"

static int blank(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

enum { CUT = 0, BAD = (size_t)-1 };

/* The end of the object at p[0] == '{' (one past its '}'), CUT when the
 * input ends first, BAD when its brackets do not match or nest too deep. */
static size_t object_end(const char *p, size_t n)
{
	char open[256];
	int depth = 0, in_str = 0, escaped = 0;
	for (size_t k = 0; k < n; k++) {
		char c = p[k];
		if (in_str) {
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (depth == (int)sizeof open)
				return BAD;
			open[depth++] = c;
		} else if (c == '}' || c == ']') {
			if (open[--depth] != (c == '}' ? '{' : '['))
				return BAD;
			if (depth == 0)
				return k + 1;
		}
	}
	return CUT;
}

/* The number after "key": in an event, or -1. */
static long field_num(const char *p, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (const char *q = p; (q = memmem(q, n - (size_t)(q - p), key, kl)); q += kl) {
		const char *v = q + kl, *end = p + n;
		while (v < end && (blank(*v) || *v == ':'))
			v++;
		if (v < end && *v >= '0' && *v <= '9')
			return strtol(v, NULL, 10);
	}
	return -1;
}

void tl_note(struct tl_scan *s, const char *p, size_t n)
{
	long pid = field_num(p, n, "\"pid\"");
	int k, name = memmem(p, n, "\"process_name\"", 14) != NULL;
	const char *run = memmem(p, n, "\"run\":\"", 7);

	for (k = 0; k < s->npids && s->pids[k] != pid; k++)
		;
	if (pid >= 0 && k == s->npids && k < TL_MAX_PIDS)
		s->pids[s->npids++] = pid;
	if (name && k < s->npids && !s->has_name[k])
		s->has_name[k] = 1, s->named++;
	if (run && memmem(p, n, "\"cushim bootstrap\"", 18)) {
		char id[48];
		const char *q = memchr(run + 7, '"', (size_t)(p + n - (run + 7)));
		size_t l = q ? (size_t)(q - (run + 7)) : 0;
		snprintf(id, sizeof id, "%.*s", (int)(l < 47 ? l : 47), run + 7);
		for (k = 0; k < s->nruns && strcmp(s->runs[k], id) != 0; k++)
			;
		if (k == s->nruns && k < TL_MAX_RUNS)
			strcpy(s->runs[s->nruns++], id);
	}
}

/* Every whole event of the file, to fn when there is one.  0, or -1 with why. */
int tl_scan(const char *p, size_t n, struct tl_scan *s, tl_event_fn fn, void *arg, const char **why)
{
	size_t k = 0;
	memset(s, 0, sizeof *s);
	while (k < n && blank(p[k]))
		k++;
	if (k == n || p[k] != '[') {
		*why = "it does not begin with '[' (is it a CUSHIM_TIMELINE file?)";
		return -1;
	}
	for (; k < n; k++) {
		char c = p[k];
		if (blank(c) || c == ',') {
			continue;
		} else if (c == '[') {
			s->opens++;
		} else if (c == ']') {
			s->closes++;
		} else if (c != '{') {
			*why = "it holds something that is no event between its events";
			return -1;
		} else {
			size_t len = object_end(p + k, n - k);
			if (len == BAD) {
				*why = "an event's brackets do not match";
				return -1;
			}
			if (len == CUT) {
				s->tail = n - k;
				break;
			}
			s->after_close |= s->closes > 0;
			tl_note(s, p + k, len);
			if (fn)
				fn(p + k, len, arg);
			s->events++;
			k += len - 1;
			s->keep = k + 1;
		}
	}
	if (!s->events)
		s->keep = (size_t)((const char *)memchr(p, '[', n) - p) + 1;
	return 0;
}

int tl_mixed(const struct tl_scan *s)
{
	return s->opens > 1 || s->closes > 1 || s->after_close || s->npids > 1;
}

static int by_pid(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* In order (the table of has_name then no longer matches: call it last). */
void tl_list_pids(FILE *f, struct tl_scan *s)
{
	qsort(s->pids, (size_t)s->npids, sizeof *s->pids, by_pid);
	for (int k = 0; k < s->npids; k++)
		fprintf(f, "%s%ld", k ? ", " : "", s->pids[k]);
}

/* The file as mapped memory; NULL with a message. */
char *tl_map(const char *path, int fd, size_t *size)
{
	struct stat st;
	char *p;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		cli_error("%s: not a timeline cushim can read: %s", path, st.st_size ? strerror(errno) : "it is empty");
		return NULL;
	}
	*size = (size_t)st.st_size;
	if ((p = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		cli_error("%s: not a timeline cushim can read: %s", path, strerror(errno));
		return NULL;
	}
	return p;
}

void tl_put_event(const char *p, size_t n, void *arg)
{
	struct tl_writer *w = arg;
	fputs(w->n++ ? ",\n" : "[", w->f);
	fwrite(p, 1, n, w->f);
}

/* A process_name event for each pid whose own was overwritten. */
void tl_name_orphans(struct tl_writer *w, const struct tl_scan *s)
{
	char buf[256];
	for (int k = 0; k < s->npids; k++)
		if (!s->has_name[k]) {
			int n = snprintf(buf, sizeof buf, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,"
					 "\"args\":{\"name\":\"pid %ld (its name event was lost)\"}}",
					 s->pids[k], s->pids[k], s->pids[k]);
			tl_put_event(buf, (size_t)n, w);
		}
}

