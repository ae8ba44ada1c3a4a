/* CUDA that cannot start.  When cuInit fails (the program's call, or a
 * runtime's where its calls come through cushim: masquerade), cushim says
 * once per code which libcuda.so.1 it loaded (path, version, and whether it
 * is NVIDIA's forward-compatibility package), the kernel module's version,
 * CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, the device files and whether
 * they can be opened, and the one cause that this evidence fits, with what
 * to do; where none fits, that the cause is unknown (nvenv.c reads and
 * judges).  A context refused with CUDA_ERROR_DEVICE_UNAVAILABLE (46) is judged
 * by the device's compute mode, which the driver answers by then.  On
 * success the context wrappers cost a call and a test. */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "settings.h"
#include "errors.h"
#include "explain.h"
#include "explain-init.h"
#include "nvenv.h"
#include <stdio.h>
#include <string.h>

#define MAX_CODES 8

/* Once per code: 1 the first time rc is seen. */
static int first_code(int rc)
{
	static uintptr_t codes[MAX_CODES];
	return cushim_first_key(codes, MAX_CODES, (uintptr_t)(unsigned)rc << 1 | 1);
}

void cushim_init_failed(CUresult r)
{
	char cause[1200], seen[1600], text[CUSHIM_CAUSE_TEXT];
	struct nvenv e;
	const char *lib = cushim_state.path[0] ? cushim_state.path : NULL, *said = NULL;
	cushim_fn_cuGetErrorString *str = (cushim_fn_cuGetErrorString *)cushim_real[CUSHIM_IDX_cuGetErrorString];

	if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_INITIALIZED || !first_code((int)r))
		return; /* 3: a forked child, which explain-fork.c names */
	nvenv_read(&e, lib);
	if (!nvenv_cause(&e, (int)r, cause, sizeof cause))
		snprintf(cause, sizeof cause, "the cause is unknown: nothing seen below fits a cause cushim knows");
	nvenv_evidence(&e, lib, cushim_state.real_driver_version, seen, sizeof seen);
	if (!str || str(r, &said) != CUDA_SUCCESS || !said)
		said = "";
	snprintf(text, sizeof text, "cuInit returned %d (%s%s%s%s): %s. %s", (int)r, cushim_error_name((int)r),
		 *said ? ", \"" : "", said, *said ? "\"" : "", cause, seen);
	cushim_cause("init", text);
}

/* ---- a context refused: CUDA_ERROR_DEVICE_UNAVAILABLE ---- */
static void unavailable(const char *fn, CUdevice dev)
{
	static const char *const modes[] = { "default", "exclusive-thread", "prohibited", "exclusive-process" };
	cushim_fn_cuDeviceGetAttribute *attr =
		(cushim_fn_cuDeviceGetAttribute *)cushim_real[CUSHIM_IDX_cuDeviceGetAttribute];
	char text[1200];
	int mode = -1;

	if (!first_code(CUDA_ERROR_DEVICE_UNAVAILABLE))
		return;
	if (!attr || attr(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev) != CUDA_SUCCESS || mode < 0 || mode > 3)
		mode = -1;
	if (mode == CU_COMPUTEMODE_EXCLUSIVE_PROCESS)
		snprintf(text, sizeof text, "%s returned CUDA_ERROR_DEVICE_UNAVAILABLE for device %d: its compute mode "
			 "is exclusive-process, and another process holds a context on it: wait for it, use another "
			 "device, or set the default mode (nvidia-smi -i %d -c DEFAULT, as root)", fn, (int)dev, (int)dev);
	else if (mode == CU_COMPUTEMODE_PROHIBITED)
		snprintf(text, sizeof text, "%s returned CUDA_ERROR_DEVICE_UNAVAILABLE for device %d: its compute mode "
			 "is prohibited, so no process may create a context on it: set the default mode (nvidia-smi "
			 "-i %d -c DEFAULT, as root) or use another device", fn, (int)dev, (int)dev);
	else
		snprintf(text, sizeof text, "%s returned CUDA_ERROR_DEVICE_UNAVAILABLE for device %d, whose compute mode "
			 "is %s: the cause is unknown (a MIG configuration that gives this process no instance is one "
			 "possibility; nvidia-smi shows it)", fn, (int)dev, mode < 0 ? "unknown" : modes[mode]);
	cushim_cause("devices-unavailable", text);
}

#define REAL(name) ((cushim_fn_##name *)cushim_real[CUSHIM_IDX_##name])
#define JUDGED(name, call, dev)                                                   \
	do {                                                                       \
		CUresult r_ = REAL(name) call;                                     \
		if (__builtin_expect(r_ == CUDA_ERROR_DEVICE_UNAVAILABLE, 0))    \
			unavailable(#name, dev);                                   \
		return r_;                                                         \
	} while (0)

static CUresult CUDAAPI w_cuCtxCreate_v2(CUcontext *c, unsigned flags, CUdevice dev)
{
	JUDGED(cuCtxCreate_v2, (c, flags, dev), dev);
}

static CUresult CUDAAPI w_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev)
{
	JUDGED(cuDevicePrimaryCtxRetain, (c, dev), dev);
}

#if CUSHIM_TOOLKIT_VERSION >= 12050
static CUresult CUDAAPI w_cuCtxCreate_v4(CUcontext *c, CUctxCreateParams *p, unsigned flags, CUdevice dev)
{
	JUDGED(cuCtxCreate_v4, (c, p, flags, dev), dev);
}
#endif

size_t cushim_start_claims(struct cushim_claim *c)
{
	static const struct {
		unsigned idx;
		void *fn;
	} wrappers[] = {
		{ CUSHIM_IDX_cuCtxCreate_v2, (void *)w_cuCtxCreate_v2 },
		{ CUSHIM_IDX_cuDevicePrimaryCtxRetain, (void *)w_cuDevicePrimaryCtxRetain },
#if CUSHIM_TOOLKIT_VERSION >= 12050
		{ CUSHIM_IDX_cuCtxCreate_v4, (void *)w_cuCtxCreate_v4 },
#endif
	};
	size_t n = sizeof wrappers / sizeof *wrappers;
	_Static_assert(sizeof wrappers / sizeof *wrappers <= CUSHIM_MAX_CLAIMS, "the claims fit");
	for (size_t k = 0; k < n; k++)
		c[k] = (struct cushim_claim){ wrappers[k].idx, wrappers[k].fn, CUSHIM_OWNER_START, CUSHIM_CLAIM_REPLACE, NULL };
	return n;
}
