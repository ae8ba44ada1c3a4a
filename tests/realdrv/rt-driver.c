/* A stand-in libcuda.so.1 that a real CUDA runtime initialises against, no
 * GPU needed: one device, and the private export tables a runtime asks for
 * (each slot a function that succeeds, the few buffers it writes into).  The
 * integrity table's slot 1 answers as the real drivers 525 to 555 do
 * (src/common/validity.c, whose answer a runtime accepts only if it is right):
 * HMAC-MD2 over the version the driver is, which is
 * RT_DRIVER_VERSION (default 12080), the version cuDriverGetVersion reports
 * too.  RT_DRIVER_HASH=V hashes V instead: a driver that contradicts itself,
 * which a runtime must refuse (cudaErrorSoftwareValidityNotEstablished).
 * Lookups (cuGetProcAddress, _v2) answer with the function of that name, or
 * of that name with _v2, else a function that succeeds. */
#define _GNU_SOURCE
#include "validity.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))
static const unsigned char integrity_id[16] = { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
						0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 };
static const unsigned char runtime_id[16] = { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
					      0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 };
/* a table whose slots 2 and 6 hand out buffers the runtime fills */
static const unsigned char buffers_id[16] = { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
					      0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 };
static const unsigned char uuid[16] = { 0x9a, 0xfe, 0x2b, 0x8a, 0xac, 0x25, 0x2d, 0x38,
					0xea, 0x37, 0xae, 0xc5, 0x6d, 0x71, 0x32, 0x5f };
enum { PCI_BUS = 33, PCI_DEVICE = 34, PCI_DOMAIN = 50, CC_MAJOR = 75, CC_MINOR = 76 };
static const int pci_bus = 2, pci_device = 0, pci_domain = 0;

/* (what this driver exports, declared without cuda.h) */
API int cuInit(unsigned flags);
API int cuDriverGetVersion(int *v);
API int cuDeviceGetCount(int *n);
API int cuDeviceGet(int *d, int ordinal);
API int cuDeviceGetUuid(unsigned char *u, int d);
API int cuDeviceGetUuid_v2(unsigned char *u, int d);
API int cuDeviceGetName(char *name, int len, int d);
API int cuDeviceTotalMem_v2(size_t *bytes, int d);
API int cuDeviceGetAttribute(int *v, int attribute, int d);
API int cuGetExportTable(const void **table, const unsigned char *id);
API int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status);
API int cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags);

static int setting(const char *name, int otherwise)
{
	const char *s = getenv(name);
	return s && *s ? atoi(s) : otherwise;
}

static int succeed(void)
{
	return 0;
}

API int cuInit(unsigned flags) { return flags ? 1 : 0; }
API int cuDriverGetVersion(int *v) { return v ? (*v = setting("RT_DRIVER_VERSION", 12080), 0) : 1; }
API int cuDeviceGetCount(int *n) { return n ? (*n = 1, 0) : 1; }
API int cuDeviceGet(int *d, int ordinal) { return ordinal ? 101 : (*d = 0, 0); }
API int cuDeviceGetUuid(unsigned char *u, int d) { return d ? 101 : (memcpy(u, uuid, 16), 0); }
API int cuDeviceGetUuid_v2(unsigned char *u, int d) { return cuDeviceGetUuid(u, d); }
API int cuDeviceGetName(char *name, int len, int d) { return snprintf(name, (size_t)len, "stand-in"), 0; }
API int cuDeviceTotalMem_v2(size_t *bytes, int d) { return *bytes = (size_t)1 << 34, 0; }

API int cuDeviceGetAttribute(int *v, int attribute, int d)
{
	switch (attribute) {
	case PCI_BUS: *v = pci_bus; break;
	case PCI_DEVICE: *v = pci_device; break;
	case PCI_DOMAIN: *v = pci_domain; break;
	case CC_MAJOR: *v = 9; break;
	case CC_MINOR: *v = 0; break;
	default: *v = 1;
	}
	return 0;
}

static const void *integrity_table[3];

/* Slot 1 of the integrity table, as the real drivers compute it. */
static int integrity_check(unsigned v, unsigned long long seconds, unsigned long long out[2])
{
	const int pci[3] = { pci_domain, pci_bus, pci_device };
	unsigned char dev[1][28];
	const void *runtime_table = NULL;

	if (v % 10 < 2) { /* the constant answers */
		out[0] = v % 10 ? 0x1841181c03cb675cULL : 0x3341181c03cb675cULL;
		out[1] = 0x8ed383aa1f4cd1e8ULL;
		return 0;
	}
	memcpy(dev[0], uuid, 16);
	for (int k = 0; k < 12; k++)
		dev[0][16 + k] = (unsigned char)((uint32_t)pci[k / 4] >> (8 * (k % 4)));
	cuGetExportTable(&runtime_table, runtime_id);
	cushim_integrity_mac(&(struct cushim_integrity_msg){
				     (uint32_t)setting("RT_DRIVER_HASH", setting("RT_DRIVER_VERSION", 12080)), v,
				     (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(), (uintptr_t)runtime_table,
				     (uintptr_t)integrity_table, (uintptr_t)integrity_table[1], seconds, 1, dev },
			     out);
	return 0;
}

static unsigned buffer1[1024], buffer2[14];
static void hand_buffer1(void **p, size_t *n) { *p = buffer1, *n = sizeof buffer1 / sizeof *buffer1; }
static void hand_buffer2(void **p, size_t *n) { *p = buffer2, *n = sizeof buffer2 / sizeof *buffer2; }

/* Any other table: 64 slots that succeed, made once per id. */
static const void *other_table(const unsigned char *id)
{
	static const void *tables[16][64];
	static unsigned char ids[16][16];
	static int n;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const void *t = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < n && !t; i++)
		if (memcmp(ids[i], id, 16) == 0)
			t = tables[i];
	if (!t && n < 16) {
		memcpy(ids[n], id, 16);
		tables[n][0] = (const void *)(uintptr_t)sizeof tables[n];
		for (int k = 1; k < 64; k++)
			tables[n][k] = (const void *)succeed;
		if (memcmp(id, buffers_id, 16) == 0) {
			tables[n][0] = (const void *)(uintptr_t)(7 * sizeof(void *));
			tables[n][2] = (const void *)hand_buffer1, tables[n][6] = (const void *)hand_buffer2;
		}
		t = tables[n++];
	}
	pthread_mutex_unlock(&lock);
	return t;
}

API int cuGetExportTable(const void **table, const unsigned char *id)
{
	if (!table || !id)
		return 1;
	if (memcmp(id, integrity_id, 16) == 0) {
		integrity_table[0] = (const void *)(uintptr_t)sizeof integrity_table;
		integrity_table[1] = (const void *)integrity_check, integrity_table[2] = (const void *)succeed;
		*table = integrity_table;
		return 0;
	}
	return (*table = other_table(id)) ? 0 : 500;
}

/* This object, for its own functions by name. */
static void *self(void)
{
	static void *handle;
	Dl_info me;

	if (!__atomic_load_n(&handle, __ATOMIC_ACQUIRE) && dladdr((void *)cuInit, &me))
		__atomic_store_n(&handle, dlopen(me.dli_fname, RTLD_NOW | RTLD_NOLOAD), __ATOMIC_RELEASE);
	return handle;
}

API int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status)
{
	char v2[256];
	void *p = NULL;

	if (!symbol || !pfn)
		return 1;
	snprintf(v2, sizeof v2, "%s_v2", symbol);
	if (self() && !(p = dlsym(self(), symbol)))
		p = dlsym(self(), v2);
	*pfn = p ? p : (void *)succeed;
	if (status)
		*status = 0;
	return 0;
}

API int cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags)
{
	return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}
