/* What the GL, EGL and VDPAU interop headers declare, as the driver itself is
 * built (__CUDA_API_VERSION_INTERNAL: every ABI name under its own name).
 * Preprocessed by tests/blackbox/local.mk; declared.py lists the functions. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <config.h>
#include <cuda.h>
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
