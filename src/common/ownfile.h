/* A file cushim writes its output into, the user's own (ownfile.c). */
#ifndef CUSHIM_OWNFILE_H
#define CUSHIM_OWNFILE_H
#include "hidden.h"
#include <stddef.h>

#define CUSHIM_REFUSED (-3) /* a file is there, and it is not one cushim may write */

/* path opened for writing (flags: O_WRONLY or O_RDWR, O_APPEND), never
 * blocking, never through a symbolic link, close-on-exec.  With created
 * non-NULL a missing file is created (O_EXCL, mode 0600) and *created says
 * whether it was; with NULL only an existing file is opened.  The fd; -1
 * with errno; or CUSHIM_REFUSED, with what the file is instead in why
 * ("is a FIFO, not a regular file"): not a regular file, another user's,
 * open to group or others, or one with more than one name. */
int cushim_open_own(const char *path, int flags, int *created, char *why, size_t size) CUSHIM_HIDDEN;

#endif
