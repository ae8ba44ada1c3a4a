/* The program's memory through a checked copy (peek.h). */
#include "config.h"
#include "peek.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PIECE 4096u /* never more than a page: protection is per page */

static size_t piece_at(uintptr_t at, size_t left)
{
	size_t to_edge = PIECE - (size_t)(at & (PIECE - 1));
	return left < to_edge ? left : to_edge;
}

/* One piece (within a page) through the pipe fd: how many bytes came
 * through, 0 where the page cannot be read.  A piece fits in any pipe (a
 * pipe holds at least a page), so the write never blocks and the read
 * takes it whole.  The write is the system call itself: a sanitizer's
 * interceptor of write(2) would check the bytes first, and stop at what
 * the kernel is here to refuse. */
static size_t through(const int fd[2], const char *src, char *dst, size_t k)
{
	ssize_t w = syscall(SYS_write, fd[1], src, k);
	if (w <= 0)
		return 0;
	if (read(fd[0], dst, (size_t)w) != w)
		return 0;
	return (size_t)w;
}

static int open_pipe(int fd[2])
{
	return pipe2(fd, O_CLOEXEC | O_NONBLOCK);
}

static void close_pipe(const int fd[2])
{
	close(fd[0]);
	close(fd[1]);
}

static size_t peek_with(const int fd[2], const char *src, char *dst, size_t n)
{
	size_t off = 0;
	while (off < n) {
		size_t k = piece_at((uintptr_t)src + off, n - off), got = through(fd, src + off, dst + off, k);
		off += got;
		if (got < k)
			break;
	}
	return off;
}

/* errno is the program's: a diagnostic in a call, or in a signal handler,
 * leaves it as it was. */
size_t cushim_peek(const void *src, void *dst, size_t n)
{
	int fd[2], saved = errno;
	size_t got = 0;

	if (n && src && open_pipe(fd) == 0) {
		got = peek_with(fd, src, dst, n);
		close_pipe(fd);
	}
	errno = saved;
	return got;
}

/* The string at src, piece by piece until its NUL, through one pipe. */
static long str_with(const int fd[2], const char *src, char *dst, size_t size, int *cut)
{
	size_t off = 0;
	while (off < size - 1) {
		size_t k = piece_at((uintptr_t)src + off, size - 1 - off), got = through(fd, src + off, dst + off, k);
		char *nul = memchr(dst + off, '\0', got);
		if (nul)
			return (long)(nul - dst);
		off += got;
		dst[off] = '\0';
		if (got < k)
			return -1;
	}
	*cut = 1;
	return (long)off;
}

long cushim_peek_str(const void *src, char *dst, size_t size, int *cut)
{
	int fd[2], saved = errno;
	long len = -1;

	*cut = 0;
	if (!size)
		return -1;
	dst[0] = '\0';
	if (src && open_pipe(fd) == 0) {
		len = str_with(fd, src, dst, size, cut);
		close_pipe(fd);
	}
	errno = saved;
	return len;
}
