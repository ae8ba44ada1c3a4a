/* The runtime route of ub-test (built with -DRTROUTE, included last by ub.h):
 * every driver function the sample names, with the CUDA version of the PFN
 * typedef that the pinned lookup (TE's 12010) returns;
 * those that cufuture-test calls too are in rtroute-shared.h.
 * samples/common/suite-checks.sh reads the "#define cuX RTROUTE_CALL" lines
 * here and in rtroute-shared.h: each
 * function must be called in the suite's masquerade runs, unless its comment
 * names a condition this machine lacks. The multicast functions are not here:
 * the sample only asks for them (ub-comm.c) and never calls them. */
#ifndef UB_RTROUTE_H
#define UB_RTROUTE_H
#include "rtroute-shared.h"
#undef cuDeviceGetAttribute
#define cuDeviceGetAttribute RTROUTE_CALL(cuDeviceGetAttribute, 2000)
#undef cuDeviceCanAccessPeer
#define cuDeviceCanAccessPeer RTROUTE_CALL(cuDeviceCanAccessPeer, 4000) /* two GPUs */
#undef cuDevicePrimaryCtxRelease
#define cuDevicePrimaryCtxRelease RTROUTE_CALL(cuDevicePrimaryCtxRelease, 11000)
#undef cuModuleUnload
#define cuModuleUnload RTROUTE_CALL(cuModuleUnload, 2000)
#undef cuOccupancyMaxActiveBlocksPerMultiprocessor
#define cuOccupancyMaxActiveBlocksPerMultiprocessor RTROUTE_CALL(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)
#undef cuLaunchKernelEx
#define cuLaunchKernelEx RTROUTE_CALL(cuLaunchKernelEx, 11060)
#undef cuMemsetD32
#define cuMemsetD32 RTROUTE_CALL(cuMemsetD32, 3020)
#undef cuMemcpyHtoD
#define cuMemcpyHtoD RTROUTE_CALL(cuMemcpyHtoD, 3020)
#undef cuMemcpyDtoH
#define cuMemcpyDtoH RTROUTE_CALL(cuMemcpyDtoH, 3020)
#undef cuMemcpyDtoDAsync
#define cuMemcpyDtoDAsync RTROUTE_CALL(cuMemcpyDtoDAsync, 3020)
#undef cuMemGetInfo
#define cuMemGetInfo RTROUTE_CALL(cuMemGetInfo, 3020)
#undef cuGetProcAddress
#define cuGetProcAddress RTROUTE_CALL(cuGetProcAddress, 12000)
#undef cuMemGetAllocationGranularity
#define cuMemGetAllocationGranularity RTROUTE_CALL(cuMemGetAllocationGranularity, 10020)
#undef cuMemCreate
#define cuMemCreate RTROUTE_CALL(cuMemCreate, 10020)
#undef cuMemExportToShareableHandle
#define cuMemExportToShareableHandle RTROUTE_CALL(cuMemExportToShareableHandle, 10020)
#undef cuMemImportFromShareableHandle
#define cuMemImportFromShareableHandle RTROUTE_CALL(cuMemImportFromShareableHandle, 10020)
#undef cuMemAddressReserve
#define cuMemAddressReserve RTROUTE_CALL(cuMemAddressReserve, 10020)
#undef cuMemMap
#define cuMemMap RTROUTE_CALL(cuMemMap, 10020)
#undef cuMemSetAccess
#define cuMemSetAccess RTROUTE_CALL(cuMemSetAccess, 10020)
#undef cuMemUnmap
#define cuMemUnmap RTROUTE_CALL(cuMemUnmap, 10020)
#undef cuMemRelease
#define cuMemRelease RTROUTE_CALL(cuMemRelease, 10020)
#undef cuMemAddressFree
#define cuMemAddressFree RTROUTE_CALL(cuMemAddressFree, 10020)
#endif
