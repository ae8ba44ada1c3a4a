/* A refused module image read for the explainer (explain-image.c). */
#ifndef CUSHIM_EXPLAIN_IMAGE_H
#define CUSHIM_EXPLAIN_IMAGE_H
#include "table.h"
#include <stddef.h>

/* The bytes of a refused image that the reader of images
 * (modimage.c) looks at, from the program's memory (through peek.h) or
 * from a file; zeros where it looks at none.  A size of 0: as its header
 * says.  Free with cushim_image_free, whatever the outcome. */
struct cushim_image {
	unsigned char *p;          /* the copy, n bytes (NULL where none) */
	size_t n;                  /* the image's extent */
	size_t bad;                /* the first offset that cannot be read, SIZE_MAX if none */
	const void *at;            /* in memory: where (past a fatbin wrapper) */
	const char *why;           /* why it was not read at all, or NULL */
	int err;                   /* the errno behind why or behind a file's short read, or 0 */
	const unsigned char *mem;  /* the copy's own: its source, */
	int fd;
	size_t span;               /* and the mapping's length */
};
void cushim_image_from_memory(const void *image, size_t size, struct cushim_image *im) CUSHIM_HIDDEN;
void cushim_image_from_file(const char *path, struct cushim_image *im) CUSHIM_HIDDEN;
/* Every byte the reader looks at was read. */
int cushim_image_readable(const struct cushim_image *im) CUSHIM_HIDDEN;
void cushim_image_free(struct cushim_image *im) CUSHIM_HIDDEN;
#endif
