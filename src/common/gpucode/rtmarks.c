/* See rtmarks.h. */
#include "config.h"
#include "rtmarks.h"
#include <stdio.h>
#include <string.h>

/* These read a loaded object's own segments too (the shim's runtime gate),
 * where AddressSanitizer's poisoned gaps between globals are not errors:
 * plain loops, left uninstrumented. */
#define UNCHECKED __attribute__((no_sanitize("address")))

UNCHECKED static const unsigned char *find(const unsigned char *p, size_t n, const char *m, size_t len)
{
	for (size_t i = 0; len <= n && i <= n - len; i++) {
		size_t k = 0;
		while (k < len && p[i + k] == (unsigned char)m[k])
			k++;
		if (k == len)
			return p + i;
	}
	return NULL;
}

/* One line of text: up to a NUL (host data) or a line's end (PTX). */
UNCHECKED static void copy_text(char *to, size_t size, const unsigned char *from, size_t left)
{
	size_t k = 0;
	while (k + 1 < size && k < left && from[k] && from[k] != '\n' && from[k] != '\r')
		to[k] = (char)from[k], k++;
	if (size)
		to[k] = '\0';
}

UNCHECKED void rt_find_release(const unsigned char *p, size_t n, int *release, char *text, size_t size)
{
	const size_t len = sizeof RELEASE_MARK - 1;
	for (const unsigned char *q = p; (q = find(q, n - (size_t)(q - p), RELEASE_MARK, len)); q += len) {
		char num[8];
		int major, minor;
		size_t at = (size_t)(q - p) + len;
		copy_text(num, sizeof num, q + len, n - at);
		if (sscanf(num, "%2d.%1d", &major, &minor) != 2)
			continue;
		if (major * 1000 + minor * 10 > *release) {
			*release = major * 1000 + minor * 10;
			copy_text(text, size, q, n - (size_t)(q - p));
		}
	}
}

/* The runtime's error text, kept in writable data: cushim check reads a
 * file's read-only data for it, and cushim's own files (the command, the
 * library) carry no runtime.  The section is named so that no optimisation
 * moves a never-written array to read-only data. */
static char runtime_mark[] __attribute__((section(".data"))) = RUNTIME_MARK;

UNCHECKED int rt_has_runtime_mark(const unsigned char *p, size_t n)
{
	return find(p, n, runtime_mark, sizeof runtime_mark - 1) != NULL;
}
