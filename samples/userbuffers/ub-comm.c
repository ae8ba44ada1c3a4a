/* The driver side of the Userbuffers sample: device and module, the VMM call
 * table (direct or through cuGetProcAddress), registration and teardown in
 * TE's order, the multicast decision, and the host side of the collectives. */
#include "ub.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ub_err(CUresult rc)
{
	static __thread char buf[64];
	const char *name = NULL;

	if (cuGetErrorName(rc, &name) == CUDA_SUCCESS && name)
		snprintf(buf, sizeof buf, "%s (%d)", name, (int)rc);
	else
		snprintf(buf, sizeof buf, "CUresult %d", (int)rc);
	return buf;
}

/* ---- the VMM calls, both routes ---- */
int ub_vmm_init(struct ub_vmm *v, const char *route)
{
	if (strcmp(route, "direct") == 0) {
		*v = (struct ub_vmm){ "direct", cuMemGetAllocationGranularity, cuMemCreate,
				      cuMemExportToShareableHandle, cuMemImportFromShareableHandle,
				      cuMemAddressReserve, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease,
				      cuMemAddressFree };
		return 0;
	}
	if (strcmp(route, "proc") != 0)
		return -1;
	/* As TE does through cudaGetDriverEntryPointByVersion(sym, 12010). */
	static const struct {
		const char *name;
		size_t off;
	} tab[] = {
#define E(n, f) { n, offsetof(struct ub_vmm, f) }
		E("cuMemGetAllocationGranularity", granularity), E("cuMemCreate", create),
		E("cuMemExportToShareableHandle", export_fd), E("cuMemImportFromShareableHandle", import_fd),
		E("cuMemAddressReserve", reserve), E("cuMemMap", map), E("cuMemSetAccess", set_access),
		E("cuMemUnmap", unmap), E("cuMemRelease", release), E("cuMemAddressFree", addr_free),
#undef E
	};
	memset(v, 0, sizeof *v);
	v->route = "proc";
	for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
		void *fn = NULL;
		CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		CUresult rc = cuGetProcAddress(tab[i].name, &fn, 12010, CU_GET_PROC_ADDRESS_DEFAULT, &q);
		if (rc != CUDA_SUCCESS || q != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {
			fprintf(stderr, "cuGetProcAddress(%s, 12010): %s, query result %d\n", tab[i].name, ub_err(rc),
				(int)q);
			return -1;
		}
		memcpy((char *)v + tab[i].off, &fn, sizeof fn);
	}
	return 0;
}

/* ---- device, context, module ---- */
/* Initialises the driver and picks this rank's device (several ranks share a
 * GPU when there are more ranks than GPUs); *clock_khz is its clock rate.
 * 0, 77 (skip: too few devices, no VMM or fd handles, a shared device not in
 * the default compute mode) or -1. */
static int dev_pick(struct ub_boot *b, struct ub_dev *d, int ngpus, int *clock_khz)
{
	int count = 0, vmm = 0, fdh = 0, mode = 0, khz = 0, per_gpu;
	CUresult rc;

	if ((rc = cuInit(0)) != CUDA_SUCCESS || (rc = cuDeviceGetCount(&count)) != CUDA_SUCCESS || count < 1) {
		ub_log(b, "no CUDA device (%s); skipping", ub_err(rc));
		return 77;
	}
	if (count < ngpus) {
		ub_log(b, "this case needs %d GPUs and %d %s here; skipping", ngpus, count, count == 1 ? "is" : "are");
		return 77;
	}
	per_gpu = (b->n + ngpus - 1) / ngpus; /* several ranks share a GPU */
	d->ordinal = b->rank / per_gpu;
	UB_CU(b, cuDeviceGet(&d->dev, d->ordinal));
	UB_CU(b, cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d->dev));
	UB_CU(b, cuDeviceGetAttribute(&fdh, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d->dev));
	UB_CU(b, cuDeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, d->dev));
	UB_CU(b, cuDeviceGetAttribute(&d->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev));
	UB_CU(b, cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d->dev));
	*clock_khz = khz;
	if (!vmm || !fdh) {
		ub_log(b, "device %d lacks %s; skipping", d->ordinal,
		       !vmm ? "virtual memory management" : "POSIX file descriptor handles");
		return 77;
	}
	if (per_gpu > 1 && mode != CU_COMPUTEMODE_DEFAULT) {
		ub_log(b, "device %d is not in the default compute mode, so %d ranks cannot share it; skipping",
		       d->ordinal, per_gpu);
		return 77;
	}
	return 0;
}

/* This rank's device must reach every other device of the job: 0, 77 or -1. */
static int dev_peers(struct ub_boot *b, struct ub_dev *d, int ngpus)
{
	for (int g = 0; g < ngpus; g++) {
		CUdevice other;
		int can = 1;
		if (g == d->ordinal)
			continue;
		UB_CU(b, cuDeviceGet(&other, g));
		UB_CU(b, cuDeviceCanAccessPeer(&can, d->dev, other));
		if (!can) {
			ub_log(b, "device %d cannot access device %d; skipping", d->ordinal, g);
			return 77;
		}
	}
	return 0;
}

/* The primary context, the comm stream, the module and its kernels: 0 or -1. */
static int dev_load(struct ub_boot *b, struct ub_dev *d)
{
	int fit = 0;

	UB_CU(b, cuDevicePrimaryCtxRetain(&d->ctx, d->dev));
	UB_CU(b, cuCtxSetCurrent(d->ctx));
	UB_CU(b, cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING));
	UB_CU(b, cuModuleLoadData(&d->mod, ub_kernels_fatbin));
#define F(f) UB_CU(b, cuModuleGetFunction(&d->f, d->mod, "ub_" #f))
	F(ag_push);
	F(rs_pullsum);
	F(sum_local);
	F(barrier);
	F(p2p_send);
	F(p2p_signal);
	F(p2p_recv);
	F(fill_i32);
	F(pattern);
	F(verify);
	F(sleep);
#undef F
	/* Cooperative launches: the grid may not exceed the blocks resident at once. */
	UB_CU(b, cuOccupancyMaxActiveBlocksPerMultiprocessor(&fit, d->rs_pullsum, 512, 0));
	d->max_grid = (unsigned)(fit > 0 ? fit : 1) * (unsigned)d->sms;
	return 0;
}

int ub_dev_place(struct ub_boot *b, struct ub_dev *d, int ngpus, int *clock_khz)
{
	int rc;

	memset(d, 0, sizeof *d);
	if ((rc = dev_pick(b, d, ngpus, clock_khz)) != 0)
		return rc;
	return dev_peers(b, d, ngpus);
}

int ub_dev_open(struct ub_boot *b, struct ub_dev *d, int ngpus, const char *route, double timeout_s)
{
	int khz = 0, rc;

	if ((rc = ub_dev_place(b, d, ngpus, &khz)) != 0 || (rc = dev_load(b, d)) != 0)
		return rc;
	/* UB_TIMEOUT: seconds -> clock64 cycles, as TE does (1000 * clockRate_kHz * s). */
	d->timeout_cycles = (long long)(timeout_s * 1000.0 * (khz > 0 ? khz : 2000000));
	if (ub_vmm_init(&d->vmm, route) != 0) {
		ub_log(b, "no VMM calls by route '%s'", route);
		return -1;
	}
	return 0;
}

void ub_dev_close(struct ub_dev *d)
{
	if (d->mod)
		cuModuleUnload(d->mod);
	if (d->stream)
		cuStreamDestroy(d->stream);
	if (d->ctx)
		cuDevicePrimaryCtxRelease(d->dev);
	memset(d, 0, sizeof *d);
}

/* ---- multicast: the seed's decision, compiled into ub-test-mc and ub-test-mc-drv (UB_MULTICAST) ---- */
const char *ub_mc_built(void)
{
#ifdef UB_MULTICAST
	return "yes";
#else
	return "no";
#endif
}

#ifdef UB_MULTICAST
/* The entry points TE's NVLS window needs (A4 of the reference). */
static const char *const mc_names[] = { "cuMulticastGetGranularity", "cuMulticastCreate", "cuMulticastAddDevice",
					"cuMulticastBindMem", "cuMulticastUnbind" };

/* The driver's answer for a symbol it does not offer, by name. */
static const char *mc_status_name(int status)
{
	return status == 1 ? "SYMBOL_NOT_FOUND" : status == 2 ? "VERSION_NOT_SUFFICIENT" : status == 0 ? "SUCCESS" : "none";
}

/* Asks the build's route for one multicast entry point: 1 when the driver
 * offers it, 0 when the driver's answer proves it missing (no pointer and the
 * query status SYMBOL_NOT_FOUND or VERSION_NOT_SUFFICIENT), -1 when the lookup
 * failed otherwise; `why` says which, naming the status. The runtime passes
 * the driver's status on; it may report a symbol not found as its result
 * (cudaErrorSymbolNotFound) as well as by the status. */
static int mc_lookup(const char *name, char *why, size_t len)
{
	int result, status, ok_result;
	void *fn = NULL;
#ifdef RTROUTE
	fn = rtroute_probe(name, &result, &status);
	ok_result = result == 0 || result == 500; /* cudaSuccess, cudaErrorSymbolNotFound */
	snprintf(why, len, "cudaGetDriverEntryPointByVersion(%s, %d): %s, status %d %s", name, rtroute_pin(),
		 rtroute_error_name(result), status, mc_status_name(status));
#else
	/* The driver route at TE's 12010, or the driver's own version when older. */
	CUdriverProcAddressQueryResult q = (CUdriverProcAddressQueryResult)-1;
	int dv = 0, pin = 12010;

	if (cuDriverGetVersion(&dv) == CUDA_SUCCESS && dv > 0 && dv < pin)
		pin = dv;
	result = (int)cuGetProcAddress(name, &fn, pin, CU_GET_PROC_ADDRESS_DEFAULT, &q);
	status = (int)q;
	ok_result = result == 0;
	snprintf(why, len, "cuGetProcAddress(%s, %d): %s, status %d %s", name, pin, ub_err((CUresult)result), status,
		 mc_status_name(status));
#endif
	if (result == 0 && fn && status == 0)
		return 1;
	return ok_result && !fn && (status == 1 || status == 2) ? 0 : -1;
}

/* 0 when every multicast entry point is missing; else -1, saying which is not. */
static int mc_all_missing(struct ub_boot *b, int verbose)
{
	char why[256];

	for (size_t i = 0; i < sizeof mc_names / sizeof *mc_names; i++) {
		int r = mc_lookup(mc_names[i], why, sizeof why);
		if (r != 0) {
			ub_log(b, "multicast: REFUSING to run: %s %s (%s). This build asks for the multicast entry "
				  "points; run it only where the driver lacks them: under cushim with "
				  "CUSHIM_HIDE='cuMulticast*', or an emulated CUSHIM_DRIVER_VERSION=12.0",
			       mc_names[i], r > 0 ? "is offered by the driver" : "could not be looked up", why);
			return -1;
		}
		if (verbose)
			ub_log(b, "multicast: %s is missing (%s)", mc_names[i], why);
	}
	return 0;
}
#endif

int ub_mc_guard(struct ub_boot *b)
{
#ifdef UB_MULTICAST
	return mc_all_missing(b, 0);
#else
	(void)b;
	return 0;
#endif
}

int ub_mc_setup(struct ub_comm *c, int requested)
{
	if (!requested) {
		ub_log(c->b, "multicast: not requested; using the unicast path");
		return 1;
	}
#ifdef UB_MULTICAST
	/* The sample has no multimem kernels and never calls a multicast function:
	 * it asks for them, as TE does, and must learn that they are missing. */
	if (mc_all_missing(c->b, c->me == 0) != 0)
		return -1;
	ub_log(c->b, "multicast: the driver offers no multicast entry points; falling back to the unicast path");
	return 1;
#else
	ub_log(c->b, "multicast: requested, but this program has no multicast decision (ub-test-mc has); "
		     "falling back to the unicast path");
	return 1;
#endif
}

int ub_mc_probe(void)
{
#ifdef UB_MULTICAST
	CUresult rc = cuInit(0);

	if (rc != CUDA_SUCCESS) {
		ub_log(NULL, "multicast probe: cuInit failed: %s", ub_err(rc));
		return 1;
	}
	if (mc_all_missing(NULL, 1) != 0)
		return 1;
	ub_log(NULL, "multicast: the driver offers no multicast entry points; falling back to the unicast path");
	return 0;
#else
	ub_log(NULL, "multicast probe: this program has no multicast decision (ub-test-mc has)");
	return 1;
#endif
}

/* ---- registration, as TE's register_user_buffer_collective ---- */
/* Steps 1 to 3: r->size, the granularity-rounded size every rank must agree
 * on, and my slice, created and exported as *fd. 0 or -1. */
static int reg_create(struct ub_comm *c, struct ub_reg *r, size_t bytes, int *fd)
{
	struct ub_boot *b = c->b;
	struct ub_vmm *v = &c->d->vmm;
	int me = c->me, n = c->n, myfd = -1;
	CUmemAllocationProp prop = { 0 };
	size_t gran = 0, sizes[UB_MAX_RANKS];

	/* 1. pinned device memory exportable as a POSIX fd */
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = c->d->ordinal;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	/* 2. granularity, rounded up */
	UB_CU(b, v->granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	r->size = (bytes + gran - 1) / gran * gran;
	if (ub_allgather(b, &r->size, sizeof r->size, sizes) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (sizes[i] != r->size) {
			ub_log(b, "ranks disagree on the registered size (%zu here, %zu on rank %d)", r->size, sizes[i], i);
			return -1;
		}
	/* 3. create and export */
	UB_CU(b, v->create(&r->h[me], r->size, &prop, 0));
	UB_CU(b, v->export_fd(&myfd, r->h[me], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	*fd = myfd;
	return 0;
}

/* Step 4: n-1 ring steps, a barrier each (TE's ipcsocket all-to-all): myfd
 * goes to me+p, peerfd[me-p] comes from me-p. 0 or -1; what arrived stays in
 * peerfd for the caller to close. */
static int reg_exchange(struct ub_comm *c, int sock, int myfd, int *peerfd)
{
	struct ub_boot *b = c->b;
	int me = c->me, n = c->n;

	for (int p = 1; p < n; p++) {
		int got, from = -1;
		if (ub_barrier(b) != 0 || ub_fd_send(b, sock, (me + p) % n, &myfd, 1) != 0)
			return -1;
		got = ub_fd_recv(b, sock, &peerfd[(me - p + n) % n], 1, &from, 30000);
		if (got != 1 || from != (me - p + n) % n) {
			ub_log(b, "fd exchange step %d: got %d fds from rank %d, wanted one from %d", p, got, from,
			       (me - p + n) % n);
			return -1;
		}
	}
	return 0;
}

/* Step 5: every peer's slice imported from its fd. 0 or -1. */
static int reg_import(struct ub_comm *c, struct ub_reg *r, const int *peerfd)
{
	struct ub_vmm *v = &c->d->vmm;

	for (int p = 0; p < c->n; p++)
		if (p != c->me) {
			CUresult rc = v->import_fd(&r->h[p], (void *)(uintptr_t)peerfd[p],
						   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
			if (rc != CUDA_SUCCESS) {
				ub_log(c->b, "cuMemImportFromShareableHandle(rank %d): %s", p, ub_err(rc));
				return -1;
			}
		}
	return 0;
}

/* Steps 6 to 8: every slice mapped into one reservation, and the slices'
 * pointers published in region 0. 0 or -1. */
static int reg_map(struct ub_comm *c, struct ub_reg *r, int h)
{
	struct ub_boot *b = c->b;
	struct ub_vmm *v = &c->d->vmm;
	CUmemAccessDesc access = { 0 };
	uint64_t table[UB_MAX_RANKS];
	int me = c->me, n = c->n;

	/* 6. one reservation for all ranks, each slice mapped */
	UB_CU(b, v->reserve(&r->base, r->size * (size_t)n, 0, 0, 0));
	for (int i = 0; i < n; i++) {
		r->ptr[i] = r->base + (CUdeviceptr)(r->size * (size_t)i);
		UB_CU(b, v->map(r->ptr[i], r->size, 0, r->h[i], 0));
	}
	/* 7. one cuMemSetAccess */
	access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	access.location.id = c->d->ordinal;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	UB_CU(b, v->set_access(r->base, r->size * (size_t)n, &access, 1));
	/* 8. zero region 0; the peers' pointers go into region 0 at h*n*8 */
	if (h == 0)
		UB_CU(b, cuMemsetD8(r->ptr[me], 0, r->size));
	for (int i = 0; i < n; i++)
		table[i] = (uint64_t)r->ptr[i];
	UB_CU(b, cuMemcpyHtoD(c->reg[0].ptr[me] + (CUdeviceptr)h * (CUdeviceptr)n * 8, table, (size_t)n * 8));
	UB_CU(b, cuCtxSynchronize());
	return 0;
}

int ub_register(struct ub_comm *c, size_t bytes)
{
	struct ub_boot *b = c->b;
	int h = c->nregs, n = c->n, sock, myfd = -1, peerfd[UB_MAX_RANKS];
	struct ub_reg *r = &c->reg[h];

	if (h >= UB_MAX_REGIONS)
		return -1;
	memset(r, 0, sizeof *r);
	if (reg_create(c, r, bytes, &myfd) != 0)
		return -1;
	/* 4. exchange: n-1 ring steps, a barrier each (TE's ipcsocket all-to-all) */
	if ((sock = ub_fd_socket(b)) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		peerfd[i] = -1;
	if (reg_exchange(c, sock, myfd, peerfd) != 0)
		goto fail;
	close(sock);
	sock = -1;
	/* 5. import, then close every fd */
	if (reg_import(c, r, peerfd) != 0)
		goto fail;
	for (int p = 0; p < n; p++)
		if (peerfd[p] >= 0)
			close(peerfd[p]), peerfd[p] = -1;
	close(myfd);
	myfd = -1;
	if (reg_map(c, r, h) != 0)
		return -1;
	c->nregs++;
	return h;
fail:
	if (sock >= 0)
		close(sock);
	if (myfd >= 0)
		close(myfd);
	for (int p = 0; p < n; p++)
		if (peerfd[p] >= 0)
			close(peerfd[p]);
	return -1;
}

int ub_comm_create(struct ub_comm *c, struct ub_boot *b, struct ub_dev *d, int multicast)
{
	memset(c, 0, sizeof *c);
	c->b = b;
	c->d = d;
	c->me = b->rank;
	c->n = b->n;
	int mc = ub_mc_setup(c, multicast);
	if (mc < 0)
		return -1;
	c->multicast = mc == 0;
	/* Region 0 (flags and pointer tables) first, then recv_id, as TE's constructor. */
	if (ub_register(c, UB_REG0_MIN_BYTES) != 0)
		return -1;
	UB_CU(b, cuMemAlloc(&c->recv_id, sizeof(int) * UB_MAX_REGIONS * (size_t)c->n));
	UB_CU(b, cuMemsetD32(c->recv_id, 0, UB_MAX_REGIONS * (size_t)c->n));
	UB_CU(b, cuCtxSynchronize());
	return ub_barrier(b); /* nobody signals into a region 0 not yet zeroed */
}

/* Teardown in TE's order: (multicast unbind), per rank unmap + release, then
 * the reservation; region by region, newest first. */
int ub_comm_destroy(struct ub_comm *c)
{
	struct ub_vmm *v = &c->d->vmm;
	struct ub_boot *b = c->b;
	int rc = 0;

	if (cuCtxSynchronize() != CUDA_SUCCESS || ub_barrier(b) != 0)
		rc = -1; /* still tear down */
	for (int h = c->nregs - 1; h >= 0; h--) {
		struct ub_reg *r = &c->reg[h];
		for (int i = 0; i < c->n; i++) {
			if (v->unmap(r->ptr[i], r->size) != CUDA_SUCCESS || v->release(r->h[i]) != CUDA_SUCCESS)
				rc = -1;
		}
		if (v->addr_free(r->base, r->size * (size_t)c->n) != CUDA_SUCCESS)
			rc = -1;
	}
	c->nregs = 0;
	if (c->recv_id && cuMemFree(c->recv_id) != CUDA_SUCCESS)
		rc = -1;
	if (c->scratch && cuMemFree(c->scratch) != CUDA_SUCCESS)
		rc = -1;
	c->recv_id = c->scratch = 0;
	if (rc)
		ub_log(b, "teardown failed");
	return rc;
}

/* ---- collectives ---- */
CUresult ub_launch_on(struct ub_dev *d, CUstream s, CUfunction f, unsigned grid, unsigned block, void **args)
{
	CUlaunchAttribute attr;
	CUlaunchConfig cfg;

	memset(&attr, 0, sizeof attr);
	memset(&cfg, 0, sizeof cfg);
	attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE; /* TE launches with cudaLaunchKernelExC, cooperative */
	attr.value.cooperative = 1;
	cfg.gridDimX = grid < d->max_grid ? grid : d->max_grid;
	cfg.gridDimY = cfg.gridDimZ = 1;
	cfg.blockDimX = block;
	cfg.blockDimY = cfg.blockDimZ = 1;
	cfg.hStream = s;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	return cuLaunchKernelEx(&cfg, f, args, NULL);
}

int ub_launch_kernel(struct ub_dev *d, CUfunction f, unsigned grid, unsigned block, void **args)
{
	return ub_launch_on(d, d->stream, f, grid, block, args) == CUDA_SUCCESS ? 0 : -1;
}

static unsigned grid_for(struct ub_dev *d, size_t bytes)
{
	size_t lines = bytes / 16, g = (lines + 511) / 512;
	if (g > (size_t)d->sms)
		g = (size_t)d->sms;
	return g ? (unsigned)g : 1;
}

int ub_reserve_scratch(struct ub_comm *c, size_t need)
{
	if (need <= c->scratch_size)
		return 0;
	if (c->scratch)
		UB_CU(c->b, cuMemFree(c->scratch));
	c->scratch = 0;
	c->scratch_size = 0;
	UB_CU(c->b, cuMemAlloc(&c->scratch, need));
	c->scratch_size = need;
	return 0;
}

#define TABLES(c, h)                                                                                  \
	CUdeviceptr flagp = (c)->reg[0].ptr[(c)->me];                                                  \
	CUdeviceptr datap = (c)->reg[0].ptr[(c)->me] + (CUdeviceptr)(h) * (CUdeviceptr)(c)->n * 8;     \
	(void)datap

int ub_barrier_kernel(struct ub_comm *c, int signal)
{
	TABLES(c, 0);
	void *args[] = { &flagp, &c->me, &c->n, &c->d->timeout_cycles, &signal };
	UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->barrier, 1, 32, args));
	return 0;
}

int ub_ag(struct ub_comm *c, int h, size_t chunk, int ce, int signal)
{
	struct ub_reg *r = &c->reg[h];
	TABLES(c, h);

	if (!ce) {
		void *args[] = { &flagp, &datap, &c->me, &c->n, &chunk, &c->d->timeout_cycles, &signal };
		UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->ag_push, grid_for(c->d, chunk), 512, args));
		return 0;
	}
	for (int k = 1; k < c->n; k++) {
		int p = (c->me + k) % c->n;
		CUdeviceptr off = (CUdeviceptr)(chunk * (size_t)c->me);
		UB_CU(c->b, cuMemcpyDtoDAsync(r->ptr[p] + off, r->ptr[c->me] + off, chunk, c->d->stream));
	}
	return ub_barrier_kernel(c, signal); /* the exit barrier */
}

int ub_rs(struct ub_comm *c, int h, size_t chunk, int dtype, int ce, int signal)
{
	struct ub_reg *r = &c->reg[h];
	TABLES(c, h);

	if (!ce) {
		void *args[] = { &flagp, &datap, &c->me, &c->n, &chunk, &dtype, &c->d->timeout_cycles, &signal };
		UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->rs_pullsum, grid_for(c->d, chunk), 512, args));
		return 0;
	}
	if (ub_reserve_scratch(c, chunk * (size_t)(c->n - 1)) != 0)
		return -1;
	if (ub_barrier_kernel(c, signal) != 0) /* entry: every rank's input is ready */
		return -1;
	for (int k = 1; k < c->n; k++) {
		int p = (c->me + k) % c->n;
		UB_CU(c->b, cuMemcpyDtoDAsync(c->scratch + (CUdeviceptr)(chunk * (size_t)(k - 1)),
					      r->ptr[p] + (CUdeviceptr)(chunk * (size_t)c->me), chunk, c->d->stream));
	}
	CUdeviceptr dst = r->ptr[c->me] + (CUdeviceptr)(chunk * (size_t)c->me);
	int nsrc = c->n - 1;
	void *args[] = { &dst, &c->scratch, &nsrc, &chunk, &dtype };
	UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->sum_local, grid_for(c->d, chunk), 512, args));
	return ub_barrier_kernel(c, signal); /* exit: the inputs may be reused */
}

int ub_ring(struct ub_comm *c, int h, size_t chunk, int ce, int signal)
{
	struct ub_reg *r = &c->reg[h];
	int next = (c->me + 1) % c->n, prev = (c->me - 1 + c->n) % c->n;
	size_t off = chunk * (size_t)c->me;
	TABLES(c, h);

	if (!ce) {
		void *args[] = { &flagp, &datap, &c->me, &next, &h, &off, &off, &chunk, &signal };
		UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->p2p_send, grid_for(c->d, chunk), 512, args));
	} else {
		UB_CU(c->b, cuMemcpyDtoDAsync(r->ptr[next] + (CUdeviceptr)off, r->ptr[c->me] + (CUdeviceptr)off, chunk,
					      c->d->stream));
		if (signal) {
			void *args[] = { &flagp, &c->me, &next, &h };
			UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->p2p_signal, 1, 1, args));
		}
	}
	void *rargs[] = { &flagp, &c->recv_id, &c->me, &prev, &h, &c->d->timeout_cycles };
	UB_CU(c->b, ub_launch_on(c->d, c->d->stream, c->d->p2p_recv, 1, 1, rargs));
	return 0;
}

int ub_sync_check(struct ub_comm *c, int quiet)
{
	static const char *const ops[] = { "?", "all-gather exit barrier", "reduce-scatter entry barrier",
					   "reduce-scatter exit barrier", "ring receive", "barrier" };
	int err[UB_ERR_WORDS];

	UB_CU(c->b, cuStreamSynchronize(c->d->stream));
	UB_CU(c->b, cuMemcpyDtoH(err, c->reg[0].ptr[c->me] + UB_ERR * 4, sizeof err));
	if (!err[0])
		return 0;
	if (!quiet)
		ub_log(c->b, "TIMEOUT: %s waited for rank %d (its flag was %d, wanted %d)",
		       ops[err[1] >= 1 && err[1] <= 5 ? err[1] : 0], err[2], err[3 + 1], err[3]);
	return -1;
}
