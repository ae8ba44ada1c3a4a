/* The fake driver's devices (included by fake-driver.c): with FAKE_DEVICES=N
 * (1 to 8) in the environment, the exports that name devices, contexts,
 * streams, events and device memory answer with state, so that a program's
 * device logic (which device is current, which device a stream, an event or a
 * buffer belongs to, peer access) runs without a GPU:
 *   - N devices, each with one primary context; a per-thread context stack
 *     (cuCtxSetCurrent, Push, Pop, GetCurrent, GetDevice);
 *   - streams and events are handles that carry their device (created on the
 *     current context's device); device memory is address space that carries
 *     its device (cuMemAlloc_v2, cuPointerGetAttribute's memory type and
 *     device ordinal); distinct devices can access each other; each has a
 *     few attributes (VMM and POSIX fd handles supported, the default
 *     compute mode, an SM count and a clock rate), every other is 0;
 *   - FAKE_GPU_NAME: the name cuDeviceGetName gives;
 *   - FAKE_COMPUTE_MODE=2 (prohibited) or 3 (exclusive-process, taken):
 *     cuDevicePrimaryCtxRetain refuses with 46, with or without devices.
 * Nothing runs: no kernel, copy or memset touches memory. Without
 * FAKE_DEVICES every one of these answers as the generic exports do.
 * The driver's constants are written here by value: the fake has no cuda.h. */
#include <stdint.h>
#include <stdio.h>

#define DEV_MAX 8
enum { DEVICE_UNAVAILABLE = 46, INVALID_DEVICE = 101, INVALID_CONTEXT = 201, INVALID_HANDLE = 400 };
enum { ATTR_MEMORY_TYPE = 2, ATTR_DEVICE_ORDINAL = 9, MEMORYTYPE_DEVICE = 2 };
/* cuDeviceGetAttribute: those a device of the fake has, by value; any other is 0. */
static const struct {
	int attr, value;
} dev_attrs[] = {
	{ 13, 1980000 }, /* CLOCK_RATE, kHz */
	{ 16, 132 },     /* MULTIPROCESSOR_COUNT */
	{ 20, 0 },       /* COMPUTE_MODE: default */
	{ 102, 1 },      /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */
	{ 103, 1 },      /* HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED */
};
#define DEV_SPECIAL(n) __attribute__((unused)) static int special_##n(W a0, W a1, W a2, W a3, W a4, W a5)

static char ctx_tags[DEV_MAX]; /* a primary context is the address of its device's tag */
static __thread uintptr_t ctx_stack[16];
static __thread int ctx_depth;
static unsigned long handle_seq;
static uint64_t mem_next[DEV_MAX];

/* 0 when FAKE_DEVICES is unset: the generic answers. */
static int ndev(void)
{
	const char *v = FAKE_GETENV("FAKE_DEVICES");
	int n = v ? atoi(v) : 0;

	return n < 0 ? 0 : n > DEV_MAX ? DEV_MAX : n;
}

static int generic(void)
{
	return initialised() ? SUCCESS : NOT_INITIALIZED;
}

/* The answer before any state: 1 when the caller must return *rc. */
static int stateless(int *rc)
{
	*rc = !ndev() || !initialised() ? generic() : SUCCESS;
	return !ndev() || !initialised();
}

static uintptr_t current_ctx(void)
{
	return ctx_depth ? ctx_stack[ctx_depth - 1] : 0;
}

static int ctx_dev(uintptr_t c)
{
	return c >= (uintptr_t)ctx_tags && c < (uintptr_t)ctx_tags + (uintptr_t)ndev() ? (int)(c - (uintptr_t)ctx_tags)
											  : -1;
}

/* A new stream or event handle of the current context's device into *out. */
static int new_handle(W out)
{
	int d = ctx_dev(current_ctx());
	unsigned long k = __atomic_add_fetch(&handle_seq, 1, __ATOMIC_RELAXED);

	if (d < 0)
		return INVALID_CONTEXT;
	if (!out)
		return INVALID_VALUE;
	*(uintptr_t *)(uintptr_t)out = (uintptr_t)(k << 8 | (unsigned long)(d + 1));
	return SUCCESS;
}

/* The device of a stream (0: the current context's legacy stream) or event. */
static int handle_dev(W h)
{
	int d = h ? (int)(h & 0xff) - 1 : ctx_dev(current_ctx());

	return d >= 0 && d < ndev() ? d : -1;
}

DEV_SPECIAL(cuDeviceGetCount)
{
	int rc;

	if (stateless(&rc))
		return rc;
	*(int *)(uintptr_t)a0 = ndev();
	return SUCCESS;
}

DEV_SPECIAL(cuDeviceGet)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if ((int)a1 < 0 || (int)a1 >= ndev())
		return INVALID_DEVICE;
	*(int *)(uintptr_t)a0 = (int)a1;
	return SUCCESS;
}

/* FAKE_GPU_CC=M.m: the compute capability's attributes into *v;
 * FAKE_COMPUTE_MODE=N: the compute mode (20); 0 for any other. */
static int gpu_cc(W attr, int *v)
{
	const char *cc = FAKE_GETENV("FAKE_GPU_CC"), *dot, *mode = FAKE_GETENV("FAKE_COMPUTE_MODE");

	if (attr == 20 && mode && *mode) {
		*v = atoi(mode);
		return 1;
	}
	if (!cc || !*cc || (attr != 75 && attr != 76))
		return 0;
	*v = attr == 75 ? atoi(cc) : (dot = strchr(cc, '.')) ? atoi(dot + 1) : 0;
	return 1;
}

DEV_SPECIAL(cuDevicePrimaryCtxRetain)
{
	int rc, mode = 0;

	if (initialised() && gpu_cc(20, &mode) && (mode == 2 || mode == 3))
		return DEVICE_UNAVAILABLE; /* prohibited, or exclusive-process and taken */
	if (stateless(&rc))
		return rc;
	if ((int)a1 < 0 || (int)a1 >= ndev())
		return INVALID_DEVICE;
	*(uintptr_t *)(uintptr_t)a0 = (uintptr_t)&ctx_tags[(int)a1];
	return SUCCESS;
}

DEV_SPECIAL(cuDeviceGetAttribute)
{
	int rc, v = 0;

	if (stateless(&rc)) {
		if (rc == SUCCESS && a0 && gpu_cc(a1, &v))
			*(int *)(uintptr_t)a0 = v;
		return rc;
	}
	if ((int)a2 < 0 || (int)a2 >= ndev())
		return INVALID_DEVICE;
	for (size_t i = 0; i < sizeof dev_attrs / sizeof *dev_attrs; i++)
		if (dev_attrs[i].attr == (int)a1)
			v = dev_attrs[i].value;
	gpu_cc(a1, &v);
	*(int *)(uintptr_t)a0 = v;
	return SUCCESS;
}

/* FAKE_GPU_NAME: what the board is called ("NVIDIA GeForce RTX 4090"). */
DEV_SPECIAL(cuDeviceGetName)
{
	int rc;
	const char *name = FAKE_GETENV("FAKE_GPU_NAME");

	if (stateless(&rc)) {
		if (rc == SUCCESS && a0 && (int)a1 > 0 && name)
			snprintf((char *)(uintptr_t)a0, (size_t)(int)a1, "%s", name);
		return rc;
	}
	if ((int)a2 < 0 || (int)a2 >= ndev())
		return INVALID_DEVICE;
	if (a0 && (int)a1 > 0)
		snprintf((char *)(uintptr_t)a0, (size_t)(int)a1, "%s", name ? name : "fake device");
	return SUCCESS;
}

DEV_SPECIAL(cuDeviceCanAccessPeer)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if ((int)a1 < 0 || (int)a1 >= ndev() || (int)a2 < 0 || (int)a2 >= ndev())
		return INVALID_DEVICE;
	*(int *)(uintptr_t)a0 = (int)a1 != (int)a2;
	return SUCCESS;
}

DEV_SPECIAL(cuCtxSetCurrent)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if (a0 && ctx_dev(a0) < 0)
		return INVALID_CONTEXT;
	if (!a0) /* as the driver: NULL pops the top */
		ctx_depth -= ctx_depth > 0;
	else if (ctx_depth)
		ctx_stack[ctx_depth - 1] = a0;
	else
		ctx_stack[ctx_depth++] = a0;
	return SUCCESS;
}

DEV_SPECIAL(cuCtxPushCurrent_v2)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if (ctx_dev(a0) < 0 || ctx_depth == (int)(sizeof ctx_stack / sizeof *ctx_stack))
		return INVALID_CONTEXT;
	ctx_stack[ctx_depth++] = a0;
	return SUCCESS;
}

DEV_SPECIAL(cuCtxPopCurrent_v2)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if (!ctx_depth)
		return INVALID_CONTEXT;
	if (a0)
		*(uintptr_t *)(uintptr_t)a0 = ctx_stack[ctx_depth - 1];
	ctx_depth--;
	return SUCCESS;
}

DEV_SPECIAL(cuCtxGetCurrent)
{
	int rc;

	if (stateless(&rc))
		return rc;
	*(uintptr_t *)(uintptr_t)a0 = current_ctx();
	return SUCCESS;
}

DEV_SPECIAL(cuCtxGetDevice)
{
	int rc, d;
	const char *cc = FAKE_GETENV("FAKE_GPU_CC");

	if (stateless(&rc)) {
		if (rc == SUCCESS && cc && *cc && a0)
			*(int *)(uintptr_t)a0 = 0; /* a GPU, device 0, when a test asks for one */
		return rc;
	}
	if ((d = ctx_dev(current_ctx())) < 0)
		return INVALID_CONTEXT;
	*(int *)(uintptr_t)a0 = d;
	return SUCCESS;
}

DEV_SPECIAL(cuCtxGetStreamPriorityRange)
{
	int rc;

	if (stateless(&rc))
		return rc;
	if (a0)
		*(int *)(uintptr_t)a0 = 0;
	if (a1)
		*(int *)(uintptr_t)a1 = -5;
	return SUCCESS;
}

DEV_SPECIAL(cuStreamCreate)
{
	int rc;

	return stateless(&rc) ? rc : new_handle(a0);
}

DEV_SPECIAL(cuStreamCreateWithPriority)
{
	int rc;

	return stateless(&rc) ? rc : new_handle(a0);
}

DEV_SPECIAL(cuEventCreate)
{
	int rc;

	return stateless(&rc) ? rc : new_handle(a0);
}

DEV_SPECIAL(cuStreamGetPriority)
{
	int rc;

	if (stateless(&rc))
		return rc;
	*(int *)(uintptr_t)a1 = 0;
	return SUCCESS;
}

DEV_SPECIAL(cuStreamGetCtx)
{
	int rc, d;

	if (stateless(&rc))
		return rc;
	if ((d = handle_dev(a0)) < 0)
		return INVALID_HANDLE;
	*(uintptr_t *)(uintptr_t)a1 = (uintptr_t)&ctx_tags[d];
	return SUCCESS;
}

DEV_SPECIAL(cuStreamGetDevice)
{
	int rc, d;

	if (stateless(&rc))
		return rc;
	if ((d = handle_dev(a0)) < 0)
		return INVALID_HANDLE;
	*(int *)(uintptr_t)a1 = d;
	return SUCCESS;
}

DEV_SPECIAL(cuMemAlloc_v2)
{
	int rc, d = ctx_dev(current_ctx());
	uint64_t bytes = (a1 + 255) & ~(uint64_t)255;

	if (mem_take(a0, a1, &rc))
		return rc;
	if (stateless(&rc))
		return rc;
	if (d < 0)
		return INVALID_CONTEXT;
	*(uint64_t *)(uintptr_t)a0 = ((uint64_t)(d + 1) << 40) + __atomic_fetch_add(&mem_next[d], bytes, __ATOMIC_RELAXED);
	return SUCCESS;
}

DEV_SPECIAL(cuPointerGetAttribute)
{
	int rc, d = (int)(a2 >> 40) - 1;

	if (stateless(&rc))
		return rc;
	if (d < 0 || d >= ndev() || !a0)
		return INVALID_VALUE;
	if ((int)a1 == ATTR_MEMORY_TYPE)
		*(unsigned *)(uintptr_t)a0 = MEMORYTYPE_DEVICE;
	else if ((int)a1 == ATTR_DEVICE_ORDINAL)
		*(int *)(uintptr_t)a0 = d;
	else
		return INVALID_VALUE;
	return SUCCESS;
}
