/* See unpack.h.  NVIDIA's fatbins compress an image as one LZ4 block (the
 * format of LZ4_compress_default: token, literals, offset, match; read back
 * by the public fatbin decompressors) or as one Zstandard frame; the header
 * gives the compressed size.  Only a head is wanted (the compiler's release
 * line sits in a PTX image's first lines), so no more than cap bytes are
 * ever produced, whatever the image claims. */
#include "config.h"
#include "unpack.h"
#include "fatbin.h"
#include <limits.h>
#include <stdio.h>
#ifdef HAVE_LZ4
#include <lz4.h>
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#ifdef HAVE_LZ4
static long lz4_head(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	if (n > INT_MAX || cap > INT_MAX)
		return -1;
	int got = LZ4_decompress_safe_partial((const char *)in, (char *)out, (int)n, (int)cap, (int)cap);
	return got < 0 ? -1 : got;
}
#endif

#ifdef HAVE_ZSTD
/* A stream decompressed until out is full: a frame's later blocks are
 * never read. */
static long zstd_head(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer src = { in, n, 0 };
	ZSTD_outBuffer dst = { out, cap, 0 };
	long got = -1;
	if (!z)
		return -1;
	for (;;) {
		size_t r = ZSTD_decompressStream(z, &dst, &src);
		if (ZSTD_isError(r))
			break;
		if (r == 0 || dst.pos == dst.size || src.pos == src.size) {
			got = (long)dst.pos;
			break;
		}
	}
	ZSTD_freeDStream(z);
	return got;
}
#endif

int cli_unpack_can(int method)
{
#ifdef HAVE_LZ4
	if (method == FB_LZ4)
		return 1;
#endif
#ifdef HAVE_ZSTD
	if (method == FB_ZSTD)
		return 1;
#endif
	(void)method;
	return 0;
}

long cli_unpack_head(int method, const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
#ifdef HAVE_LZ4
	if (method == FB_LZ4)
		return lz4_head(in, n, out, cap);
#endif
#ifdef HAVE_ZSTD
	if (method == FB_ZSTD)
		return zstd_head(in, n, out, cap);
#endif
	(void)method, (void)in, (void)n, (void)out, (void)cap;
	return -1;
}
