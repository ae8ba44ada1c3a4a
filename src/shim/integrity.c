/* A CUDA runtime's validity check, kept true under emulation.
 *
 * Once the driver is initialised, a runtime (libcudart 11.8 to 13.0, read
 * and run) takes the driver's private export table
 * d4082055-bde6-704b-8d34-ba123c66e1f2 and calls its slot 1,
 *     CUresult check(unsigned v, unsigned long long seconds, unsigned long long out[2]),
 * at its own version V, V + 1 and V + 2.  For V + 2 it computes the answer
 * itself and, where the two differ, fails every call with
 * cudaErrorSoftwareValidityNotEstablished.  The answer is HMAC-MD2, under a
 * fixed key, of a message that holds the driver's version: the driver hashes
 * the version it is, the runtime the one cuDriverGetVersion reported.
 * Emulating an older version, cushim hands out its own copy of that table,
 * whose slot 1 calls the driver's and then answers over the emulated
 * version, the copy's addresses and the devices as the process sees them.
 * Without emulation the table is forwarded untouched (see boot.c).
 *
 * The message, little-endian: the driver's version, v, getpid(), the calling
 * thread's pthread_self() (32 bits each); the address of the runtime's table
 * 6bd5fb6c-5bf4-e74a-8987-d93912fd9df9, of the integrity table and of its
 * slot 1, and seconds (64 bits each); then per device, in ordinal order, its
 * UUID (cuDeviceGetUuid) and PCI domain, bus and device (32 bits each).  A v
 * whose last digit is 0 or 1 is answered with constants, as is every v by
 * drivers before CUDA 12.0: those answers are left as the driver gives them.
 * The algorithm was checked bit for bit against the real drivers 525, 535,
 * 550 and 555, and against real runtimes (tests/realdrv/validity.sh). */
#include "table.h"
#include "slots.h"
#include "conf.h"
#include "log.h"
#include "integrity.h"
#include "state.h"
#include "validity.h"
#include "siglock.h"
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static const unsigned char integrity_id[16] = { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
						0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 };
static const unsigned char runtime_id[16] = { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
					      0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 };
#define FIXED_HIGH 0x8ed383aa1f4cd1e8ULL /* out[1] of the constant answers */
#define MAX_SLOTS 16

typedef CUresult (CUDAAPI *check_fn)(unsigned, unsigned long long, unsigned long long *);
static const void *own_table[MAX_SLOTS];
static check_fn driver_check;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process's view of a function: cushim's own or adapter, else the driver's. */
#define VIEW(name) ((cushim_fn_##name *)(cushim_impl[CUSHIM_IDX_##name] ? cushim_impl[CUSHIM_IDX_##name] \
									 : cushim_real[CUSHIM_IDX_##name]))

static void put(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The 28 bytes of one device; 0 when the driver cannot say. */
static int device_record(int ordinal, unsigned char rec[28])
{
	static const CUdevice_attribute pci[3] = { CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
						   CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID };
	CUdevice d;
	CUuuid u;
	int v;

	if (!VIEW(cuDeviceGet) || !VIEW(cuDeviceGetUuid) || !VIEW(cuDeviceGetAttribute) ||
	    VIEW(cuDeviceGet)(&d, ordinal) != CUDA_SUCCESS || VIEW(cuDeviceGetUuid)(&u, d) != CUDA_SUCCESS)
		return 0;
	memcpy(rec, u.bytes, 16);
	for (int k = 0; k < 3; k++) {
		if (VIEW(cuDeviceGetAttribute)(&v, pci[k], d) != CUDA_SUCCESS)
			return 0;
		put(rec + 16 + 4 * k, (uint32_t)v, 4);
	}
	return 1;
}

/* The answer over the emulated version; 0 when a device cannot be read. */
static int answer(unsigned v, unsigned long long seconds, unsigned long long out[2])
{
	unsigned char devs[32][28];
	const void *runtime_table = NULL;
	int n = 0;

	if (((cushim_fn_cuGetExportTable *)cushim_real[CUSHIM_IDX_cuGetExportTable])(
		    &runtime_table, (const CUuuid *)runtime_id) != CUDA_SUCCESS)
		runtime_table = NULL;
	if (!VIEW(cuDeviceGetCount) || VIEW(cuDeviceGetCount)(&n) != CUDA_SUCCESS || n < 0 || n > 32)
		return 0;
	for (int i = 0; i < n; i++)
		if (!device_record(i, devs[i]))
			return 0;
	cushim_integrity_mac(&(struct cushim_integrity_msg){ (uint32_t)cushim_state.driver_version, v,
							     (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
							     (uintptr_t)runtime_table, (uintptr_t)own_table,
							     (uintptr_t)own_table[1], seconds, n, devs },
			     out);
	return 1;
}

static CUresult CUDAAPI emulated_check(unsigned v, unsigned long long seconds, unsigned long long *out)
{
	CUresult r = __atomic_load_n(&driver_check, __ATOMIC_ACQUIRE)(v, seconds, out);

	if (r != CUDA_SUCCESS || !out || v % 10 < 2 || out[1] == FIXED_HIGH)
		return r; /* the driver's error, or one of its constant answers */
	if (!answer(v, seconds, out))
		cushim_log(CUSHIM_LOG_WARN, "emulating CUDA %d.%d: the devices cannot be read for a CUDA runtime's "
			   "validity check; the runtime may refuse the driver (cudaErrorSoftwareValidityNotEstablished)",
			   cushim_state.driver_version / 1000, cushim_state.driver_version % 1000 / 10);
	return r;
}

/* Our copy of the driver's table, slot 1 replaced; NULL (said once) when its
 * layout is not the one known.  Made once, under table_lock, which holds
 * nothing but the copy (siglock.h); said after. */
static const void **own_copy(const void *const *table)
{
	static int said;
	size_t size = (size_t)(uintptr_t)table[0];
	sigset_t saved;
	int made = 0;

	if (size < 2 * sizeof(void *) || size > sizeof own_table || size % sizeof(void *) || !table[1]) {
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			cushim_log(CUSHIM_LOG_WARN, "emulating: the driver's integrity table (cuGetExportTable "
				   "d4082055-bde6-704b-8d34-ba123c66e1f2) holds %zu bytes, a layout cushim does not "
				   "know: forwarded as it is, and a CUDA runtime may refuse the emulated driver "
				   "(cudaErrorSoftwareValidityNotEstablished)", size);
		return NULL;
	}
	if (__atomic_load_n(&driver_check, __ATOMIC_ACQUIRE))
		return own_table;
	cushim_lock(&table_lock, &saved);
	if (!driver_check) {
		memcpy(own_table, table, size);
		own_table[1] = (const void *)emulated_check;
		__atomic_store_n(&driver_check, (check_fn)table[1], __ATOMIC_RELEASE);
		made = 1;
	}
	cushim_unlock(&table_lock, &saved);
	if (made)
		cushim_log(CUSHIM_LOG_INFO, "emulating: a CUDA runtime's validity check is answered over CUDA %d.%d",
			   cushim_state.driver_version / 1000, cushim_state.driver_version % 1000 / 10);
	return own_table;
}

CUresult CUDAAPI cushim_own_cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
	const void **own;
	CUresult r = ((cushim_fn_cuGetExportTable *)cushim_real[CUSHIM_IDX_cuGetExportTable])(ppExportTable,
											    pExportTableId);

	if (r != CUDA_SUCCESS || !ppExportTable || !*ppExportTable || !pExportTableId ||
	    memcmp(pExportTableId->bytes, integrity_id, sizeof integrity_id) != 0)
		return r;
	if ((own = own_copy(*ppExportTable)))
		*ppExportTable = own;
	return r;
}
