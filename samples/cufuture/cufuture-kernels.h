/* The suite's kernels (cufuture-kernels.cu), loaded per device from the
 * embedded fatbin with cuModuleLoadData and launched with cuLaunchKernel. */
#ifndef CUFUTURE_KERNELS_H
#define CUFUTURE_KERNELS_H
#include "cufuture.h"

#include <stddef.h>
extern const unsigned char cufuture_kernels_fatbin[];
extern const size_t cufuture_kernels_fatbin_size;

/* Each launches on stream s of device dev (s == 0: that device's legacy
 * default stream) and returns the launch's status. */
cufuture_status cufk_sleep(int dev, CUstream s, unsigned long long ns);
cufuture_status cufk_fill(int dev, CUstream s, CUdeviceptr p, int v, size_t n);
cufuture_status cufk_add(int dev, CUstream s, CUdeviceptr p, int v, size_t n);
cufuture_status cufk_copy(int dev, CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t n);
cufuture_status cufk_fscale(int dev, CUstream s, CUdeviceptr p, float k, size_t n);
#endif
