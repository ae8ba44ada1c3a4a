/* Stand-in for <EGL/egl.h> when the system has none: only the types cudaEGL.h uses,
 * with the Khronos ABI (EGLint is khronos_int32_t, the handles are pointers). */
#ifndef CUSHIM_COMPAT_EGL_H
#define CUSHIM_COMPAT_EGL_H
#include <stdint.h>
typedef int32_t EGLint;
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif
