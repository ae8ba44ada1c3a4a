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
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
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

/* libdeflate decompresses a whole buffer in one call, with no window
 * copying: the member's bytes as the zip archive stores them (raw deflate,
 * RFC 1951) go in, its exact size comes out; a decompressor is a few tens
 * of kilobytes, made for each member. */
int cli_inflate_member(const unsigned char *in, size_t n, unsigned char *out, size_t size, unsigned long crc,
		       char *why, size_t whysize)
{
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	enum libdeflate_result rc;
	if (!d) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	rc = libdeflate_deflate_decompress(d, in, n, out, size, NULL);
	libdeflate_free_decompressor(d);
	if (rc != LIBDEFLATE_SUCCESS) {
		snprintf(why, whysize, rc == LIBDEFLATE_BAD_DATA ? "its compressed bytes are damaged" :
			 "it inflates to another size than recorded");
		return -1;
	}
	if (libdeflate_crc32(0, out, size) != crc) {
		snprintf(why, whysize, "its bytes do not match their recorded CRC-32");
		return -1;
	}
	return 0;
#else
	(void)in, (void)n, (void)out, (void)size, (void)crc, (void)why, (void)whysize;
	return -2;
#endif
}
