/* MD2 (RFC 1319) and HMAC over it (RFC 2104, with MD2's 16-byte block): the
 * digest a CUDA runtime's validity check is built on (src/shim/integrity.c). */
#ifndef CUSHIM_MD2_H
#define CUSHIM_MD2_H
#include <stddef.h>

struct cushim_md2 {
	unsigned char x[48]; /* state | block | state ^ block */
	unsigned char c[16]; /* running checksum */
	unsigned char last;  /* the checksum's last byte written */
	unsigned n;          /* bytes in the current block */
};

void cushim_md2_init(struct cushim_md2 *m);
/* Adds len bytes of p, each XORed with x (0 for the bytes as they are). */
void cushim_md2_update(struct cushim_md2 *m, const void *p, size_t len, unsigned char x);
void cushim_md2_final(struct cushim_md2 *m, unsigned char digest[16]);
/* HMAC-MD2 of a message given as nparts pieces, with a 16-byte key. */
void cushim_hmac_md2(const unsigned char key[16], const void *const *part, const size_t *len, int nparts,
		     unsigned char mac[16]);
#endif
