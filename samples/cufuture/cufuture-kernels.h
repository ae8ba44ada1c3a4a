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
/* fill: element i becomes CUFK_AT(v, i); add keeps that form (CUFK_AT(v + k, i)). */
#define CUFK_AT(v, i) ((int)((unsigned)(v) + 3u * (unsigned)(i)))
cufuture_status cufk_fill(int dev, CUstream s, CUdeviceptr p, int v, size_t n);
/* ffill: float element i becomes v * (1 + i % 1024). */
cufuture_status cufk_ffill(int dev, CUstream s, CUdeviceptr p, float v, size_t n);
cufuture_status cufk_add(int dev, CUstream s, CUdeviceptr p, int v, size_t n);
cufuture_status cufk_copy(int dev, CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t n);
cufuture_status cufk_fscale(int dev, CUstream s, CUdeviceptr p, float k, size_t n);
#endif
