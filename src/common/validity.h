/* The digest of a CUDA runtime's validity check (src/common/validity.c). */
#ifndef CUSHIM_VALIDITY_H
#define CUSHIM_VALIDITY_H
#include <stdint.h>

/* What the integrity check hashes, little-endian: the header's fields, then
 * ndev records of 28 bytes (UUID, PCI domain, bus, device). */
struct cushim_integrity_msg {
	uint32_t driver_version, v, pid, tid;
	uint64_t runtime_table, table, fn, seconds;
	int ndev;
	const unsigned char (*dev)[28];
};

/* HMAC-MD2 of the message under the drivers' key, as two little-endian
 * 64-bit words. */
void cushim_integrity_mac(const struct cushim_integrity_msg *m, unsigned long long out[2]);
#endif
