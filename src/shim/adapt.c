/* Downgrade adapters.  Each adapter has the exact prototype of the
 * export it serves; it checks its condition, and when that holds it
 * translates the arguments, calls the older variant through cushim_real[] and
 * translates the results back.  When it does not hold, the call behaves as
 * missing (cushim_missing_call, 36), the older variant never called.  The
 * conditions and the documentation they rest on: doc/ADAPTERS.md. */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "missing.h"
#include "conf.h"
#include "settings.h"
#include "log.h"
#include "adapt.h"
#include "notes.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A row's number, for its once-only log line: ROW_cuCtxCreate_v4__cuCtxCreate_v2. */
#define ROW(name, older, cond, below) ROW_##name##__##older,
enum { CUSHIM_ADAPTER_LIST(ROW) NROWS };
#undef ROW

/* The older variant as the driver gave it, typed as the table's row (the
 * toolkit's declaration where it has one). */
#ifndef CUSHIM_NO_ADAPTERS
#define REAL(name) ((cushim_fn_##name *)cushim_real[CUSHIM_IDX_##name])
#define MISSING(name) cushim_missing_call(CUSHIM_IDX_##name)

/* ---- the log: the first use of each row at warn, every use at trace ---- */
static unsigned char used[NROWS];

static void served(int row)
{
	const struct cushim_adapter *a = &cushim_adapters[row];
	char v[16];
	int first = !__atomic_exchange_n(&used[row], 1, __ATOMIC_RELAXED);

	if (!first && cushim_conf.level < CUSHIM_LOG_TRACE)
		return;
	cushim_log(first ? CUSHIM_LOG_WARN : CUSHIM_LOG_TRACE, "%s served by %s (%s); this driver is CUDA %s",
		   a->name, a->older, a->condition, cushim_format_version(cushim_state.driver_version, v));
}
#define SERVED(name, older) served(ROW_##name##__##older)

/* Default (zeroed) edge data, which the older variants imply for every edge:
 * CUgraphEdgeData says a zero port "means full completion of the upstream
 * node" / "the entirety of the downstream node", type 0 is
 * CU_GRAPH_DEPENDENCY_TYPE_DEFAULT ("an ordinary dependency"), and the
 * reserved bytes "must be zeroed". */
static int default_edges(const CUgraphEdgeData *e, size_t n)
{
	static const CUgraphEdgeData zero;
	if (!e)
		return 1;
	for (size_t k = 0; k < n; k++)
		if (memcmp(&e[k], &zero, sizeof zero) != 0)
			return 0;
	return 1;
}

/* A CUmemLocation as the CUdevice of the older memory-advice functions: a
 * device by its ordinal, the host as CU_DEVICE_CPU.  Host NUMA nodes have no
 * CUdevice. */
static int location_device(CUmemLocation loc, CUdevice *dev)
{
	switch (loc.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		*dev = loc.id;
		return 1;
	case CU_MEM_LOCATION_TYPE_HOST:
		*dev = CU_DEVICE_CPU; /* the id "is ignored" */
		return 1;
	default:
		return 0;
	}
}

/* Is ctx the calling thread's current context (so that the old variant,
 * which works on the current context, works on ctx)? */
static int is_current(CUcontext ctx)
{
	CUcontext cur = NULL;
	if (!REAL(cuCtxGetCurrent))
		return 0;
	return REAL(cuCtxGetCurrent)(&cur) == CUDA_SUCCESS && cur == ctx && cur != NULL;
}

/* ================= contexts ================= */

static CUresult CUDAAPI adapt_cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *p, unsigned int flags, CUdevice dev)
{
	/* No parameters: NULL, or "if both are NULL, the context will be created
	 * as a regular CUDA context" (numExecAffinityParams "must be 0 if
	 * execAffinityParams is NULL"). */
	if (!p || (!p->execAffinityParams && !p->cigParams && p->numExecAffinityParams == 0)) {
		if (!REAL(cuCtxCreate_v2))
			return MISSING(cuCtxCreate_v4);
		SERVED(cuCtxCreate_v4, cuCtxCreate_v2);
		return REAL(cuCtxCreate_v2)(pctx, flags, dev);
	}
	/* Execution affinity alone is what cuCtxCreate_v3 takes. */
	if (p->execAffinityParams && !p->cigParams && p->numExecAffinityParams > 0 && REAL(cuCtxCreate_v3)) {
		SERVED(cuCtxCreate_v4, cuCtxCreate_v3);
		return REAL(cuCtxCreate_v3)(pctx, p->execAffinityParams, p->numExecAffinityParams, flags, dev);
	}
	return MISSING(cuCtxCreate_v4); /* CIG, or both, or a count that does not fit */
}

static CUresult CUDAAPI adapt_cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	/* "If the specified context is NULL, the API will return the current
	 * context's device." */
	if (ctx && !is_current(ctx))
		return MISSING(cuCtxGetDevice_v2);
	SERVED(cuCtxGetDevice_v2, cuCtxGetDevice);
	return REAL(cuCtxGetDevice)(device);
}

static CUresult CUDAAPI adapt_cuCtxSynchronize_v2(CUcontext ctx)
{
	/* "If the specified context is NULL, the API will operate on the
	 * current context." */
	if (ctx && !is_current(ctx))
		return MISSING(cuCtxSynchronize_v2);
	SERVED(cuCtxSynchronize_v2, cuCtxSynchronize);
	return REAL(cuCtxSynchronize)();
}

/* ================= events ================= */

static CUresult CUDAAPI adapt_cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	SERVED(cuEventElapsedTime_v2, cuEventElapsedTime);
	return REAL(cuEventElapsedTime)(pMilliseconds, hStart, hEnd);
}

/* ================= entry points ================= */

static CUresult CUDAAPI adapt_cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
						  CUdriverProcAddressQueryResult *status)
{
	/* Through what implements cuGetProcAddress (cushim's own while it
	 * watches: emulation, hiding, its stubs handed out), else the driver's. */
	__typeof__(&cuGetProcAddress) v1 = (__typeof__(&cuGetProcAddress))cushim_impl[CUSHIM_IDX_cuGetProcAddress];
	void *p = NULL;
	CUresult r;

	if (!v1)
		v1 = REAL(cuGetProcAddress);
	if (!v1)
		return MISSING(cuGetProcAddress_v2);
	SERVED(cuGetProcAddress_v2, cuGetProcAddress);
	if (!symbol || !pfn)
		return v1(symbol, pfn, version, flags);
	r = v1(symbol, &p, version, flags);
	if (r == CUDA_SUCCESS && p) {
		*pfn = p;
		if (status)
			*status = CU_GET_PROC_ADDRESS_SUCCESS;
		return r;
	}
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_FOUND)
		return r; /* CUDA_ERROR_INVALID_VALUE above the driver's version, ... */
	/* Not found: v2 "will return CUDA_SUCCESS and set the returned pfn to
	 * NULL"; the status says whether the symbol exists at a later version
	 * (VERSION_NOT_SUFFICIENT) or not at all: ask again at the driver's own. */
	*pfn = NULL;
	if (status) {
		void *q = NULL;
		int top = cushim_state.driver_version;
		*status = top > version && v1(symbol, &q, top, flags) == CUDA_SUCCESS && q
				  ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
				  : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	}
	return CUDA_SUCCESS;
}

/* ================= graphs: edge data ================= */

static CUresult CUDAAPI adapt_cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
							const CUgraphEdgeData *edgeData, size_t n)
{
	/* "edgeData - Optional array of edge data. If NULL, default (zeroed)
	 * edge data is assumed." */
	if (!default_edges(edgeData, n))
		return MISSING(cuGraphAddDependencies_v2);
	SERVED(cuGraphAddDependencies_v2, cuGraphAddDependencies);
	return REAL(cuGraphAddDependencies)(hGraph, from, to, n);
}

static CUresult CUDAAPI adapt_cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
							   const CUgraphNode *to, const CUgraphEdgeData *edgeData,
							   size_t n)
{
	/* "edgeData is nullable, which is equivalent to passing default
	 * (zeroed) data for each edge." */
	if (!default_edges(edgeData, n))
		return MISSING(cuGraphRemoveDependencies_v2);
	SERVED(cuGraphRemoveDependencies_v2, cuGraphRemoveDependencies);
	return REAL(cuGraphRemoveDependencies)(hGraph, from, to, n);
}

static CUresult CUDAAPI adapt_cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
						const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
						size_t n, CUgraphNodeParams *nodeParams)
{
	/* "If NULL, the data is assumed to be default (zeroed) for all
	 * dependencies." */
	if (!default_edges(dependencyData, n))
		return MISSING(cuGraphAddNode_v2);
	SERVED(cuGraphAddNode_v2, cuGraphAddNode);
	return REAL(cuGraphAddNode)(phGraphNode, hGraph, dependencies, n, nodeParams);
}

/* ================= graphs: node parameters of CUDA 13.4 ================= */

/* CUgraphNodeParams is "a tagged union" whose "unused bytes - that is,
 * reserved0 and all bytes past the utilized union member - must be set to
 * zero".  From 13.4 (cuGraphAddNode_v3, cuGraphNodeSetParams_v2) some members
 * grew into those bytes: host nodes a syncMode and a preferred context, event
 * record and external-semaphore nodes a preferred context; and kernel nodes
 * with both func and ctx set have ctx checked.  The older variants read the
 * 13.0 members only, so they mean the same when the call uses none of that:
 * a node type of 13.0, nothing past its 13.0 member, and no kernel node with
 * both func and ctx. */
static int node_params_of_13_0(const CUgraphNodeParams *p)
{
	const unsigned char *u = (const unsigned char *)p + offsetof(CUgraphNodeParams, kernel);
	const size_t n = offsetof(CUgraphNodeParams, reserved2) - offsetof(CUgraphNodeParams, kernel);
	size_t member;

	if (!p)
		return 0;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		return !(p->kernel.func && p->kernel.ctx); /* "ignored if func is set" before */
	case CU_GRAPH_NODE_TYPE_HOST:
		member = 2 * sizeof(void *); /* fn, userData */
		break;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		member = sizeof(CUevent); /* event */
		break;
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
		member = 2 * sizeof(void *) + sizeof(unsigned int); /* extSemArray, paramsArray, numExtSems */
		break;
	default:
		return p->type >= CU_GRAPH_NODE_TYPE_KERNEL && p->type <= CU_GRAPH_NODE_TYPE_CONDITIONAL;
	}
	for (size_t k = member; k < n; k++)
		if (u[k])
			return 0;
	return 1;
}

static CUresult CUDAAPI adapt_cuGraphAddNode_v3(CUgraphNode *phGraphNode, CUgraph hGraph,
						const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
						size_t n, CUgraphNodeParams *nodeParams)
{
	if (!node_params_of_13_0(nodeParams))
		return MISSING(cuGraphAddNode_v3);
	SERVED(cuGraphAddNode_v3, cuGraphAddNode_v2);
	return REAL(cuGraphAddNode_v2)(phGraphNode, hGraph, dependencies, dependencyData, n, nodeParams);
}

static CUresult CUDAAPI adapt_cuGraphNodeSetParams_v2(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
	if (!node_params_of_13_0(nodeParams))
		return MISSING(cuGraphNodeSetParams_v2);
	SERVED(cuGraphNodeSetParams_v2, cuGraphNodeSetParams);
	return REAL(cuGraphNodeSetParams)(hNode, nodeParams);
}

/* The queries: only without edge data asked for.  A driver without the v2
 * variants has no edge data (it came with them in 12.3), so the older query
 * loses nothing. */
static CUresult CUDAAPI adapt_cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
						 CUgraphEdgeData *edgeData, size_t *numEdges)
{
	if (edgeData)
		return MISSING(cuGraphGetEdges_v2);
	SERVED(cuGraphGetEdges_v2, cuGraphGetEdges);
	return REAL(cuGraphGetEdges)(hGraph, from, to, numEdges);
}

static CUresult CUDAAPI adapt_cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
							    CUgraphEdgeData *edgeData, size_t *n)
{
	if (edgeData)
		return MISSING(cuGraphNodeGetDependencies_v2);
	SERVED(cuGraphNodeGetDependencies_v2, cuGraphNodeGetDependencies);
	return REAL(cuGraphNodeGetDependencies)(hNode, dependencies, n);
}

static CUresult CUDAAPI adapt_cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
							      CUgraphEdgeData *edgeData, size_t *n)
{
	if (edgeData)
		return MISSING(cuGraphNodeGetDependentNodes_v2);
	SERVED(cuGraphNodeGetDependentNodes_v2, cuGraphNodeGetDependentNodes);
	return REAL(cuGraphNodeGetDependentNodes)(hNode, dependentNodes, n);
}

/* ================= graphs: kernel node parameters ================= */

/* The v1 structure is the v2 one without its last two fields, kern ("will
 * only be referenced if func is NULL") and ctx ("ignored if func is set"). */
static void kernel_params_v1(CUDA_KERNEL_NODE_PARAMS_v1 *o, const CUDA_KERNEL_NODE_PARAMS_v2 *p)
{
	o->func = p->func;
	o->gridDimX = p->gridDimX;
	o->gridDimY = p->gridDimY;
	o->gridDimZ = p->gridDimZ;
	o->blockDimX = p->blockDimX;
	o->blockDimY = p->blockDimY;
	o->blockDimZ = p->blockDimZ;
	o->sharedMemBytes = p->sharedMemBytes;
	o->kernelParams = p->kernelParams;
	o->extra = p->extra;
}

static CUresult CUDAAPI adapt_cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
						      const CUgraphNode *dependencies, size_t n,
						      const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
	CUDA_KERNEL_NODE_PARAMS_v1 p1;
	if (!nodeParams || !nodeParams->func)
		return MISSING(cuGraphAddKernelNode_v2);
	kernel_params_v1(&p1, nodeParams);
	SERVED(cuGraphAddKernelNode_v2, cuGraphAddKernelNode);
	return REAL(cuGraphAddKernelNode)(phGraphNode, hGraph, dependencies, n, &p1);
}

static CUresult CUDAAPI adapt_cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
							    const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
	CUDA_KERNEL_NODE_PARAMS_v1 p1;
	if (!nodeParams || !nodeParams->func)
		return MISSING(cuGraphKernelNodeSetParams_v2);
	kernel_params_v1(&p1, nodeParams);
	SERVED(cuGraphKernelNodeSetParams_v2, cuGraphKernelNodeSetParams);
	return REAL(cuGraphKernelNodeSetParams)(hNode, &p1);
}

static CUresult CUDAAPI adapt_cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
								const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
	CUDA_KERNEL_NODE_PARAMS_v1 p1;
	if (!nodeParams || !nodeParams->func)
		return MISSING(cuGraphExecKernelNodeSetParams_v2);
	kernel_params_v1(&p1, nodeParams);
	SERVED(cuGraphExecKernelNodeSetParams_v2, cuGraphExecKernelNodeSetParams);
	return REAL(cuGraphExecKernelNodeSetParams)(hGraphExec, hNode, &p1);
}

static CUresult CUDAAPI adapt_cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
	CUDA_KERNEL_NODE_PARAMS_v1 p1;
	CUresult r;

	if (!nodeParams)
		return MISSING(cuGraphKernelNodeGetParams_v2);
	memset(&p1, 0, sizeof p1);
	SERVED(cuGraphKernelNodeGetParams_v2, cuGraphKernelNodeGetParams);
	r = REAL(cuGraphKernelNodeGetParams)(hNode, &p1);
	if (r != CUDA_SUCCESS)
		return r;
	nodeParams->func = p1.func;
	nodeParams->gridDimX = p1.gridDimX;
	nodeParams->gridDimY = p1.gridDimY;
	nodeParams->gridDimZ = p1.gridDimZ;
	nodeParams->blockDimX = p1.blockDimX;
	nodeParams->blockDimY = p1.blockDimY;
	nodeParams->blockDimZ = p1.blockDimZ;
	nodeParams->sharedMemBytes = p1.sharedMemBytes;
	nodeParams->kernelParams = p1.kernelParams;
	nodeParams->extra = p1.extra;
	/* Every kernel node of a driver without the v2 variants (12.0, with
	 * CUkernel) has its func set, so these two are unused. */
	nodeParams->kern = NULL;
	nodeParams->ctx = NULL;
	return r;
}

/* ================= graphs: update ================= */

static CUresult CUDAAPI adapt_cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
						   CUgraphExecUpdateResultInfo *resultInfo)
{
	CUgraphNode errorNode = NULL;
	CUgraphExecUpdateResult result = CU_GRAPH_EXEC_UPDATE_ERROR;
	CUresult r;

	if (!resultInfo)
		return MISSING(cuGraphExecUpdate_v2);
	r = REAL(cuGraphExecUpdate)(hGraphExec, hGraph, &errorNode, &result);
	/* A topology change: v2 may name the mismatched dependency in
	 * errorFromNode, which v1 does not give.  The update "was not performed",
	 * so nothing has happened: the call is missing after all. */
	if (result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
		return MISSING(cuGraphExecUpdate_v2);
	SERVED(cuGraphExecUpdate_v2, cuGraphExecUpdate);
	resultInfo->result = result;
	resultInfo->errorNode = errorNode;
	resultInfo->errorFromNode = NULL; /* "Otherwise NULL." */
	return r;
}

/* ================= unified memory ================= */

static CUresult CUDAAPI adapt_cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
					     CUmemLocation location)
{
	CUdevice dev;
	if (!location_device(location, &dev)) {
		/* "The location argument is ignored for this advice." */
		if (advice != CU_MEM_ADVISE_SET_READ_MOSTLY && advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY &&
		    advice != CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION)
			return MISSING(cuMemAdvise_v2);
		dev = CU_DEVICE_CPU;
	}
	SERVED(cuMemAdvise_v2, cuMemAdvise);
	return REAL(cuMemAdvise)(devPtr, count, advice, dev);
}

#define PREFETCH(v2, v1)                                                                                   \
	static CUresult CUDAAPI adapt_##v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,        \
					   unsigned int flags, CUstream hStream)                              \
	{                                                                                                  \
		CUdevice dev;                                                                              \
		/* flags: "for future use, must be zero now" */                                            \
		if (flags != 0 || !location_device(location, &dev))                                        \
			return MISSING(v2);                                                                \
		SERVED(v2, v1);                                                                            \
		return REAL(v1)(devPtr, count, dev, hStream);                                              \
	}
PREFETCH(cuMemPrefetchAsync_v2, cuMemPrefetchAsync)
PREFETCH(cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync_ptsz)

/* ================= batched copies: the v1 failIdx, dropped ================= */

#define BATCH(v2, v1)                                                                                      \
	static CUresult CUDAAPI adapt_##v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, \
					   CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,     \
					   CUstream hStream)                                                  \
	{                                                                                                  \
		size_t failIdx = SIZE_MAX;                                                                 \
		SERVED(v2, v1);                                                                            \
		return REAL(v1)(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, &failIdx, hStream);   \
	}
BATCH(cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync)
BATCH(cuMemcpyBatchAsync_v2_ptsz, cuMemcpyBatchAsync_ptsz)

#define BATCH3D(v2, v1)                                                                                    \
	static CUresult CUDAAPI adapt_##v2(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,                   \
					   unsigned long long flags, CUstream hStream)                        \
	{                                                                                                  \
		size_t failIdx = SIZE_MAX;                                                                 \
		SERVED(v2, v1);                                                                            \
		return REAL(v1)(numOps, opList, &failIdx, flags, hStream);                                 \
	}
BATCH3D(cuMemcpy3DBatchAsync_v2, cuMemcpy3DBatchAsync)
BATCH3D(cuMemcpy3DBatchAsync_v2_ptsz, cuMemcpy3DBatchAsync_ptsz)

/* ================= multicast ================= */

/* cuMulticastBindMem "must have been created on one of the devices that was
 * added to the multicast team": the binding is for that device.  The v2
 * variants bind "for the device dev", and for device memory "the memory
 * allocation must have been created on the device specified by dev": the
 * same binding when the memory is on dev.  Host NUMA memory has no v1 form. */
static CUresult CUDAAPI adapt_cuMulticastBindMem_v2(CUmemGenericAllocationHandle mcHandle, CUdevice dev,
						    size_t mcOffset, CUmemGenericAllocationHandle memHandle,
						    size_t memOffset, size_t size, unsigned long long flags)
{
	CUmemAllocationProp prop;

	memset(&prop, 0, sizeof prop);
	if (!REAL(cuMemGetAllocationPropertiesFromHandle) ||
	    REAL(cuMemGetAllocationPropertiesFromHandle)(&prop, memHandle) != CUDA_SUCCESS ||
	    prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != dev)
		return MISSING(cuMulticastBindMem_v2);
	SERVED(cuMulticastBindMem_v2, cuMulticastBindMem);
	return REAL(cuMulticastBindMem)(mcHandle, mcOffset, memHandle, memOffset, size, flags);
}

/* The same for a mapped address: CU_POINTER_ATTRIBUTE_MEMORY_TYPE "describing
 * the physical location of a pointer" is the device, and
 * CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL ("a device against which the memory was
 * allocated") is dev. */
static CUresult CUDAAPI adapt_cuMulticastBindAddr_v2(CUmemGenericAllocationHandle mcHandle, CUdevice dev,
						     size_t mcOffset, CUdeviceptr memptr, size_t size,
						     unsigned long long flags)
{
	unsigned int type = 0;
	int ordinal = -1;

	if (!REAL(cuPointerGetAttribute) ||
	    REAL(cuPointerGetAttribute)(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, memptr) != CUDA_SUCCESS ||
	    type != CU_MEMORYTYPE_DEVICE ||
	    REAL(cuPointerGetAttribute)(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, memptr) != CUDA_SUCCESS ||
	    ordinal != dev)
		return MISSING(cuMulticastBindAddr_v2);
	SERVED(cuMulticastBindAddr_v2, cuMulticastBindAddr);
	return REAL(cuMulticastBindAddr)(mcHandle, mcOffset, memptr, size, flags);
}

/* ================= streams ================= */

/* cuLaunchHostFunc_v2 adds a syncMode, CUhostTaskSyncMode: 0 is
 * CU_HOST_TASK_BLOCKING, "The execution thread will block until new host
 * tasks are ready to run", the mode host nodes got from callers that zeroed
 * the bytes where 13.4 put their syncMode.  Otherwise the two texts are the
 * same. */
#define HOST_TASK_BLOCKING 0u
#define HOSTFUNC(v2, v1)                                                                                   \
	static CUresult CUDAAPI adapt_##v2(CUstream hStream, CUhostFn fn, void *userData, unsigned int syncMode) \
	{                                                                                                  \
		if (syncMode != HOST_TASK_BLOCKING)                                                        \
			return MISSING(v2);                                                                \
		SERVED(v2, v1);                                                                            \
		return REAL(v1)(hStream, fn, userData);                                                    \
	}
HOSTFUNC(cuLaunchHostFunc_v2, cuLaunchHostFunc)
HOSTFUNC(cuLaunchHostFunc_v2_ptsz, cuLaunchHostFunc_ptsz)


#define CAPTUREINFO(v3, v2)                                                                                \
	static CUresult CUDAAPI adapt_##v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,     \
					   cuuint64_t *id_out, CUgraph *graph_out,                            \
					   const CUgraphNode **dependencies_out,                              \
					   const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out) \
	{                                                                                                  \
		if (edgeData_out)                                                                          \
			return MISSING(v3);                                                                \
		SERVED(v3, v2);                                                                            \
		return REAL(v2)(hStream, captureStatus_out, id_out, graph_out, dependencies_out,           \
				numDependencies_out);                                                      \
	}
CAPTUREINFO(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v2)
CAPTUREINFO(cuStreamGetCaptureInfo_v3_ptsz, cuStreamGetCaptureInfo_v2_ptsz)

#define UPDATECAPTURE(v2, v1)                                                                              \
	static CUresult CUDAAPI adapt_##v2(CUstream hStream, CUgraphNode *dependencies,                     \
					   const CUgraphEdgeData *dependencyData, size_t n, unsigned int flags) \
	{                                                                                                  \
		if (!default_edges(dependencyData, n))                                                     \
			return MISSING(v2);                                                                \
		SERVED(v2, v1);                                                                            \
		return REAL(v1)(hStream, dependencies, n, flags);                                          \
	}
UPDATECAPTURE(cuStreamUpdateCaptureDependencies_v2, cuStreamUpdateCaptureDependencies)
UPDATECAPTURE(cuStreamUpdateCaptureDependencies_v2_ptsz, cuStreamUpdateCaptureDependencies_ptsz)

/* Green contexts came with CUDA 12.4: before, every stream belongs to a
 * regular context, and v2 "returns the regular context in pCtx and NULL in
 * pGreenCtx". */
#define GETCTX(v2, v1)                                                                                     \
	static CUresult CUDAAPI adapt_##v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)        \
	{                                                                                                  \
		CUresult r;                                                                                \
		if (!pGreenCtx || cushim_state.driver_version <= 0 || cushim_state.driver_version >= 12040) \
			return MISSING(v2);                                                                \
		SERVED(v2, v1);                                                                            \
		r = REAL(v1)(hStream, pCtx);                                                               \
		if (r == CUDA_SUCCESS)                                                                     \
			*pGreenCtx = NULL;                                                                 \
		return r;                                                                                  \
	}
GETCTX(cuStreamGetCtx_v2, cuStreamGetCtx)
GETCTX(cuStreamGetCtx_v2_ptsz, cuStreamGetCtx_ptsz)

/* ================= installing ================= */

/* Every adapter has its export's exact prototype. */
#define CHECK_PROTO(name, older, cond, below)                                                             \
	_Static_assert(__builtin_types_compatible_p(__typeof__(adapt_##name), cushim_fn_##name),            \
		       "adapt_" #name " has the prototype of " #name);
CUSHIM_ADAPTER_LIST(CHECK_PROTO)
#undef CHECK_PROTO

#endif /* CUSHIM_NO_ADAPTERS */

void *cushim_adapter_for(unsigned i)
{
#define CASE(name, older, cond, below)                                                                    \
	if (i == CUSHIM_IDX_##name)                                                                        \
		return (void *)adapt_##name;
	CUSHIM_ADAPTER_LIST(CASE)
#undef CASE
	return NULL;
}

/* The library's view of the rule: the driver gave the older variant. */
static int driver_has(int j, int driver)
{
	return cushim_real[j] != NULL;
}

size_t cushim_adapt_claims(struct cushim_claim *c)
{
	size_t n = 0;
	if (!cushim_conf.adapt)
		return 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_adapter *a;
		if (cushim_real[i] || cushim_hidden_name(cushim_syms[i].name) ||
		    !(a = cushim_adapter_row(i, cushim_state.driver_version, driver_has)))
			continue;
		char how[256];
		cushim_note(CUSHIM_LOG_INFO, "%s is served by %s", a->name, cushim_adapter_how(a, how, sizeof how));
		c[n++] = (struct cushim_claim){ (unsigned)i, cushim_adapter_for((unsigned)i), CUSHIM_OWNER_ADAPTER,
						CUSHIM_CLAIM_SERVE, NULL };
	}
	return n;
}
