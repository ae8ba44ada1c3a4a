/* Decompression for cushim check, each through a well-kept library that
 * configure finds or goes without: the head of a GPU image compressed with
 * LZ4 (liblz4) or Zstandard (libzstd), and a wheel member's raw deflate
 * stream whole (libdeflate).  Without the library the answer is "cannot",
 * and the caller reads on as before. */
#ifndef CUSHIM_CLI_UNPACK_H
#define CUSHIM_CLI_UNPACK_H
#include <stddef.h>

/* The first cap bytes (or fewer, where the payload is shorter) of an image
 * compressed by method (FB_LZ4 or FB_ZSTD) from in[0..n): how many bytes
 * were written to out, or -1 when the method cannot be read here or the
 * data is damaged. */
long cli_unpack_head(int method, const unsigned char *in, size_t n, unsigned char *out, size_t cap);
/* Whether this build reads images compressed by method. */
int cli_unpack_can(int method);
/* A wheel member's raw deflate stream in[0..n) inflated whole into
 * out[0..size), which it must fill exactly, its CRC-32 checked: 0, or -1
 * with why; -2 when this build has no libdeflate (the caller reads it
 * another way). */
int cli_inflate_member(const unsigned char *in, size_t n, unsigned char *out, size_t size, unsigned long crc,
		       char *why, size_t whysize);

#endif
