/* The table of downgrade adapters, shared by the library (adapt.c installs
 * them) and the cushim command (check and doctor say what they would serve):
 * which newer ABI variant an older one can serve, and when.  The conditions
 * and the documentation they rest on: doc/ADAPTERS.md. */
#ifndef CUSHIM_ADAPTERS_H
#define CUSHIM_ADAPTERS_H
#include "table.h"
#include <stddef.h>

struct cushim_adapter {
	const char *name;      /* the export served: "cuCtxCreate_v4" */
	const char *older;     /* the variant that serves it: "cuCtxCreate_v2" */
	const char *condition; /* when the two mean the same: "no parameters" */
	int below;             /* serves only on a driver older than this CUDA version; 0: any */
};

/* Which variant serves it, and when, in words: "cuCtxCreate_v2 when no
 * parameters", "cuEventElapsedTime" (always), into buf. */
const char *cushim_adapter_how(const struct cushim_adapter *a, char *buf, size_t size);

/* The rows, as an X-macro, so that a program without the library's core can
 * build the same table: X(name, older, condition, below), the names as bare
 * tokens (#name gives the string, CUSHIM_IDX_##name the index). */
#define CUSHIM_ADAPTER_LIST(X)                                                                                 \
	X(cuCtxCreate_v4, cuCtxCreate_v2, "no parameters", 0)                                              \
	X(cuCtxCreate_v4, cuCtxCreate_v3, "execution affinity only, no CIG", 0)                            \
	X(cuCtxGetDevice_v2, cuCtxGetDevice, "ctx NULL or the current context", 0)                         \
	X(cuCtxSynchronize_v2, cuCtxSynchronize, "ctx NULL or the current context", 0)                     \
	X(cuEventElapsedTime_v2, cuEventElapsedTime, "always", 0)                                          \
	X(cuGetProcAddress_v2, cuGetProcAddress, "always; the status derived from the result", 0)         \
	X(cuGraphAddDependencies_v2, cuGraphAddDependencies, "edgeData NULL or all zero", 0)               \
	X(cuGraphAddKernelNode_v2, cuGraphAddKernelNode, "func set, not a CUkernel", 0)                    \
	X(cuGraphAddNode_v2, cuGraphAddNode, "dependencyData NULL or all zero", 0)                         \
	X(cuGraphAddNode_v3, cuGraphAddNode_v2, "node parameters of CUDA 13.0", 0)                         \
	X(cuGraphExecKernelNodeSetParams_v2, cuGraphExecKernelNodeSetParams, "func set, not a CUkernel", 0) \
	X(cuGraphExecUpdate_v2, cuGraphExecUpdate, "resultInfo given; not a topology change", 0)           \
	X(cuGraphGetEdges_v2, cuGraphGetEdges, "edgeData NULL", 0)                                         \
	X(cuGraphKernelNodeGetParams_v2, cuGraphKernelNodeGetParams, "always; kern and ctx NULL", 0)       \
	X(cuGraphKernelNodeSetParams_v2, cuGraphKernelNodeSetParams, "func set, not a CUkernel", 0)        \
	X(cuGraphNodeGetDependencies_v2, cuGraphNodeGetDependencies, "edgeData NULL", 0)                   \
	X(cuGraphNodeGetDependentNodes_v2, cuGraphNodeGetDependentNodes, "edgeData NULL", 0)               \
	X(cuGraphNodeSetParams_v2, cuGraphNodeSetParams, "node parameters of CUDA 13.0", 0)                \
	X(cuGraphRemoveDependencies_v2, cuGraphRemoveDependencies, "edgeData NULL or all zero", 0)         \
	X(cuLaunchHostFunc_v2, cuLaunchHostFunc, "syncMode CU_HOST_TASK_BLOCKING (0)", 0)                  \
	X(cuLaunchHostFunc_v2_ptsz, cuLaunchHostFunc_ptsz, "syncMode CU_HOST_TASK_BLOCKING (0)", 0)        \
	X(cuMemAdvise_v2, cuMemAdvise, "location a device or the host, or ignored by the advice", 0)       \
	X(cuMemPrefetchAsync_v2, cuMemPrefetchAsync, "location a device or the host; flags 0", 0)          \
	X(cuMemPrefetchAsync_v2_ptsz, cuMemPrefetchAsync_ptsz, "location a device or the host; flags 0", 0) \
	X(cuMemcpy3DBatchAsync_v2, cuMemcpy3DBatchAsync, "always; failIdx dropped", 0)                     \
	X(cuMemcpy3DBatchAsync_v2_ptsz, cuMemcpy3DBatchAsync_ptsz, "always; failIdx dropped", 0)           \
	X(cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync, "always; failIdx dropped", 0)                         \
	X(cuMemcpyBatchAsync_v2_ptsz, cuMemcpyBatchAsync_ptsz, "always; failIdx dropped", 0)               \
	X(cuMulticastBindAddr_v2, cuMulticastBindAddr, "memptr is device memory of dev", 0)                \
	X(cuMulticastBindMem_v2, cuMulticastBindMem, "memHandle is device memory of dev", 0)               \
	X(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v2, "edgeData_out NULL", 0)                    \
	X(cuStreamGetCaptureInfo_v3_ptsz, cuStreamGetCaptureInfo_v2_ptsz, "edgeData_out NULL", 0)          \
	X(cuStreamGetCtx_v2, cuStreamGetCtx, "no green contexts (driver before 12.4); pGreenCtx given", 12040) \
	X(cuStreamGetCtx_v2_ptsz, cuStreamGetCtx_ptsz, "no green contexts (driver before 12.4); pGreenCtx given", \
	  12040)                                                                                               \
	X(cuStreamUpdateCaptureDependencies_v2, cuStreamUpdateCaptureDependencies,                         \
	  "dependencyData NULL or all zero", 0)                                                                \
	X(cuStreamUpdateCaptureDependencies_v2_ptsz, cuStreamUpdateCaptureDependencies_ptsz,               \
	  "dependencyData NULL or all zero", 0)

#if CUSHIM_TOOLKIT_VERSION < 13000
/* The adapters are written with the types of the CUDA 13.0 headers: built
 * against an older toolkit, cushim has none. */
#undef CUSHIM_ADAPTER_LIST
#define CUSHIM_ADAPTER_LIST(X)
#define CUSHIM_NO_ADAPTERS 1
#endif

extern const struct cushim_adapter cushim_adapters[] CUSHIM_HIDDEN;
extern const int cushim_nadapters CUSHIM_HIDDEN;

/* The rule: the row that serves export idx on a driver of CUDA version
 * `driver` (0: unknown), where has_older(j, driver) says whether that driver
 * has export j; NULL when none does. */
const struct cushim_adapter *cushim_adapter_row(int idx, int driver, int (*has_older)(int j, int driver)) CUSHIM_HIDDEN;
#endif
