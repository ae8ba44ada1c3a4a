/* The runtime route's redirects that both sample suites need: every driver
 * function here is called by cufuture-test and by ub-test alike. A suite's
 * own header (cufuture-rtroute.h, ub-rtroute.h) includes this one and adds
 * what only it calls; samples/common/suite-checks.sh reads the
 * "#define cuX RTROUTE_CALL" lines of both, and each suite's masquerade runs
 * must call every one of them. */
#ifndef RTROUTE_SHARED_H
#define RTROUTE_SHARED_H
#include "rtroute.h"
#undef cuInit
#define cuInit RTROUTE_CALL(cuInit, 2000)
#undef cuDeviceGetCount
#define cuDeviceGetCount RTROUTE_CALL(cuDeviceGetCount, 2000)
#undef cuDeviceGet
#define cuDeviceGet RTROUTE_CALL(cuDeviceGet, 2000)
#undef cuDevicePrimaryCtxRetain
#define cuDevicePrimaryCtxRetain RTROUTE_CALL(cuDevicePrimaryCtxRetain, 7000)
#undef cuCtxSetCurrent
#define cuCtxSetCurrent RTROUTE_CALL(cuCtxSetCurrent, 4000)
#undef cuCtxSynchronize
#define cuCtxSynchronize RTROUTE_CALL(cuCtxSynchronize, 2000)
#undef cuStreamCreate
#define cuStreamCreate RTROUTE_CALL(cuStreamCreate, 2000)
#undef cuStreamDestroy
#define cuStreamDestroy RTROUTE_CALL(cuStreamDestroy, 4000)
#undef cuStreamSynchronize
#define cuStreamSynchronize RTROUTE_CALL(cuStreamSynchronize, 2000)
#undef cuStreamWaitEvent
#define cuStreamWaitEvent RTROUTE_CALL(cuStreamWaitEvent, 3020)
#undef cuEventCreate
#define cuEventCreate RTROUTE_CALL(cuEventCreate, 2000)
#undef cuEventRecord
#define cuEventRecord RTROUTE_CALL(cuEventRecord, 2000)
#undef cuEventDestroy
#define cuEventDestroy RTROUTE_CALL(cuEventDestroy, 4000)
#undef cuMemAlloc
#define cuMemAlloc RTROUTE_CALL(cuMemAlloc, 3020)
#undef cuMemFree
#define cuMemFree RTROUTE_CALL(cuMemFree, 3020)
#undef cuMemsetD8
#define cuMemsetD8 RTROUTE_CALL(cuMemsetD8, 3020)
#undef cuModuleLoadData
#define cuModuleLoadData RTROUTE_CALL(cuModuleLoadData, 2000)
#undef cuModuleGetFunction
#define cuModuleGetFunction RTROUTE_CALL(cuModuleGetFunction, 2000)
#undef cuGetErrorName
#define cuGetErrorName RTROUTE_CALL(cuGetErrorName, 6000)
#endif
