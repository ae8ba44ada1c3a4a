/* The GPU's real driver against cushim's account of the integrity check a
 * CUDA runtime makes (src/common/validity.c): after cuInit, the driver's slot 1
 * of table d4082055-bde6-704b-8d34-ba123c66e1f2 is asked at a runtime's
 * versions and compared with cushim_integrity_mac over the driver's own
 * version, this thread, the tables' addresses and every device's UUID and
 * PCI location.  Prints one line a version, "MATCH" or "DIFFER"; exit 1 on
 * any difference, 77 without a driver or a GPU.  Run it plain. */
#include "validity.h"
#include <cuda.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const CUuuid integrity_id = { { (char)0xd4, 0x08, 0x20, 0x55, (char)0xbd, (char)0xe6, 0x70, 0x4b,
				       (char)0x8d, 0x34, (char)0xba, 0x12, 0x3c, 0x66, (char)0xe1, (char)0xf2 } };
static const CUuuid runtime_id = { { 0x6b, (char)0xd5, (char)0xfb, 0x6c, 0x5b, (char)0xf4, (char)0xe7, 0x4a,
				     (char)0x89, (char)0x87, (char)0xd9, 0x39, 0x12, (char)0xfd, (char)0x9d,
				     (char)0xf9 } };
typedef CUresult (*check_fn)(unsigned, unsigned long long, unsigned long long *);

/* The devices' records; their count, -1 on a failure. */
static int records(unsigned char dev[][28], int max)
{
	int n, v[3];
	CUdevice d;
	CUuuid u;

	if (cuDeviceGetCount(&n) || n > max)
		return -1;
	for (int i = 0; i < n; i++) {
		if (cuDeviceGet(&d, i) || cuDeviceGetUuid(&u, d) ||
		    cuDeviceGetAttribute(&v[0], CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d) ||
		    cuDeviceGetAttribute(&v[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d) ||
		    cuDeviceGetAttribute(&v[2], CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d))
			return -1;
		memcpy(dev[i], u.bytes, 16);
		for (int k = 0; k < 12; k++)
			dev[i][16 + k] = (unsigned char)((uint32_t)v[k / 4] >> (8 * (k % 4)));
	}
	return n;
}

int main(void)
{
	static const unsigned versions[] = { 11082, 12042, 12092, 13002 };
	unsigned char dev[64][28];
	const void *const *table = NULL, *runtime = NULL;
	int n, driver = 0, bad = 0;

	if (cuInit(0) || cuDriverGetVersion(&driver) || cuGetExportTable((const void **)&table, &integrity_id) ||
	    cuGetExportTable(&runtime, &runtime_id) || (n = records(dev, 64)) < 0) {
		printf("integrity-gpu: no driver or no GPU\n");
		return 77;
	}
	for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
		unsigned long long got[2] = { 0, 0 }, want[2];
		unsigned long long now = (unsigned long long)time(NULL);
		CUresult r = ((check_fn)table[1])(versions[i], now, got);

		cushim_integrity_mac(&(struct cushim_integrity_msg){ (uint32_t)driver, versions[i], (uint32_t)getpid(),
								     (uint32_t)(uintptr_t)pthread_self(),
								     (uintptr_t)runtime, (uintptr_t)table,
								     (uintptr_t)table[1], now, n, dev },
				     want);
		printf("driver %d, %d devices, version %u: driver %016llx%016llx cushim %016llx%016llx %s\n", driver,
		       n, versions[i], got[0], got[1], want[0], want[1], !r && got[0] == want[0] && got[1] == want[1]
		       ? "MATCH" : "DIFFER");
		bad |= r || got[0] != want[0] || got[1] != want[1];
	}
	return bad;
}
