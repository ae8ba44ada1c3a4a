/* The runtime route of cufuture-test (built with -DRTROUTE, included last by
 * cufuture.h): every driver function the library and its tests name, with the
 * CUDA version of the PFN typedef that the pinned lookup returns; those that
 * ub-test calls too are in rtroute-shared.h.
 * samples/common/suite-checks.sh reads the "#define cuX RTROUTE_CALL" lines
 * here and in rtroute-shared.h: each
 * function must be called in the suite's masquerade runs, unless its comment
 * names a condition this machine lacks. The optional cuStreamGetDevice (12.8)
 * is not here: cufuture asks for it (rtroute_probe), and at the pinned 12010
 * the runtime reports it too new, so the fallback runs. */
#ifndef CUFUTURE_RTROUTE_H
#define CUFUTURE_RTROUTE_H
#include "rtroute-shared.h"
#undef cuCtxPushCurrent
#define cuCtxPushCurrent RTROUTE_CALL(cuCtxPushCurrent, 4000)
#undef cuCtxPopCurrent
#define cuCtxPopCurrent RTROUTE_CALL(cuCtxPopCurrent, 4000)
#undef cuCtxGetCurrent
#define cuCtxGetCurrent RTROUTE_CALL(cuCtxGetCurrent, 4000)
#undef cuCtxGetDevice
#define cuCtxGetDevice RTROUTE_CALL(cuCtxGetDevice, 2000)
#undef cuCtxGetStreamPriorityRange
#define cuCtxGetStreamPriorityRange RTROUTE_CALL(cuCtxGetStreamPriorityRange, 5050)
#undef cuStreamCreateWithPriority
#define cuStreamCreateWithPriority RTROUTE_CALL(cuStreamCreateWithPriority, 5050)
#undef cuStreamGetPriority
#define cuStreamGetPriority RTROUTE_CALL(cuStreamGetPriority, 5050)
#undef cuStreamQuery
#define cuStreamQuery RTROUTE_CALL(cuStreamQuery, 2000)
#undef cuStreamGetCtx
#define cuStreamGetCtx RTROUTE_CALL(cuStreamGetCtx, 9020)
#undef cuEventQuery
#define cuEventQuery RTROUTE_CALL(cuEventQuery, 2000)
#undef cuMemAllocHost
#define cuMemAllocHost RTROUTE_CALL(cuMemAllocHost, 3020)
#undef cuMemFreeHost
#define cuMemFreeHost RTROUTE_CALL(cuMemFreeHost, 2000)
#undef cuMemcpyDtoHAsync
#define cuMemcpyDtoHAsync RTROUTE_CALL(cuMemcpyDtoHAsync, 3020)
#undef cuMemcpyPeerAsync
#define cuMemcpyPeerAsync RTROUTE_CALL(cuMemcpyPeerAsync, 4000) /* two GPUs */
#undef cuPointerGetAttribute
#define cuPointerGetAttribute RTROUTE_CALL(cuPointerGetAttribute, 4000)
#undef cuLaunchKernel
#define cuLaunchKernel RTROUTE_CALL(cuLaunchKernel, 4000)
#undef cuLaunchHostFunc
#define cuLaunchHostFunc RTROUTE_CALL(cuLaunchHostFunc, 10000)
#endif
