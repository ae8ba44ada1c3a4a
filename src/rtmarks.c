/* See rtmarks.h. */
#include "config.h"
#include "rtmarks.h"
#include <stdio.h>
#include <string.h>

void rt_find_release(const unsigned char *p, size_t n, int *release, char *text, size_t size)
{
	const size_t len = sizeof RELEASE_MARK - 1;
	for (const unsigned char *q = p; (q = memmem(q, n - (size_t)(q - p), RELEASE_MARK, len)); q += len) {
		char num[8] = "";
		int major, minor;
		size_t at = (size_t)(q - p) + len;
		memcpy(num, q + len, n - at < sizeof num - 1 ? n - at : sizeof num - 1);
		if (sscanf(num, "%2d.%1d", &major, &minor) != 2)
			continue;
		if (major * 1000 + minor * 10 > *release) {
			*release = major * 1000 + minor * 10;
			size_t left = n - (size_t)(q - p);
			snprintf(text, size, "%.*s", (int)strnlen((const char *)q, left < size - 1 ? left : size - 1),
				 (const char *)q);
		}
	}
}

int rt_has_runtime_mark(const unsigned char *p, size_t n)
{
	return memmem(p, n, RUNTIME_MARK, sizeof RUNTIME_MARK - 1) != NULL;
}
