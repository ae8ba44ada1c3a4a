/* What marks a CUDA runtime linked into a file, in its read-only data: the
 * runtime's error text for an old driver, and nvcc's "Cuda compilation
 * tools, release X.Y" (the toolkit, so the runtime's version).  Shared by
 * the command (cushim check) and the library (a runtime that refuses the
 * driver). */
#ifndef CUSHIM_RTMARKS_H
#define CUSHIM_RTMARKS_H
#include <stddef.h>

#define RELEASE_MARK "Cuda compilation tools, release "
#define RUNTIME_MARK "CUDA driver version is insufficient for CUDA runtime version"

/* The newest release named in p[0..n) as a CUDA version (13000), if newer
 * than *release: then *release and its text (NUL-terminated, at most size
 * bytes) are set. */
void rt_find_release(const unsigned char *p, size_t n, int *release, char *text, size_t size);
/* Whether p[0..n) holds the runtime's error text. */
int rt_has_runtime_mark(const unsigned char *p, size_t n);
#endif
