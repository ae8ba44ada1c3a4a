/* Every public declaration of the driver API, as the driver itself is built
 * (__CUDA_API_VERSION_INTERNAL): each ABI name (cuCtxCreate, cuCtxCreate_v2,
 * cuMemcpyAsync_ptsz, ...) is declared under its own name, so a generated
 * prototype that differs from the toolkit's is a compile error (wrappers.c). */
#ifndef CUSHIM_CUDA_ALL_H
#define CUSHIM_CUDA_ALL_H
#define __CUDA_API_VERSION_INTERNAL 1
#include <config.h>
#include <cuda.h>
#ifdef HAVE_CUDAPROFILER_H
#include <cudaProfiler.h>
#endif
#ifdef HAVE_CUDAGL_H
#include <cudaGL.h>
#endif
#ifdef HAVE_CUDAEGL_H
#include <cudaEGL.h>
#endif
#ifdef HAVE_CUDAVDPAU_H
#include <vdpau/vdpau.h>
#include <cudaVDPAU.h>
#endif
#endif
