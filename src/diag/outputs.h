/* A process's output files (outputs.c): the summary's and the timeline's. */
#ifndef CUSHIM_OUTPUTS_H
#define CUSHIM_OUTPUTS_H
#include <stddef.h>
#include "hidden.h"

/* The file the setting what names (value, %p expanded), for this process
 * alone: the name itself when this process owns it, else a derived one
 * created anew (said once when the name is refused: not the user's own
 * regular file, mode 0600 or stricter); open for writing with flags added,
 * close-on-exec, never blocking, never through a symlink.  The fd, or -1
 * with errno; the name in path. */
int cushim_output_open(const char *what, const char *value, int flags, char *path, size_t size) CUSHIM_HIDDEN;

#endif
