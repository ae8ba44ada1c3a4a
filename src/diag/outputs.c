/* The files a process writes (the timeline, the JSON summary): one per
 * process, whatever started it, and never another's truncated.
 *
 * The first process to open a name owns it: the name is opened without
 * truncation and locked (flock) for the process's life, and it is the
 * process's own when the lock is had and the file is empty.  A file that is
 * not empty and not locked was written by a process that has ended: the
 * first process of a run (runmark.c) empties it when it names another run
 * that is over (or none), a stale file of an earlier run; any other process
 * keeps it.  A process that does not own the name creates a name derived
 * from it with O_EXCL: tl.json -> tl.PID.json (tl.PID-2.json, ... when that
 * is taken), tl.%p.json -> tl.PID-2.json.  A name held by what is not the user's own
 * file (ownfile.c: a FIFO, a device, another user's file, one group or
 * others may read) is never opened for writing: it is said once, and the
 * process writes a derived name instead.  Nothing here runs per call: only
 * when a file is opened. */
#include "conf.h"
#include "outputs.h"
#include "runmark.h"
#include "log.h"
#include "ownfile.h"
#include "settings.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

enum { TAKEN = -2 };

/* Whether a file this process found written, not locked, is stale: no
 * process of this run wrote it (the timeline's bootstrap event and the
 * summary both say "run"), nor this very process before an exec, when it
 * started a run of its own (its pid begins it), and the run that wrote it
 * is over (runmark.c: its first process is gone).  A process that no
 * cushim process started begins a run of its own, so a file of a run whose
 * first process still lives may be a sibling's (one started by the C
 * library's posix_spawn, past libcushim.so's exec functions). */
static int stale(int fd)
{
	char buf[8192], id[CUSHIM_RUN_ID_MAX], needle[64], self[32];
	static const char key[] = "\"run\"";
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	int m, k = snprintf(self, sizeof self, "\"%ld-", (long)getpid());
	const char *run, *end;

	if (n <= 0)
		return 1;
	cushim_run_id(id, sizeof id);
	m = snprintf(needle, sizeof needle, "\"%s\"", id);
	if (memmem(buf, (size_t)n, needle, (size_t)m) || memmem(buf, (size_t)n, self, (size_t)k))
		return 0;
	/* the key "run" and its value, not a string "run" (a program so named) */
	end = buf + n;
	for (run = buf; (run = memmem(run, (size_t)(end - run), key, sizeof key - 1)); ) {
		run += sizeof key - 1;
		while (run < end && *run == ' ')
			run++;
		if (run < end && *run == ':')
			break;
	}
	if (!run)
		return 1;
	while (run < end && (*run == ' ' || *run == ':' || *run == '"'))
		run++;
	return !cushim_run_live(run, (size_t)(end - run));
}

/* path for this process alone: the fd, TAKEN, CUSHIM_REFUSED (why says
 * what the file is instead of the user's own), or -1 with errno. */
static int claim(const char *path, int flags, char *why, size_t size)
{
	int created, fd = cushim_open_own(path, O_RDWR | flags, &created, why, size);
	struct stat st;

	if (fd == -1 && errno == EACCES)
		return TAKEN; /* this user's, and not writable */
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && created)
			return fd; /* no locks on this file system: the creator's */
		close(fd);
		return TAKEN;
	}
	if (fstat(fd, &st) == 0 &&
	    (st.st_size == 0 || (cushim_run_first() && stale(fd) && ftruncate(fd, 0) == 0)))
		return fd;
	close(fd);
	return TAKEN;
}

/* The k-th name derived from base (k >= 1) in out. */
static int derive(const char *base, int has_pid, int k, char *out, size_t size)
{
	size_t n = strlen(base), stem = n;
	char tag[48];
	int m;

	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		stem = n - 5;
	if (has_pid)
		snprintf(tag, sizeof tag, "-%d", k + 1);
	else if (k == 1)
		snprintf(tag, sizeof tag, ".%ld", (long)getpid());
	else
		snprintf(tag, sizeof tag, ".%ld-%d", (long)getpid(), k);
	m = snprintf(out, size, "%.*s%s%s", (int)stem, base, tag, base + stem);
	return m > 0 && (size_t)m < size ? 0 : -1;
}

int cushim_output_open(const char *what, const char *value, int flags, char *path, size_t size)
{
	char base[4096], why[160];
	int fd;

	snprintf(path, size, "%s", value);
	if (cushim_expand_path(value, base, sizeof base) != 0 || strlen(base) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(path, base);
	if ((fd = claim(base, flags, why, sizeof why)) != TAKEN && fd != CUSHIM_REFUSED)
		return fd;
	for (int k = 1; k < 1000; k++) {
		if (derive(base, strstr(value, "%p") != NULL, k, path, size) != 0) {
			errno = ENAMETOOLONG;
			fd = -1;
			break;
		}
		/* created here, so a regular file of this user's, mode 0600 */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | flags, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (why[0] && fd >= 0)
		cushim_log(CUSHIM_LOG_WARN, "%s file %s %s: this process writes %s instead", what, base, why, path);
	else if (why[0])
		cushim_log(CUSHIM_LOG_WARN, "%s file %s %s", what, base, why);
	return fd;
}
