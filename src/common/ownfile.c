/* The files cushim writes (the log, the timeline, the summary, cushim run's
 * report) are the user's own, and never anything else.  Each is opened
 * without blocking, since a FIFO blocks open(2) until a reader comes and,
 * with one, every write once its 64 KiB are full; never through a symbolic
 * link; close-on-exec.  It is kept only when fstat(2) says it is a regular
 * file with one name, of this user's, that group and others may neither
 * read nor write (mode 0600 or stricter): a file another user made in a
 * shared folder (mode 1777) is never written into, nor a FIFO or a device.
 * Then the descriptor blocks again, as writes to a regular file do anyway.
 * A missing file is created with O_EXCL, mode 0600. */
#include "ownfile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a folder" : "of an unknown type";
}

/* What is wrong with the file st describes for cushim's output, in why; 0
 * when nothing is. */
static int judge(const struct stat *st, char *why, size_t size)
{
	if (!S_ISREG(st->st_mode))
		snprintf(why, size, "is %s, not a regular file", kind(st->st_mode));
	else if (st->st_uid != geteuid())
		snprintf(why, size, "is owned by uid %u, not by this user (uid %u)", (unsigned)st->st_uid,
			 (unsigned)geteuid());
	else if (st->st_mode & 077)
		snprintf(why, size, "has mode %04o: group or others may read or write it (cushim's files are 0600)",
			 (unsigned)(st->st_mode & 07777));
	else if (st->st_nlink != 1)
		snprintf(why, size, "has %lu names (hard links)", (unsigned long)st->st_nlink);
	else
		return 0;
	return 1;
}

/* open(2) failed on an existing path: refused where the path names what
 * cushim never writes (a FIFO no one reads: ENXIO; a folder: EISDIR; a
 * file of another user's: EACCES), else -1 with errno as open left it. */
static int failed(const char *path, char *why, size_t size)
{
	int e = errno;
	struct stat st;

	if (e != ENOENT && e != ELOOP && lstat(path, &st) == 0 && !S_ISLNK(st.st_mode) &&
	    (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) && judge(&st, why, size))
		return CUSHIM_REFUSED;
	errno = e;
	return -1;
}

int cushim_open_own(const char *path, int flags, int *created, char *why, size_t size)
{
	int fd = -1, fl;
	struct stat st;

	why[0] = '\0';
	flags |= O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
	if (created) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0600);
		*created = fd >= 0;
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0 && (fd = open(path, flags)) < 0)
		return failed(path, why, size);
	/* one created here is this user's regular file by O_EXCL, whatever a
	 * file system says of its owner (NFS's root_squash) or its links */
	if (!(created && *created) && (fstat(fd, &st) != 0 || judge(&st, why, size))) {
		int e = errno;
		close(fd);
		errno = e;
		return why[0] ? CUSHIM_REFUSED : -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}
