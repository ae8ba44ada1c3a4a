/* MD2, as RFC 1319 specifies it, and HMAC over it (RFC 2104, with MD2's
 * 16-byte block as HMAC's block). */
#include "md2.h"
#include <string.h>

/* RFC 1319, 3.2: a permutation of 0..255 built from the digits of pi. */
static const unsigned char pi_subst[256] = {
	41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
	115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
	138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
	121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
	53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
	170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
	100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
	97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
	44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
	171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
	59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
	80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20,
};

void cushim_md2_init(struct cushim_md2 *m)
{
	memset(m, 0, sizeof *m);
}

/* RFC 1319, 3.4: 18 rounds over the 48-byte state. */
static void compress(struct cushim_md2 *m)
{
	unsigned t = 0;

	for (unsigned r = 0; r < 18; r++) {
		for (unsigned k = 0; k < 48; k++)
			t = m->x[k] ^= pi_subst[t];
		t = (t + r) & 0xff;
	}
}

/* One byte into the block, the checksum (RFC 1319, 3.3) alongside. */
static void add_byte(struct cushim_md2 *m, unsigned char b)
{
	m->x[16 + m->n] = b;
	m->x[32 + m->n] = m->x[m->n] ^ b;
	m->last = m->c[m->n] ^= pi_subst[b ^ m->last];
	if (++m->n == 16) {
		m->n = 0;
		compress(m);
	}
}

void cushim_md2_update(struct cushim_md2 *m, const void *p, size_t len, unsigned char x)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		add_byte(m, b[i] ^ x);
}

/* RFC 1319, 3.1 and 3.3: pad to a whole block, then the checksum's block. */
void cushim_md2_final(struct cushim_md2 *m, unsigned char digest[16])
{
	unsigned char pad = (unsigned char)(16 - m->n), c[16];

	for (unsigned i = 0; i < pad; i++)
		add_byte(m, pad);
	memcpy(c, m->c, sizeof c);
	cushim_md2_update(m, c, sizeof c, 0);
	memcpy(digest, m->x, 16);
}

void cushim_hmac_md2(const unsigned char key[16], const void *const *part, const size_t *len, int nparts,
		     unsigned char mac[16])
{
	struct cushim_md2 m;
	unsigned char inner[16];

	cushim_md2_init(&m);
	cushim_md2_update(&m, key, 16, 0x36);
	for (int i = 0; i < nparts; i++)
		cushim_md2_update(&m, part[i], len[i], 0);
	cushim_md2_final(&m, inner);
	cushim_md2_init(&m);
	cushim_md2_update(&m, key, 16, 0x5c);
	cushim_md2_update(&m, inner, sizeof inner, 0);
	cushim_md2_final(&m, mac);
}
