/* The program's memory through a checked copy (peek.h). */
#include "config.h"
#include "peek.h"
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PIECE 4096u /* never more than a page: protection is per page */
/* The kernel is the check: the write is the system call itself, never a
 * sanitizer's interceptor of write(2), which would check the bytes first
 * and call AddressSanitizer's poisoned gaps between a program's globals (a
 * loaded segment read whole) an overflow. */

static size_t piece_at(uintptr_t at, size_t left)
{
	size_t to_edge = PIECE - (size_t)(at & (PIECE - 1));
	return left < to_edge ? left : to_edge;
}

size_t cushim_peek(const void *src, void *dst, size_t n)
{
	int fd[2];
	size_t off = 0;

	if (!n || !src || pipe2(fd, O_CLOEXEC | O_NONBLOCK) != 0)
		return 0;
	while (off < n) {
		size_t k = piece_at((uintptr_t)src + off, n - off);
		ssize_t w = syscall(SYS_write, fd[1], (const char *)src + off, k);
		if (w <= 0 || read(fd[0], (char *)dst + off, (size_t)w) != w)
			break;
		off += (size_t)w;
		if ((size_t)w < k)
			break;
	}
	close(fd[0]);
	close(fd[1]);
	return off;
}

long cushim_peek_str(const void *src, char *dst, size_t size, int *cut)
{
	size_t off = 0;

	*cut = 0;
	dst[0] = '\0';
	while (off < size - 1) {
		size_t k = piece_at((uintptr_t)src + off, size - 1 - off);
		size_t got = cushim_peek((const char *)src + off, dst + off, k);
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
