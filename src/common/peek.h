/* The program's memory, read only through a checked copy.  A diagnostic
 * never dereferences a pointer the program passed (a string argument, a
 * module image, a loaded segment): it copies the bytes through the kernel,
 * which answers EFAULT where they cannot be read, so a bad pointer, a guard
 * page or a PROT_NONE page ends the copy instead of the program.  The copy
 * goes through a pipe, in page-bounded pieces: write(2) is allowed under
 * every sandbox a CUDA program runs in, unlike process_vm_readv, which a
 * seccomp filter may answer with EPERM or kill the process for. */
#ifndef CUSHIM_PEEK_H
#define CUSHIM_PEEK_H
#include "hidden.h"
#include <stddef.h>

/* The first bytes of the n at src that can be read, into dst: how many
 * (fewer than n where an unreadable page begins; 0 where none can be read,
 * src is NULL or no pipe can be had).  errno is left as it was. */
size_t cushim_peek(const void *src, void *dst, size_t n) CUSHIM_HIDDEN;

/* The NUL-terminated string at src into dst (size bytes), always
 * terminated: its length, cut at size - 1 (*cut set); -1 where its first
 * byte cannot be read (so too where src is NULL, size is 0 or no pipe can
 * be had), or where it ends in an unreadable page before its NUL and before
 * size - 1 bytes: dst then holds what could be read, and src + strlen(dst)
 * is the first address that cannot.  One pipe for the whole string; errno
 * is left as it was. */
long cushim_peek_str(const void *src, char *dst, size_t size, int *cut) CUSHIM_HIDDEN;

#endif
