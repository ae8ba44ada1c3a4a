/* White-box tests of the downgrade adapters: no driver.  The older
 * variants in cushim_real[] are recording fakes; each adapter is called
 * through cushim_impl[] as the export's stub would, and the test checks that
 * when its condition holds the older variant got exactly the translated
 * arguments and its results came back translated, and that when it does not
 * hold the call returns 36 and the older variant was never called. */
#include "adapt.h"
#include "conf.h"
#include "log.h"
#include "slots.h"
#include "state.h"
#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U(x) ((uint64_t)(uintptr_t)(x))
#define MISSING_RC CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER /* 36 */

/* ---- the recorder ---- */
static struct {
	const char *fn;
	uint64_t a[10];
	int n;
} rec;
static int calls;          /* calls of any recording fake */
static CUresult ret;       /* what the fakes return */
static CUDA_KERNEL_NODE_PARAMS_v1 kp_seen; /* the v1 structure a fake was given */

#define RECORD(name, ...)                                                                                  \
	do {                                                                                               \
		uint64_t v_[] = { __VA_ARGS__ };                                                           \
		rec.fn = name;                                                                             \
		rec.n = (int)(sizeof v_ / sizeof *v_);                                                     \
		memcpy(rec.a, v_, sizeof v_);                                                              \
		calls++;                                                                                   \
	} while (0)

static void expect(const char *fn, int n, ...)
{
	va_list ap;
	ck_assert_int_eq(calls, 1);
	ck_assert_str_eq(rec.fn, fn);
	ck_assert_int_eq(rec.n, n);
	va_start(ap, n);
	for (int k = 0; k < n; k++) {
		uint64_t want = va_arg(ap, uint64_t);
		ck_assert_msg(rec.a[k] == want, "%s argument %d: %#llx, expected %#llx", fn, k,
			      (unsigned long long)rec.a[k], (unsigned long long)want);
	}
	va_end(ap);
}
#define EXPECT(fn, ...) expect(fn, (int)(sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)), __VA_ARGS__)
#define NOT_CALLED() ck_assert_int_eq(calls, 0)

/* ---- the fakes: the older variants ---- */
static CUcontext current_ctx;
static int current_calls;

static CUresult CUDAAPI f_cuCtxGetCurrent(CUcontext *pctx)
{
	current_calls++;
	*pctx = current_ctx;
	return CUDA_SUCCESS;
}
static CUresult CUDAAPI f_cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice_v1 dev)
{
	RECORD("cuCtxCreate_v2", U(pctx), flags, (uint64_t)dev);
	*pctx = (CUcontext)0xC0;
	return ret;
}
static CUresult CUDAAPI f_cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *p, int n, unsigned int flags,
					 CUdevice_v1 dev)
{
	RECORD("cuCtxCreate_v3", U(pctx), U(p), (uint64_t)n, flags, (uint64_t)dev);
	*pctx = (CUcontext)0xC3;
	return ret;
}
static CUresult CUDAAPI f_cuCtxGetDevice(CUdevice_v1 *device)
{
	RECORD("cuCtxGetDevice", U(device));
	*device = 3;
	return ret;
}
static CUresult CUDAAPI f_cuCtxSynchronize(void)
{
	RECORD("cuCtxSynchronize", 0);
	return ret;
}
static CUresult CUDAAPI f_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	RECORD("cuEventElapsedTime", U(ms), U(a), U(b));
	*ms = 1.5f;
	return ret;
}
/* cuFoo exists from 12.0; cuBar nowhere. */
static int gpa_calls;
static CUresult CUDAAPI f_cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	gpa_calls++;
	RECORD("cuGetProcAddress", U(symbol), U(pfn), (uint64_t)version, flags);
	if (version > 12080)
		return CUDA_ERROR_INVALID_VALUE;
	if (strcmp(symbol, "cuFoo") == 0 && version >= 12000) {
		*pfn = (void *)0xF00;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_NOT_FOUND;
}
static CUresult CUDAAPI f_cuGraphAddDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, size_t n)
{
	RECORD("cuGraphAddDependencies", U(g), U(from), U(to), n);
	return ret;
}
static CUresult CUDAAPI f_cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
						    size_t n)
{
	RECORD("cuGraphRemoveDependencies", U(g), U(from), U(to), n);
	return ret;
}
static CUresult CUDAAPI f_cuGraphAddNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *deps, size_t n,
					 CUgraphNodeParams *p)
{
	RECORD("cuGraphAddNode", U(ph), U(g), U(deps), n, U(p));
	*ph = (CUgraphNode)0xD0;
	return ret;
}
static CUresult CUDAAPI f_cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *n)
{
	RECORD("cuGraphGetEdges", U(g), U(from), U(to), U(n));
	*n = 7;
	return ret;
}
static CUresult CUDAAPI f_cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode *deps, size_t *n)
{
	RECORD("cuGraphNodeGetDependencies", U(node), U(deps), U(n));
	*n = 2;
	return ret;
}
static CUresult CUDAAPI f_cuGraphNodeGetDependentNodes(CUgraphNode node, CUgraphNode *deps, size_t *n)
{
	RECORD("cuGraphNodeGetDependentNodes", U(node), U(deps), U(n));
	*n = 4;
	return ret;
}
static CUresult CUDAAPI f_cuGraphAddKernelNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *deps, size_t n,
					       const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	RECORD("cuGraphAddKernelNode", U(ph), U(g), U(deps), n);
	kp_seen = *p;
	*ph = (CUgraphNode)0xE0;
	return ret;
}
static CUresult CUDAAPI f_cuGraphKernelNodeSetParams(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	RECORD("cuGraphKernelNodeSetParams", U(node));
	kp_seen = *p;
	return ret;
}
static CUresult CUDAAPI f_cuGraphExecKernelNodeSetParams(CUgraphExec e, CUgraphNode node,
							 const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	RECORD("cuGraphExecKernelNodeSetParams", U(e), U(node));
	kp_seen = *p;
	return ret;
}
static CUresult CUDAAPI f_cuGraphKernelNodeGetParams(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	RECORD("cuGraphKernelNodeGetParams", U(node));
	*p = kp_seen;
	return ret;
}
static CUgraphExecUpdateResult update_result;
static CUresult CUDAAPI f_cuGraphExecUpdate(CUgraphExec e, CUgraph g, CUgraphNode *err, CUgraphExecUpdateResult *res)
{
	RECORD("cuGraphExecUpdate", U(e), U(g));
	*err = update_result == CU_GRAPH_EXEC_UPDATE_SUCCESS ? NULL : (CUgraphNode)0xEE;
	*res = update_result;
	return update_result == CU_GRAPH_EXEC_UPDATE_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
}
static CUresult CUDAAPI f_cuMemAdvise(CUdeviceptr p, size_t count, CUmem_advise advice, CUdevice_v1 dev)
{
	RECORD("cuMemAdvise", p, count, (uint64_t)advice, (uint64_t)(int64_t)dev);
	return ret;
}
static CUresult CUDAAPI f_cuMemPrefetchAsync(CUdeviceptr p, size_t count, CUdevice_v1 dev, CUstream s)
{
	RECORD("cuMemPrefetchAsync", p, count, (uint64_t)(int64_t)dev, U(s));
	return ret;
}
static CUresult CUDAAPI f_cuMemPrefetchAsync_ptsz(CUdeviceptr p, size_t count, CUdevice_v1 dev, CUstream s)
{
	RECORD("cuMemPrefetchAsync_ptsz", p, count, (uint64_t)(int64_t)dev, U(s));
	return ret;
}
static size_t *failidx_seen;
#define FAKE_BATCH(name)                                                                                   \
	static CUresult CUDAAPI f_##name(CUdeviceptr *d, CUdeviceptr *s, size_t *sz, size_t count,          \
					 CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs, size_t *fail,  \
					 CUstream st)                                                         \
	{                                                                                                  \
		RECORD(#name, U(d), U(s), U(sz), count, U(attrs), U(idx), nattrs, U(st));                  \
		failidx_seen = fail;                                                                       \
		if (fail)                                                                                  \
			*fail = 5;                                                                         \
		return ret;                                                                                \
	}
FAKE_BATCH(cuMemcpyBatchAsync)
FAKE_BATCH(cuMemcpyBatchAsync_ptsz)
#define FAKE_BATCH3D(name)                                                                                 \
	static CUresult CUDAAPI f_##name(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail,               \
					 unsigned long long flags, CUstream st)                               \
	{                                                                                                  \
		RECORD(#name, n, U(ops), flags, U(st));                                                    \
		failidx_seen = fail;                                                                       \
		if (fail)                                                                                  \
			*fail = 5;                                                                         \
		return ret;                                                                                \
	}
FAKE_BATCH3D(cuMemcpy3DBatchAsync)
FAKE_BATCH3D(cuMemcpy3DBatchAsync_ptsz)
#define FAKE_CAPINFO(name)                                                                                 \
	static CUresult CUDAAPI f_##name(CUstream s, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,  \
					 const CUgraphNode **deps, size_t *n)                                 \
	{                                                                                                  \
		RECORD(#name, U(s), U(st), U(id), U(g), U(deps), U(n));                                    \
		*st = CU_STREAM_CAPTURE_STATUS_ACTIVE;                                                     \
		return ret;                                                                                \
	}
FAKE_CAPINFO(cuStreamGetCaptureInfo_v2)
FAKE_CAPINFO(cuStreamGetCaptureInfo_v2_ptsz)
#define FAKE_UPDCAP(name)                                                                                  \
	static CUresult CUDAAPI f_##name(CUstream s, CUgraphNode *deps, size_t n, unsigned int flags)       \
	{                                                                                                  \
		RECORD(#name, U(s), U(deps), n, flags);                                                    \
		return ret;                                                                                \
	}
FAKE_UPDCAP(cuStreamUpdateCaptureDependencies)
FAKE_UPDCAP(cuStreamUpdateCaptureDependencies_ptsz)
#define FAKE_GETCTX(name)                                                                                  \
	static CUresult CUDAAPI f_##name(CUstream s, CUcontext *pctx)                                       \
	{                                                                                                  \
		RECORD(#name, U(s), U(pctx));                                                              \
		*pctx = (CUcontext)0xCC;                                                                   \
		return ret;                                                                                \
	}
FAKE_GETCTX(cuStreamGetCtx)
FAKE_GETCTX(cuStreamGetCtx_ptsz)

static CUresult CUDAAPI f_cuLaunchHostFunc(CUstream s, CUhostFn fn, void *ud)
{
	RECORD("cuLaunchHostFunc", U(s), U(fn), U(ud));
	return ret;
}
static CUresult CUDAAPI f_cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void *ud)
{
	RECORD("cuLaunchHostFunc_ptsz", U(s), U(fn), U(ud));
	return ret;
}
static CUresult CUDAAPI f_cuGraphAddNode_v2(CUgraphNode *ph, CUgraph g, const CUgraphNode *deps,
					    const CUgraphEdgeData *e, size_t n, CUgraphNodeParams *p)
{
	RECORD("cuGraphAddNode_v2", U(ph), U(g), U(deps), U(e), n, U(p));
	*ph = (CUgraphNode)0xD2;
	return ret;
}
static CUresult CUDAAPI f_cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *p)
{
	RECORD("cuGraphNodeSetParams", U(node), U(p));
	return ret;
}
static CUresult CUDAAPI f_cuMulticastBindMem(CUmemGenericAllocationHandle mc, size_t mcOff,
					     CUmemGenericAllocationHandle mem, size_t memOff, size_t size,
					     unsigned long long flags)
{
	RECORD("cuMulticastBindMem", mc, mcOff, mem, memOff, size, flags);
	return ret;
}
static CUresult CUDAAPI f_cuMulticastBindAddr(CUmemGenericAllocationHandle mc, size_t mcOff, CUdeviceptr ptr,
					      size_t size, unsigned long long flags)
{
	RECORD("cuMulticastBindAddr", mc, mcOff, ptr, size, flags);
	return ret;
}
/* The queries the multicast adapters make: not recorded as calls. */
static CUmemLocation mem_location = { CU_MEM_LOCATION_TYPE_DEVICE, 2 };
static CUresult query_rc;
static CUresult CUDAAPI f_cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
								CUmemGenericAllocationHandle h)
{
	current_calls++;
	prop->location = mem_location;
	return query_rc;
}
static CUresult CUDAAPI f_cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
	current_calls++;
	if (attr == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
		*(unsigned int *)data = mem_location.type == CU_MEM_LOCATION_TYPE_DEVICE ? CU_MEMORYTYPE_DEVICE
											  : CU_MEMORYTYPE_HOST;
	else if (attr == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
		*(int *)data = mem_location.id;
	return query_rc;
}

/* Every older variant an adapter may call, as the bootstrap leaves them: real and impl. */
#define OLDER(X)                                                                                           \
	X(cuCtxGetCurrent) X(cuCtxCreate_v2) X(cuCtxCreate_v3) X(cuCtxGetDevice) X(cuCtxSynchronize)         \
	X(cuEventElapsedTime) X(cuGetProcAddress) X(cuGraphAddDependencies) X(cuGraphRemoveDependencies)     \
	X(cuGraphAddNode) X(cuGraphGetEdges) X(cuGraphNodeGetDependencies) X(cuGraphNodeGetDependentNodes)   \
	X(cuGraphAddKernelNode) X(cuGraphKernelNodeSetParams) X(cuGraphExecKernelNodeSetParams)              \
	X(cuGraphKernelNodeGetParams) X(cuGraphExecUpdate) X(cuMemAdvise) X(cuMemPrefetchAsync)              \
	X(cuMemPrefetchAsync_ptsz) X(cuMemcpyBatchAsync) X(cuMemcpyBatchAsync_ptsz) X(cuMemcpy3DBatchAsync)  \
	X(cuMemcpy3DBatchAsync_ptsz) X(cuStreamGetCaptureInfo_v2) X(cuStreamGetCaptureInfo_v2_ptsz)         \
	X(cuStreamUpdateCaptureDependencies) X(cuStreamUpdateCaptureDependencies_ptsz) X(cuStreamGetCtx)     \
	X(cuStreamGetCtx_ptsz) X(cuLaunchHostFunc) X(cuLaunchHostFunc_ptsz) X(cuGraphNodeSetParams)         \
	X(cuMulticastBindMem) X(cuMulticastBindAddr) X(cuMemGetAllocationPropertiesFromHandle)               \
	X(cuPointerGetAttribute)

/* Typed: a fake with the wrong prototype does not compile. */
#define SET(name)                                                                                          \
	{                                                                                                  \
		cushim_fn_##name *f_ = f_##name;                                                           \
		cushim_real[CUSHIM_IDX_##name] = cushim_impl[CUSHIM_IDX_##name] = (void *)f_;               \
	}

/* The adapter behind an export, typed as the export. */
#define ADAPTER(name) ((cushim_fn_##name *)cushim_impl[CUSHIM_IDX_##name])

/* A driver of this version: every older variant there, every newer one missing. */
static void driver(int version)
{
	memset(cushim_real, 0, sizeof(void *) * CUSHIM_NSYMS);
	memset(cushim_impl, 0, sizeof(void *) * CUSHIM_NSYMS);
	cushim_state.driver_version = version;
	OLDER(SET)
}

static void reset(void)
{
	memset(&rec, 0, sizeof rec);
	calls = 0;
	current_calls = 0;
	gpa_calls = 0;
	ret = CUDA_SUCCESS;
	query_rc = CUDA_SUCCESS;
	mem_location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	mem_location.id = 2;
}

/* The bootstrap's install of the adapters alone: the owners as the
 * driver's answers leave them, then the adapters' claims applied. */
static void adapt_install(int enabled)
{
	static struct cushim_claim c[CUSHIM_NSYMS];
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		cushim_owner[i] = cushim_real[i]   ? CUSHIM_OWNER_DRIVER :
				  cushim_impl[i]   ? CUSHIM_OWNER_ADAPTER :
						     CUSHIM_OWNER_NONE;
	if (enabled)
		cushim_apply_claims(c, cushim_adapt_claims(c));
}

static void setup(void)
{
	cushim_conf.level = CUSHIM_LOG_OFF;
	cushim_conf.npatterns = 0;
	cushim_conf.adapt = 1;
	driver(11040);
	adapt_install(1);
	reset();
}

/* ================= the table and the install ================= */

/* The candidates: every variant introduced from 12.0 to 13.5 that has an
 * older variant (the test below computes them from the table too). */
static const char *const candidates[] = {
	"cuCtxCreate_v4", "cuCtxGetDevice_v2", "cuCtxSynchronize_v2", "cuEventElapsedTime_v2",
	"cuGetProcAddress_v2", "cuGraphAddDependencies_v2", "cuGraphAddKernelNode_v2", "cuGraphAddNode_v2",
	"cuGraphAddNode_v3", "cuGraphExecKernelNodeSetParams_v2", "cuGraphExecUpdate_v2", "cuGraphGetEdges_v2",
	"cuGraphKernelNodeGetParams_v2", "cuGraphKernelNodeSetParams_v2", "cuGraphNodeGetDependencies_v2",
	"cuGraphNodeGetDependentNodes_v2", "cuGraphNodeSetParams_v2", "cuGraphRemoveDependencies_v2",
	"cuLaunchHostFunc_v2", "cuLaunchHostFunc_v2_ptsz", "cuMemAdvise_v2", "cuMemPrefetchAsync_v2",
	"cuMemPrefetchAsync_v2_ptsz", "cuMemcpy3DBatchAsync_v2", "cuMemcpy3DBatchAsync_v2_ptsz",
	"cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz", "cuMulticastBindAddr_v2", "cuMulticastBindMem_v2",
	"cuStreamGetCaptureInfo_v3", "cuStreamGetCaptureInfo_v3_ptsz", "cuStreamGetCtx_v2", "cuStreamGetCtx_v2_ptsz",
	"cuStreamUpdateCaptureDependencies_v2", "cuStreamUpdateCaptureDependencies_v2_ptsz",
};

static int is_candidate(const char *name)
{
	for (size_t c = 0; c < sizeof candidates / sizeof *candidates; c++)
		if (strcmp(candidates[c], name) == 0)
			return 1;
	return 0;
}

START_TEST(candidates_are_the_tables)
{
	int n = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		int older = 0;
		for (int j = 0; j < CUSHIM_NSYMS; j++)
			older |= strcmp(cushim_syms[j].base, s->base) == 0 && cushim_syms[j].flavour == s->flavour &&
				 cushim_syms[j].version < s->version;
		if (s->version < 12000 || !older)
			continue;
		ck_assert_msg(is_candidate(s->name), "%s (CUDA %d) has an older variant and no adapter row", s->name,
			      s->version);
		n++;
	}
	ck_assert_int_eq(n, (int)(sizeof candidates / sizeof *candidates));
}
END_TEST

START_TEST(table_rows)
{
	ck_assert_int_eq(cushim_nadapters, 36);
	for (int k = 0; k < cushim_nadapters; k++) {
		const struct cushim_adapter *a = &cushim_adapters[k];
		int i = cushim_lookup_index(a->name), j = cushim_lookup_index(a->older);
		ck_assert_msg(i >= 0 && j >= 0, "row %d: %s, %s in the symbol table", k, a->name, a->older);
		ck_assert_str_eq(cushim_syms[i].base, cushim_syms[j].base);
		ck_assert_int_eq(cushim_syms[i].flavour, cushim_syms[j].flavour);
		ck_assert_int_lt(cushim_syms[j].version, cushim_syms[i].version);
		ck_assert_int_ge(cushim_syms[i].version, 12000);
		ck_assert_int_le(cushim_syms[i].version, CUSHIM_NEWEST_VERSION);
		ck_assert_ptr_nonnull(cushim_adapter_for((unsigned)i));
		ck_assert(a->condition && *a->condition);
	}
	/* every candidate has a row */
	for (size_t c = 0; c < sizeof candidates / sizeof *candidates; c++) {
		int found = 0;
		for (int k = 0; k < cushim_nadapters; k++)
			found |= strcmp(cushim_adapters[k].name, candidates[c]) == 0;
		ck_assert_msg(found, "%s has a row", candidates[c]);
	}
	ck_assert_ptr_null(cushim_adapter_for(CUSHIM_IDX_cuCtxCreate_v2));
}
END_TEST

START_TEST(install_on_11_4)
{
	/* driver 11.4: every export with an adapter is served, but
	 * cuGraphAddNode_v3, whose older variant is missing too */
	for (size_t c = 0; c < sizeof candidates / sizeof *candidates; c++) {
		int i = cushim_lookup_index(candidates[c]);
		if (i == CUSHIM_IDX_cuGraphAddNode_v3)
			ck_assert_ptr_null(cushim_impl[i]);
		else
			ck_assert_msg(cushim_impl[i] == cushim_adapter_for((unsigned)i), "%s served", candidates[c]);
	}
	/* nothing else changed */
	int n = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++)
		n += cushim_impl[i] != cushim_real[i];
	ck_assert_int_eq(n, (int)(sizeof candidates / sizeof *candidates) - 1);
}
END_TEST

START_TEST(install_leaves_resolved)
{
	/* the driver has the newer variant: its own stays */
	driver(13000);
	cushim_real[CUSHIM_IDX_cuCtxCreate_v4] = cushim_impl[CUSHIM_IDX_cuCtxCreate_v4] = (void *)0x1234;
	adapt_install(1);
	ck_assert_ptr_eq(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4], (void *)0x1234);
}
END_TEST

START_TEST(install_needs_older)
{
	driver(11040);
	cushim_real[CUSHIM_IDX_cuEventElapsedTime] = cushim_impl[CUSHIM_IDX_cuEventElapsedTime] = NULL;
	cushim_real[CUSHIM_IDX_cuCtxCreate_v2] = cushim_impl[CUSHIM_IDX_cuCtxCreate_v2] = NULL;
	adapt_install(1);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuEventElapsedTime_v2]);
	/* cuCtxCreate_v4 still has cuCtxCreate_v3 */
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
	reset();
	CUcontext ctx = NULL;
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, NULL, 0, 0), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(install_hidden)
{
	static char pat[] = "cuCtxCreate_v4";
	driver(11040);
	cushim_conf.patterns[0] = pat;
	cushim_conf.npatterns = 1;
	adapt_install(1);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuCtxSynchronize_v2]);
}
END_TEST

START_TEST(install_off)
{
	driver(11040);
	adapt_install(0);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
	cushim_conf.adapt = 0; /* CUSHIM_ADAPT=0 */
	adapt_install(1);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
	cushim_conf.adapt = 1;
	adapt_install(1);
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
}
END_TEST

/* Run fn with fd 2 going to a file; return what it wrote (static buffer). */
static const char *captured(void (*fn)(void))
{
	static char buf[8192];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_ptr_nonnull(f);
	dup2(fileno(f), 2);
	fn();
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void install_bad(void)
{
	driver(11040);
	setenv("CUSHIM_ADAPT", "yes", 1);
	cushim_conf_load();
	unsetenv("CUSHIM_ADAPT");
	adapt_install(1);
}

START_TEST(install_bad_value)
{
	cushim_conf.level = CUSHIM_LOG_WARN;
	const char *out = captured(install_bad);
	ck_assert_ptr_nonnull(strstr(out, "cushim: CUSHIM_ADAPT=\"yes\" is not 0 or 1: 1 is used\n"));
	ck_assert_ptr_null(strstr(strstr(out, "CUSHIM_ADAPT") + 1, "CUSHIM_ADAPT")); /* once */
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuCtxCreate_v4]);
}
END_TEST

START_TEST(install_green_contexts)
{
	/* 12.4 has green contexts: cuStreamGetCtx_v2 cannot be served */
	driver(12040);
	adapt_install(1);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuStreamGetCtx_v2]);
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuStreamGetCtx_v2_ptsz]);
	driver(12030);
	adapt_install(1);
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuStreamGetCtx_v2]);
}
END_TEST

/* ================= the log ================= */

static void three_syncs(void)
{
	ADAPTER(cuCtxSynchronize_v2)(NULL);
	ADAPTER(cuCtxSynchronize_v2)(NULL);
	ADAPTER(cuCtxCreate_v4)(&(CUcontext){ 0 }, NULL, 0, 0);
	ADAPTER(cuCtxSynchronize_v2)(NULL);
}

START_TEST(log_once_at_warn)
{
	cushim_conf.level = CUSHIM_LOG_WARN;
	const char *out = captured(three_syncs);
	ck_assert_str_eq(out, "cushim: cuCtxSynchronize_v2 served by cuCtxSynchronize (ctx NULL or the current "
			      "context); this driver is CUDA 11.4\n"
			      "cushim: cuCtxCreate_v4 served by cuCtxCreate_v2 (no parameters); this driver is "
			      "CUDA 11.4\n");
}
END_TEST

START_TEST(log_every_call_at_trace)
{
	cushim_conf.level = CUSHIM_LOG_TRACE;
	const char *out = captured(three_syncs);
	const char *p = out;
	int n = 0;
	while ((p = strstr(p, "cuCtxSynchronize_v2 served by cuCtxSynchronize")))
		n++, p++;
	ck_assert_int_eq(n, 3);
}
END_TEST

START_TEST(log_off)
{
	cushim_conf.level = CUSHIM_LOG_OFF;
	ck_assert_str_eq(captured(three_syncs), "");
}
END_TEST

/* ================= contexts ================= */

START_TEST(ctx_create_no_params)
{
	CUcontext ctx = NULL;
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, NULL, 0x4, 2), CUDA_SUCCESS);
	EXPECT("cuCtxCreate_v2", U(&ctx), 0x4, 2);
	ck_assert_ptr_eq(ctx, (CUcontext)0xC0);

	reset();
	CUctxCreateParams p = { NULL, 0, NULL };
	ret = CUDA_ERROR_INVALID_DEVICE; /* the older variant's result comes back */
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &p, 0, 9), CUDA_ERROR_INVALID_DEVICE);
	EXPECT("cuCtxCreate_v2", U(&ctx), 0, 9);
}
END_TEST

START_TEST(ctx_create_affinity)
{
	CUcontext ctx = NULL;
	CUexecAffinityParam aff[2];
	CUctxCreateParams p = { aff, 2, NULL };
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &p, 0x1, 1), CUDA_SUCCESS);
	EXPECT("cuCtxCreate_v3", U(&ctx), U(aff), 2, 0x1, 1);
	ck_assert_ptr_eq(ctx, (CUcontext)0xC3);
}
END_TEST

START_TEST(ctx_create_missing)
{
	CUcontext ctx = NULL;
	CUexecAffinityParam aff[1];
	CUctxCigParam cig = { CIG_DATA_TYPE_NV_BLOB, (void *)1 };
	CUctxCreateParams with_cig = { NULL, 0, &cig };
	CUctxCreateParams both = { aff, 1, &cig };
	CUctxCreateParams no_count = { aff, 0, NULL };
	CUctxCreateParams count_only = { NULL, 1, NULL };
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &with_cig, 0, 0), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &both, 0, 0), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &no_count, 0, 0), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuCtxCreate_v4)(&ctx, &count_only, 0, 0), MISSING_RC);
	NOT_CALLED();
	ck_assert_ptr_null(ctx);
}
END_TEST

START_TEST(ctx_get_device)
{
	CUdevice dev = -1;
	ck_assert_int_eq(ADAPTER(cuCtxGetDevice_v2)(&dev, NULL), CUDA_SUCCESS);
	EXPECT("cuCtxGetDevice", U(&dev));
	ck_assert_int_eq(dev, 3);

	reset();
	current_ctx = (CUcontext)0xAA;
	dev = -1;
	ck_assert_int_eq(ADAPTER(cuCtxGetDevice_v2)(&dev, (CUcontext)0xAA), CUDA_SUCCESS);
	EXPECT("cuCtxGetDevice", U(&dev));
	ck_assert_int_eq(current_calls, 1);

	reset();
	ck_assert_int_eq(ADAPTER(cuCtxGetDevice_v2)(&dev, (CUcontext)0xBB), MISSING_RC);
	NOT_CALLED();
	current_ctx = NULL;
}
END_TEST

START_TEST(ctx_synchronize)
{
	ret = CUDA_ERROR_LAUNCH_FAILED;
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)(NULL), CUDA_ERROR_LAUNCH_FAILED);
	EXPECT("cuCtxSynchronize", 0);

	reset();
	current_ctx = (CUcontext)0xAA;
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)((CUcontext)0xAA), CUDA_SUCCESS);
	EXPECT("cuCtxSynchronize", 0);

	reset();
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)((CUcontext)0xBB), MISSING_RC);
	NOT_CALLED();
	/* no current context: a non-NULL ctx is never it */
	current_ctx = NULL;
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)((CUcontext)0xBB), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(ctx_current_unknown)
{
	/* without cuCtxGetCurrent a non-NULL ctx cannot be judged */
	cushim_real[CUSHIM_IDX_cuCtxGetCurrent] = NULL;
	current_ctx = (CUcontext)0xAA;
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)((CUcontext)0xAA), MISSING_RC);
	NOT_CALLED();
	ck_assert_int_eq(ADAPTER(cuCtxSynchronize_v2)(NULL), CUDA_SUCCESS);
	current_ctx = NULL;
}
END_TEST

/* ================= events ================= */

START_TEST(event_elapsed)
{
	float ms = 0;
	ck_assert_int_eq(ADAPTER(cuEventElapsedTime_v2)(&ms, (CUevent)1, (CUevent)2), CUDA_SUCCESS);
	EXPECT("cuEventElapsedTime", U(&ms), 1, 2);
	ck_assert(ms == 1.5f);
	reset();
	ret = CUDA_ERROR_NOT_READY;
	ck_assert_int_eq(ADAPTER(cuEventElapsedTime_v2)(&ms, (CUevent)1, (CUevent)2), CUDA_ERROR_NOT_READY);
}
END_TEST

/* ================= entry points ================= */

START_TEST(get_proc_address)
{
	void *p = (void *)1;
	CUdriverProcAddressQueryResult st = -1;
	const char *foo = "cuFoo", *bar = "cuBar";

	/* found */
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)(foo, &p, 12000, 2, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(p, (void *)0xF00);
	ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_SUCCESS);
	ck_assert_int_eq(gpa_calls, 1);
	ck_assert_int_eq(rec.a[2], 12000);
	ck_assert_int_eq(rec.a[3], 2); /* the flags as given */

	/* exists, but later than asked: the driver's own version tells */
	cushim_state.driver_version = 12080;
	p = (void *)1, st = -1, gpa_calls = 0;
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)(foo, &p, 11030, 0, &st), CUDA_SUCCESS);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	ck_assert_int_eq(gpa_calls, 2);

	/* nowhere */
	p = (void *)1, st = -1;
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)(bar, &p, 12000, 0, &st), CUDA_SUCCESS);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

	/* no status asked for: one lookup */
	p = (void *)1, gpa_calls = 0;
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)(bar, &p, 12000, 0, NULL), CUDA_SUCCESS);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(gpa_calls, 1);

	/* above the driver: its error, status untouched */
	st = -1;
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)(foo, &p, 13000, 0, &st), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq((int)st, -1);
}
END_TEST

static CUresult CUDAAPI own_gpa(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	*pfn = (void *)0x5157;
	return CUDA_SUCCESS;
}

START_TEST(get_proc_address_through_impl)
{
	/* cushim's own cuGetProcAddress (emulation, hiding, stubs) answers */
	void *p = NULL;
	cushim_impl[CUSHIM_IDX_cuGetProcAddress] = (void *)own_gpa;
	ck_assert_int_eq(ADAPTER(cuGetProcAddress_v2)("cuFoo", &p, 12000, 0, NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(p, (void *)0x5157);
	NOT_CALLED();
}
END_TEST

/* ================= graphs: edge data ================= */

static const CUgraphNode from[2] = { (CUgraphNode)0x10, (CUgraphNode)0x11 }, to[2] = { (CUgraphNode)0x20,
										 (CUgraphNode)0x21 };

START_TEST(graph_add_dependencies)
{
	CUgraphEdgeData zero[2];
	memset(zero, 0, sizeof zero);
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, NULL, 2), CUDA_SUCCESS);
	EXPECT("cuGraphAddDependencies", 0x9, U(from), U(to), 2);
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, zero, 2), CUDA_SUCCESS);
	EXPECT("cuGraphAddDependencies", 0x9, U(from), U(to), 2);

	reset();
	CUgraphEdgeData prog[2];
	memset(prog, 0, sizeof prog);
	prog[1].type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, prog, 2), MISSING_RC);
	prog[1].type = 0;
	prog[1].from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, prog, 2), MISSING_RC);
	prog[1].from_port = 0;
	prog[1].reserved[4] = 1;
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, prog, 2), MISSING_RC);
	NOT_CALLED();
	/* only the first n entries count */
	ck_assert_int_eq(ADAPTER(cuGraphAddDependencies_v2)((CUgraph)0x9, from, to, prog, 1), CUDA_SUCCESS);
	EXPECT("cuGraphAddDependencies", 0x9, U(from), U(to), 1);
}
END_TEST

START_TEST(graph_remove_dependencies)
{
	CUgraphEdgeData e[1];
	memset(e, 0, sizeof e);
	ret = CUDA_ERROR_INVALID_VALUE;
	ck_assert_int_eq(ADAPTER(cuGraphRemoveDependencies_v2)((CUgraph)0x9, from, to, e, 1), CUDA_ERROR_INVALID_VALUE);
	EXPECT("cuGraphRemoveDependencies", 0x9, U(from), U(to), 1);
	reset();
	e[0].to_port = 1;
	ck_assert_int_eq(ADAPTER(cuGraphRemoveDependencies_v2)((CUgraph)0x9, from, to, e, 1), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(graph_add_node)
{
	CUgraphNode node = NULL;
	CUgraphNodeParams params;
	CUgraphEdgeData e[2];
	memset(&params, 0, sizeof params);
	memset(e, 0, sizeof e);
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v2)(&node, (CUgraph)0x9, from, e, 2, &params), CUDA_SUCCESS);
	EXPECT("cuGraphAddNode", U(&node), 0x9, U(from), 2, U(&params));
	ck_assert_ptr_eq(node, (CUgraphNode)0xD0);
	reset();
	e[0].type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v2)(&node, (CUgraph)0x9, from, e, 2, &params), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* ================= graphs: node parameters of CUDA 13.4 ================= */

/* A byte of the union part of CUgraphNodeParams, by its offset there. */
static unsigned char *union_byte(CUgraphNodeParams *p, size_t off)
{
	return (unsigned char *)p + offsetof(CUgraphNodeParams, kernel) + off;
}

static CUgraphNodeParams node(CUgraphNodeType type)
{
	CUgraphNodeParams p;
	memset(&p, 0, sizeof p);
	p.type = type;
	return p;
}

/* A 13.0 driver: cuGraphAddNode_v2 is there (older drivers lack it too, and
 * an adapter does not call another adapter: cuGraphAddNode_v3 stays missing). */
static void graph_driver_13_0(void)
{
	driver(13000);
	SET(cuGraphAddNode_v2);
	adapt_install(1);
	reset();
}

START_TEST(graph_add_node_v3_on_12_2)
{
	ck_assert_ptr_nonnull(cushim_impl[CUSHIM_IDX_cuGraphAddNode_v2]); /* its own adapter */
	ck_assert_ptr_null(cushim_impl[CUSHIM_IDX_cuGraphAddNode_v3]);
}
END_TEST

START_TEST(graph_add_node_v3)
{
	CUgraphNode out = NULL;
	CUgraphEdgeData e[2];
	CUgraphNodeParams p = node(CU_GRAPH_NODE_TYPE_KERNEL);
	graph_driver_13_0();
	memset(e, 0, sizeof e);
	p.kernel.func = (CUfunction)0xF1;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, from, e, 2, &p), CUDA_SUCCESS);
	EXPECT("cuGraphAddNode_v2", U(&out), 0x9, U(from), U(e), 2, U(&p));
	ck_assert_ptr_eq(out, (CUgraphNode)0xD2);

	/* a host node as 13.0 knew it: fn and userData, the rest zero */
	reset();
	p = node(CU_GRAPH_NODE_TYPE_HOST);
	p.host.fn = (CUhostFn)0xF2;
	p.host.userData = (void *)0xDA;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), CUDA_SUCCESS);
	EXPECT("cuGraphAddNode_v2", U(&out), 0x9, 0, 0, 0, U(&p));
	/* the kinds of 13.0 that did not grow */
	reset();
	p = node(CU_GRAPH_NODE_TYPE_CONDITIONAL);
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), CUDA_SUCCESS);
	reset();
	p = node(CU_GRAPH_NODE_TYPE_EMPTY);
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), CUDA_SUCCESS);
}
END_TEST

START_TEST(graph_add_node_v3_missing)
{
	CUgraphNode out = NULL;
	CUgraphNodeParams p = node(CU_GRAPH_NODE_TYPE_KERNEL);
	graph_driver_13_0();

	p.kernel.func = (CUfunction)0xF1; /* func and ctx: 13.4 checks ctx, 13.0 ignored it */
	p.kernel.ctx = (CUcontext)0xC1;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node(CU_GRAPH_NODE_TYPE_HOST);
	*union_byte(&p, 16) = 1; /* syncMode CU_HOST_TASK_SPINWAIT */
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node(CU_GRAPH_NODE_TYPE_HOST);
	*union_byte(&p, 24) = 0xC1; /* a preferred context */
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
	*union_byte(&p, 8) = 0xC1;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node(CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT);
	*union_byte(&p, 24) = 0xC1;
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node((CUgraphNodeType)14); /* CU_GRAPH_NODE_TYPE_MEMCPY_BATCH (13.4) */
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	p = node((CUgraphNodeType)18); /* CU_GRAPH_NODE_TYPE_FABRIC_CPY_BATCH (13.5) */
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, &p), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuGraphAddNode_v3)(&out, (CUgraph)0x9, NULL, NULL, 0, NULL), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(graph_node_set_params_v2)
{
	CUgraphNodeParams p = node(CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL);

	*union_byte(&p, 19) = 1; /* numExtSems, a 13.0 field */
	ck_assert_int_eq(ADAPTER(cuGraphNodeSetParams_v2)((CUgraphNode)0x8, &p), CUDA_SUCCESS);
	EXPECT("cuGraphNodeSetParams", 0x8, U(&p));
	reset();
	*union_byte(&p, 20) = 1; /* past it: 13.4's preferred context or padding */
	ck_assert_int_eq(ADAPTER(cuGraphNodeSetParams_v2)((CUgraphNode)0x8, &p), MISSING_RC);
	p = node(CU_GRAPH_NODE_TYPE_KERNEL);
	p.kernel.kern = (CUkernel)0xE1; /* a CUkernel with its context: the same in both */
	p.kernel.ctx = (CUcontext)0xC1;
	ck_assert_int_eq(ADAPTER(cuGraphNodeSetParams_v2)((CUgraphNode)0x8, &p), CUDA_SUCCESS);
	EXPECT("cuGraphNodeSetParams", 0x8, U(&p));
}
END_TEST

/* ================= multicast (never called on a GPU: fakes only) ================= */

START_TEST(multicast_bind_mem)
{
	ck_assert_int_eq(ADAPTER(cuMulticastBindMem_v2)(0xAC, 2, 0x100, 0x3E3, 0x200, 4096, 0), CUDA_SUCCESS);
	EXPECT("cuMulticastBindMem", 0xAC, 0x100, 0x3E3, 0x200, 4096, 0);
	ck_assert_int_eq(current_calls, 1);
	reset();
	ck_assert_int_eq(ADAPTER(cuMulticastBindMem_v2)(0xAC, 3, 0x100, 0x3E3, 0x200, 4096, 0), MISSING_RC);
	mem_location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	ck_assert_int_eq(ADAPTER(cuMulticastBindMem_v2)(0xAC, 2, 0x100, 0x3E3, 0x200, 4096, 0), MISSING_RC);
	mem_location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	query_rc = CUDA_ERROR_INVALID_VALUE;
	ck_assert_int_eq(ADAPTER(cuMulticastBindMem_v2)(0xAC, 2, 0x100, 0x3E3, 0x200, 4096, 0), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(multicast_bind_addr)
{
	ck_assert_int_eq(ADAPTER(cuMulticastBindAddr_v2)(0xAC, 2, 0x100, 0x7000, 4096, 0), CUDA_SUCCESS);
	EXPECT("cuMulticastBindAddr", 0xAC, 0x100, 0x7000, 4096, 0);
	reset();
	ck_assert_int_eq(ADAPTER(cuMulticastBindAddr_v2)(0xAC, 1, 0x100, 0x7000, 4096, 0), MISSING_RC);
	mem_location.type = CU_MEM_LOCATION_TYPE_HOST;
	ck_assert_int_eq(ADAPTER(cuMulticastBindAddr_v2)(0xAC, 2, 0x100, 0x7000, 4096, 0), MISSING_RC);
	mem_location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	query_rc = CUDA_ERROR_INVALID_VALUE;
	ck_assert_int_eq(ADAPTER(cuMulticastBindAddr_v2)(0xAC, 2, 0x100, 0x7000, 4096, 0), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* ================= host functions ================= */

START_TEST(launch_host_func)
{
	ck_assert_int_eq(ADAPTER(cuLaunchHostFunc_v2)((CUstream)0x5, (CUhostFn)0xF2, (void *)0xDA, 0), CUDA_SUCCESS);
	EXPECT("cuLaunchHostFunc", 0x5, 0xF2, 0xDA);
	reset();
	ret = CUDA_ERROR_INVALID_HANDLE;
	ck_assert_int_eq(ADAPTER(cuLaunchHostFunc_v2_ptsz)(NULL, (CUhostFn)0xF2, NULL, 0), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("cuLaunchHostFunc_ptsz", 0, 0xF2, 0);
	reset();
	/* CU_HOST_TASK_SPINWAIT, or a mode from after 13.5: missing */
	ck_assert_int_eq(ADAPTER(cuLaunchHostFunc_v2)((CUstream)0x5, (CUhostFn)0xF2, NULL, 1), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuLaunchHostFunc_v2_ptsz)((CUstream)0x5, (CUhostFn)0xF2, NULL, 7), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(graph_queries)
{
	CUgraphNode a[4], b[4];
	CUgraphEdgeData e[4];
	size_t n = 4;

	ck_assert_int_eq(ADAPTER(cuGraphGetEdges_v2)((CUgraph)0x9, a, b, NULL, &n), CUDA_SUCCESS);
	EXPECT("cuGraphGetEdges", 0x9, U(a), U(b), U(&n));
	ck_assert_uint_eq(n, 7);
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphGetEdges_v2)((CUgraph)0x9, a, b, e, &n), MISSING_RC);
	NOT_CALLED();

	n = 4;
	ck_assert_int_eq(ADAPTER(cuGraphNodeGetDependencies_v2)((CUgraphNode)0x8, a, NULL, &n), CUDA_SUCCESS);
	EXPECT("cuGraphNodeGetDependencies", 0x8, U(a), U(&n));
	ck_assert_uint_eq(n, 2);
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphNodeGetDependencies_v2)((CUgraphNode)0x8, a, e, &n), MISSING_RC);
	NOT_CALLED();

	n = 4;
	ck_assert_int_eq(ADAPTER(cuGraphNodeGetDependentNodes_v2)((CUgraphNode)0x8, NULL, NULL, &n), CUDA_SUCCESS);
	EXPECT("cuGraphNodeGetDependentNodes", 0x8, 0, U(&n));
	ck_assert_uint_eq(n, 4);
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphNodeGetDependentNodes_v2)((CUgraphNode)0x8, a, e, &n), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* ================= graphs: kernel nodes ================= */

static void *kargs[1];
static void *kextra[1];
static const CUDA_KERNEL_NODE_PARAMS_v2 kp2 = { (CUfunction)0xF1, 1, 2, 3, 4, 5, 6, 7, kargs, kextra,
						(CUkernel)0xBAD, (CUcontext)0xBAD };

static void assert_v1_is_v2(const CUDA_KERNEL_NODE_PARAMS_v1 *a, const CUDA_KERNEL_NODE_PARAMS_v2 *b)
{
	ck_assert_ptr_eq(a->func, b->func);
	ck_assert_uint_eq(a->gridDimX, b->gridDimX);
	ck_assert_uint_eq(a->gridDimY, b->gridDimY);
	ck_assert_uint_eq(a->gridDimZ, b->gridDimZ);
	ck_assert_uint_eq(a->blockDimX, b->blockDimX);
	ck_assert_uint_eq(a->blockDimY, b->blockDimY);
	ck_assert_uint_eq(a->blockDimZ, b->blockDimZ);
	ck_assert_uint_eq(a->sharedMemBytes, b->sharedMemBytes);
	ck_assert_ptr_eq(a->kernelParams, b->kernelParams);
	ck_assert_ptr_eq(a->extra, b->extra);
}

START_TEST(kernel_node_set)
{
	CUgraphNode node = NULL;
	CUDA_KERNEL_NODE_PARAMS_v2 by_kernel = kp2;
	by_kernel.func = NULL;

	ck_assert_int_eq(ADAPTER(cuGraphAddKernelNode_v2)(&node, (CUgraph)0x9, from, 2, &kp2), CUDA_SUCCESS);
	EXPECT("cuGraphAddKernelNode", U(&node), 0x9, U(from), 2);
	assert_v1_is_v2(&kp_seen, &kp2);
	ck_assert_ptr_eq(node, (CUgraphNode)0xE0);

	reset();
	memset(&kp_seen, 0, sizeof kp_seen);
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeSetParams_v2)((CUgraphNode)0x8, &kp2), CUDA_SUCCESS);
	EXPECT("cuGraphKernelNodeSetParams", 0x8);
	assert_v1_is_v2(&kp_seen, &kp2);

	reset();
	memset(&kp_seen, 0, sizeof kp_seen);
	ret = CUDA_ERROR_INVALID_VALUE;
	ck_assert_int_eq(ADAPTER(cuGraphExecKernelNodeSetParams_v2)((CUgraphExec)0x7, (CUgraphNode)0x8, &kp2),
			 CUDA_ERROR_INVALID_VALUE);
	EXPECT("cuGraphExecKernelNodeSetParams", 0x7, 0x8);
	assert_v1_is_v2(&kp_seen, &kp2);

	/* a CUkernel (func NULL), or no parameters: missing */
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphAddKernelNode_v2)(&node, (CUgraph)0x9, NULL, 0, &by_kernel), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeSetParams_v2)((CUgraphNode)0x8, &by_kernel), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuGraphExecKernelNodeSetParams_v2)((CUgraphExec)0x7, (CUgraphNode)0x8, &by_kernel),
			 MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeSetParams_v2)((CUgraphNode)0x8, NULL), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeGetParams_v2)((CUgraphNode)0x8, NULL), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(kernel_node_get)
{
	CUDA_KERNEL_NODE_PARAMS_v2 out;
	memset(&out, 0xAB, sizeof out);
	memcpy(&kp_seen, &kp2, sizeof kp_seen); /* what the node holds: the v1 part */
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeGetParams_v2)((CUgraphNode)0x8, &out), CUDA_SUCCESS);
	EXPECT("cuGraphKernelNodeGetParams", 0x8);
	assert_v1_is_v2(&kp_seen, &out);
	ck_assert_ptr_null(out.kern);
	ck_assert_ptr_null(out.ctx);

	/* failure: nothing written */
	reset();
	ret = CUDA_ERROR_INVALID_VALUE;
	memset(&out, 0xAB, sizeof out);
	ck_assert_int_eq(ADAPTER(cuGraphKernelNodeGetParams_v2)((CUgraphNode)0x8, &out), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_eq(out.kern, (CUkernel)(uintptr_t)0xABABABABABABABABull);
}
END_TEST

/* ================= graphs: update ================= */

START_TEST(graph_exec_update)
{
	CUgraphExecUpdateResultInfo info;

	memset(&info, 0xAB, sizeof info);
	update_result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
	ck_assert_int_eq(ADAPTER(cuGraphExecUpdate_v2)((CUgraphExec)0x7, (CUgraph)0x9, &info), CUDA_SUCCESS);
	EXPECT("cuGraphExecUpdate", 0x7, 0x9);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
	ck_assert_ptr_null(info.errorNode);
	ck_assert_ptr_null(info.errorFromNode);

	reset();
	memset(&info, 0xAB, sizeof info);
	update_result = CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
	ck_assert_int_eq(ADAPTER(cuGraphExecUpdate_v2)((CUgraphExec)0x7, (CUgraph)0x9, &info),
			 CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED);
	ck_assert_ptr_eq(info.errorNode, (CUgraphNode)0xEE);
	ck_assert_ptr_null(info.errorFromNode);

	/* a topology change: v1 cannot give errorFromNode; the update was not
	 * performed, so the call is missing and resultInfo untouched */
	reset();
	memset(&info, 0xAB, sizeof info);
	update_result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	ck_assert_int_eq(ADAPTER(cuGraphExecUpdate_v2)((CUgraphExec)0x7, (CUgraph)0x9, &info), MISSING_RC);
	ck_assert_int_eq((int)info.result, (int)0xABABABAB);

	/* no resultInfo: missing, not called */
	reset();
	ck_assert_int_eq(ADAPTER(cuGraphExecUpdate_v2)((CUgraphExec)0x7, (CUgraph)0x9, NULL), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* ================= unified memory ================= */

START_TEST(mem_advise)
{
	CUmemLocation dev1 = { CU_MEM_LOCATION_TYPE_DEVICE, 1 }, host = { CU_MEM_LOCATION_TYPE_HOST, 77 },
		      numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 }, numa_cur = { CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0 };

	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev1), CUDA_SUCCESS);
	EXPECT("cuMemAdvise", 0x1000, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 1);
	reset();
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, host), CUDA_SUCCESS);
	EXPECT("cuMemAdvise", 0x1000, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, (uint64_t)(int64_t)CU_DEVICE_CPU);
	/* a NUMA node where the advice ignores the location */
	reset();
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, numa), CUDA_SUCCESS);
	EXPECT("cuMemAdvise", 0x1000, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, (uint64_t)(int64_t)CU_DEVICE_CPU);
	reset();
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, numa_cur),
			 CUDA_SUCCESS);
	EXPECT("cuMemAdvise", 0x1000, 64, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, (uint64_t)(int64_t)CU_DEVICE_CPU);
	/* a NUMA node where it counts: missing */
	reset();
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, numa), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, numa_cur),
			 MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuMemAdvise_v2)(0x1000, 64, CU_MEM_ADVISE_UNSET_ACCESSED_BY, numa), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(mem_prefetch)
{
	CUmemLocation dev1 = { CU_MEM_LOCATION_TYPE_DEVICE, 1 }, host = { CU_MEM_LOCATION_TYPE_HOST, 0 },
		      numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 };
	ck_assert_int_eq(ADAPTER(cuMemPrefetchAsync_v2)(0x1000, 64, dev1, 0, (CUstream)0x5), CUDA_SUCCESS);
	EXPECT("cuMemPrefetchAsync", 0x1000, 64, 1, 0x5);
	reset();
	ck_assert_int_eq(ADAPTER(cuMemPrefetchAsync_v2_ptsz)(0x1000, 64, host, 0, (CUstream)0x5), CUDA_SUCCESS);
	EXPECT("cuMemPrefetchAsync_ptsz", 0x1000, 64, (uint64_t)(int64_t)CU_DEVICE_CPU, 0x5);
	reset();
	ck_assert_int_eq(ADAPTER(cuMemPrefetchAsync_v2)(0x1000, 64, dev1, 1, (CUstream)0x5), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuMemPrefetchAsync_v2)(0x1000, 64, numa, 0, (CUstream)0x5), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuMemPrefetchAsync_v2_ptsz)(0x1000, 64, numa, 0, (CUstream)0x5), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* ================= batched copies ================= */

START_TEST(memcpy_batch)
{
	CUdeviceptr d[2], s[2];
	size_t sz[2], idx[1] = { 0 };
	CUmemcpyAttributes attrs[1];

	ck_assert_int_eq(ADAPTER(cuMemcpyBatchAsync_v2)(d, s, sz, 2, attrs, idx, 1, (CUstream)0x5), CUDA_SUCCESS);
	EXPECT("cuMemcpyBatchAsync", U(d), U(s), U(sz), 2, U(attrs), U(idx), 1, 0x5);
	ck_assert_ptr_nonnull(failidx_seen);
	reset();
	ret = CUDA_ERROR_INVALID_VALUE;
	ck_assert_int_eq(ADAPTER(cuMemcpyBatchAsync_v2_ptsz)(d, s, sz, 2, attrs, idx, 1, (CUstream)0x5),
			 CUDA_ERROR_INVALID_VALUE);
	EXPECT("cuMemcpyBatchAsync_ptsz", U(d), U(s), U(sz), 2, U(attrs), U(idx), 1, 0x5);
}
END_TEST

START_TEST(memcpy_3d_batch)
{
	CUDA_MEMCPY3D_BATCH_OP ops[3];
	ck_assert_int_eq(ADAPTER(cuMemcpy3DBatchAsync_v2)(3, ops, 0, (CUstream)0x5), CUDA_SUCCESS);
	EXPECT("cuMemcpy3DBatchAsync", 3, U(ops), 0, 0x5);
	ck_assert_ptr_nonnull(failidx_seen);
	reset();
	ck_assert_int_eq(ADAPTER(cuMemcpy3DBatchAsync_v2_ptsz)(3, ops, 0, (CUstream)0x5), CUDA_SUCCESS);
	EXPECT("cuMemcpy3DBatchAsync_ptsz", 3, U(ops), 0, 0x5);
}
END_TEST

/* ================= streams ================= */

START_TEST(capture_info)
{
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	cuuint64_t id;
	CUgraph g;
	const CUgraphNode *deps;
	const CUgraphEdgeData *edges;
	size_t n;

	ck_assert_int_eq(ADAPTER(cuStreamGetCaptureInfo_v3)((CUstream)0x5, &st, &id, &g, &deps, NULL, &n),
			 CUDA_SUCCESS);
	EXPECT("cuStreamGetCaptureInfo_v2", 0x5, U(&st), U(&id), U(&g), U(&deps), U(&n));
	ck_assert_int_eq(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
	reset();
	ck_assert_int_eq(ADAPTER(cuStreamGetCaptureInfo_v3_ptsz)((CUstream)0x5, &st, NULL, NULL, NULL, NULL, NULL),
			 CUDA_SUCCESS);
	EXPECT("cuStreamGetCaptureInfo_v2_ptsz", 0x5, U(&st), 0, 0, 0, 0);
	reset();
	ck_assert_int_eq(ADAPTER(cuStreamGetCaptureInfo_v3)((CUstream)0x5, &st, &id, &g, &deps, &edges, &n),
			 MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuStreamGetCaptureInfo_v3_ptsz)((CUstream)0x5, &st, &id, &g, &deps, &edges, &n),
			 MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(update_capture_dependencies)
{
	CUgraphNode deps[2] = { (CUgraphNode)0x10, (CUgraphNode)0x11 };
	CUgraphEdgeData e[2];
	memset(e, 0, sizeof e);
	ck_assert_int_eq(ADAPTER(cuStreamUpdateCaptureDependencies_v2)((CUstream)0x5, deps, NULL, 2,
								       CU_STREAM_SET_CAPTURE_DEPENDENCIES),
			 CUDA_SUCCESS);
	EXPECT("cuStreamUpdateCaptureDependencies", 0x5, U(deps), 2, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
	reset();
	ck_assert_int_eq(ADAPTER(cuStreamUpdateCaptureDependencies_v2_ptsz)((CUstream)0x5, deps, e, 2, 0),
			 CUDA_SUCCESS);
	EXPECT("cuStreamUpdateCaptureDependencies_ptsz", 0x5, U(deps), 2, 0);
	reset();
	e[1].type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ck_assert_int_eq(ADAPTER(cuStreamUpdateCaptureDependencies_v2)((CUstream)0x5, deps, e, 2, 0), MISSING_RC);
	ck_assert_int_eq(ADAPTER(cuStreamUpdateCaptureDependencies_v2_ptsz)((CUstream)0x5, deps, e, 2, 0), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(stream_get_ctx)
{
	CUcontext ctx = NULL;
	CUgreenCtx green = (CUgreenCtx)0x77;

	ck_assert_int_eq(ADAPTER(cuStreamGetCtx_v2)((CUstream)0x5, &ctx, &green), CUDA_SUCCESS);
	EXPECT("cuStreamGetCtx", 0x5, U(&ctx));
	ck_assert_ptr_eq(ctx, (CUcontext)0xCC);
	ck_assert_ptr_null(green);
	reset();
	green = (CUgreenCtx)0x77;
	ck_assert_int_eq(ADAPTER(cuStreamGetCtx_v2_ptsz)(NULL, &ctx, &green), CUDA_SUCCESS);
	EXPECT("cuStreamGetCtx_ptsz", 0, U(&ctx));
	ck_assert_ptr_null(green);

	/* failure: pGreenCtx untouched */
	reset();
	ret = CUDA_ERROR_INVALID_CONTEXT;
	green = (CUgreenCtx)0x77;
	ck_assert_int_eq(ADAPTER(cuStreamGetCtx_v2)((CUstream)0x5, &ctx, &green), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_eq(green, (CUgreenCtx)0x77);

	/* no pGreenCtx: missing */
	reset();
	ck_assert_int_eq(ADAPTER(cuStreamGetCtx_v2)((CUstream)0x5, &ctx, NULL), MISSING_RC);
	NOT_CALLED();
}
END_TEST

START_TEST(stream_get_ctx_green_driver)
{
	/* installed on 12.3, then the version seen is 12.4 (never in practice):
	 * the adapter itself refuses */
	CUcontext ctx = NULL;
	CUgreenCtx green = NULL;
	driver(12030);
	adapt_install(1);
	reset();
	cushim_state.driver_version = 12040;
	ck_assert_int_eq(ADAPTER(cuStreamGetCtx_v2)((CUstream)0x5, &ctx, &green), MISSING_RC);
	NOT_CALLED();
}
END_TEST

/* A test case of tests (ended by NULL), each run after setup. */
static TCase *tcase_of(const char *name, const TTest *const tests[])
{
	TCase *t = tcase_create(name);
	tcase_add_checked_fixture(t, setup, NULL);
	for (int i = 0; tests[i]; i++)
		tcase_add_test(t, tests[i]);
	return t;
}

static Suite *adapt_suite(void)
{
	const TTest *const install[] = { table_rows,	  candidates_are_the_tables, install_on_11_4,
					 install_leaves_resolved, install_needs_older,	     install_hidden,
					 install_off,		  install_bad_value,	     install_green_contexts,
					 NULL };
	const TTest *const log[] = { log_once_at_warn, log_every_call_at_trace, log_off, NULL };
	const TTest *const adapters[] = {
		ctx_create_no_params,	    ctx_create_affinity,	   ctx_create_missing,
		ctx_get_device,		    ctx_synchronize,		   ctx_current_unknown,
		event_elapsed,		    get_proc_address,		   get_proc_address_through_impl,
		graph_add_dependencies,	    graph_remove_dependencies,	   graph_add_node,
		graph_add_node_v3_on_12_2,  graph_add_node_v3,		   graph_add_node_v3_missing,
		graph_node_set_params_v2,   multicast_bind_mem,		   multicast_bind_addr,
		launch_host_func,	    graph_queries,		   kernel_node_set,
		kernel_node_get,	    graph_exec_update,		   mem_advise,
		mem_prefetch,		    memcpy_batch,		   memcpy_3d_batch,
		capture_info,		    update_capture_dependencies,   stream_get_ctx,
		stream_get_ctx_green_driver, NULL,
	};
	Suite *s = suite_create("adapt");
	suite_add_tcase(s, tcase_of("install", install));
	suite_add_tcase(s, tcase_of("log", log));
	suite_add_tcase(s, tcase_of("adapters", adapters));
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(adapt_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
