/* The runtime route of cufuture-test (built with -DRTROUTE, included last by
 * cufuture.h): every driver function the library and its tests name, with the
 * CUDA version of the PFN typedef that the pinned lookup returns.
 * samples/common/suite-checks.sh reads the "#define cuX RTROUTE_CALL" lines: each
 * function must be called in the suite's masquerade runs, unless its comment
 * names a condition this machine lacks. The optional cuStreamGetDevice (12.8)
 * is not here: cufuture asks for it (rtroute_probe), and at the pinned 12010
 * the runtime reports it too new, so the fallback runs. */
#ifndef CUFUTURE_RTROUTE_H
#define CUFUTURE_RTROUTE_H
#include "rtroute.h"
#undef cuInit
#define cuInit RTROUTE_CALL(cuInit, 2000)
#undef cuDeviceGetCount
#define cuDeviceGetCount RTROUTE_CALL(cuDeviceGetCount, 2000)
#undef cuDeviceGet
#define cuDeviceGet RTROUTE_CALL(cuDeviceGet, 2000)
#undef cuDevicePrimaryCtxRetain
#define cuDevicePrimaryCtxRetain RTROUTE_CALL(cuDevicePrimaryCtxRetain, 7000)
#undef cuCtxPushCurrent
#define cuCtxPushCurrent RTROUTE_CALL(cuCtxPushCurrent, 4000)
#undef cuCtxPopCurrent
#define cuCtxPopCurrent RTROUTE_CALL(cuCtxPopCurrent, 4000)
#undef cuCtxSetCurrent
#define cuCtxSetCurrent RTROUTE_CALL(cuCtxSetCurrent, 4000)
#undef cuCtxGetCurrent
#define cuCtxGetCurrent RTROUTE_CALL(cuCtxGetCurrent, 4000)
#undef cuCtxGetDevice
#define cuCtxGetDevice RTROUTE_CALL(cuCtxGetDevice, 2000)
#undef cuCtxSynchronize
#define cuCtxSynchronize RTROUTE_CALL(cuCtxSynchronize, 2000)
#undef cuCtxGetStreamPriorityRange
#define cuCtxGetStreamPriorityRange RTROUTE_CALL(cuCtxGetStreamPriorityRange, 5050)
#undef cuStreamCreate
#define cuStreamCreate RTROUTE_CALL(cuStreamCreate, 2000)
#undef cuStreamCreateWithPriority
#define cuStreamCreateWithPriority RTROUTE_CALL(cuStreamCreateWithPriority, 5050)
#undef cuStreamGetPriority
#define cuStreamGetPriority RTROUTE_CALL(cuStreamGetPriority, 5050)
#undef cuStreamDestroy
#define cuStreamDestroy RTROUTE_CALL(cuStreamDestroy, 4000)
#undef cuStreamSynchronize
#define cuStreamSynchronize RTROUTE_CALL(cuStreamSynchronize, 2000)
#undef cuStreamQuery
#define cuStreamQuery RTROUTE_CALL(cuStreamQuery, 2000)
#undef cuStreamWaitEvent
#define cuStreamWaitEvent RTROUTE_CALL(cuStreamWaitEvent, 3020)
#undef cuStreamGetCtx
#define cuStreamGetCtx RTROUTE_CALL(cuStreamGetCtx, 9020)
#undef cuEventCreate
#define cuEventCreate RTROUTE_CALL(cuEventCreate, 2000)
#undef cuEventRecord
#define cuEventRecord RTROUTE_CALL(cuEventRecord, 2000)
#undef cuEventQuery
#define cuEventQuery RTROUTE_CALL(cuEventQuery, 2000)
#undef cuEventDestroy
#define cuEventDestroy RTROUTE_CALL(cuEventDestroy, 4000)
#undef cuMemAlloc
#define cuMemAlloc RTROUTE_CALL(cuMemAlloc, 3020)
#undef cuMemFree
#define cuMemFree RTROUTE_CALL(cuMemFree, 3020)
#undef cuMemAllocHost
#define cuMemAllocHost RTROUTE_CALL(cuMemAllocHost, 3020)
#undef cuMemFreeHost
#define cuMemFreeHost RTROUTE_CALL(cuMemFreeHost, 2000)
#undef cuMemsetD8
#define cuMemsetD8 RTROUTE_CALL(cuMemsetD8, 3020)
#undef cuMemcpyDtoHAsync
#define cuMemcpyDtoHAsync RTROUTE_CALL(cuMemcpyDtoHAsync, 3020)
#undef cuMemcpyPeerAsync
#define cuMemcpyPeerAsync RTROUTE_CALL(cuMemcpyPeerAsync, 4000) /* two GPUs */
#undef cuPointerGetAttribute
#define cuPointerGetAttribute RTROUTE_CALL(cuPointerGetAttribute, 4000)
#undef cuModuleLoadData
#define cuModuleLoadData RTROUTE_CALL(cuModuleLoadData, 2000)
#undef cuModuleGetFunction
#define cuModuleGetFunction RTROUTE_CALL(cuModuleGetFunction, 2000)
#undef cuLaunchKernel
#define cuLaunchKernel RTROUTE_CALL(cuLaunchKernel, 4000)
#undef cuLaunchHostFunc
#define cuLaunchHostFunc RTROUTE_CALL(cuLaunchHostFunc, 10000)
#undef cuGetErrorName
#define cuGetErrorName RTROUTE_CALL(cuGetErrorName, 6000)
#endif
