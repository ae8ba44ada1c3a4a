/* The digest of a CUDA runtime's validity check: what a driver's integrity
 * check answers (src/shim/integrity.c says where it is asked and why). */
#include "validity.h"
#include "md2.h"

static const unsigned char key[16] = { 0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
				       0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f };

static void put(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void cushim_integrity_mac(const struct cushim_integrity_msg *m, unsigned long long out[2])
{
	unsigned char head[48], mac[16];

	put(head, m->driver_version, 4);
	put(head + 4, m->v, 4);
	put(head + 8, m->pid, 4);
	put(head + 12, m->tid, 4);
	put(head + 16, m->runtime_table, 8);
	put(head + 24, m->table, 8);
	put(head + 32, m->fn, 8);
	put(head + 40, m->seconds, 8);
	cushim_hmac_md2(key, (const void *[]){ head, m->dev }, (size_t[]){ sizeof head, 28 * (size_t)m->ndev }, 2,
			mac);
	out[0] = out[1] = 0;
	for (int i = 7; i >= 0; i--) {
		out[0] = out[0] << 8 | mac[i];
		out[1] = out[1] << 8 | mac[8 + i];
	}
}

