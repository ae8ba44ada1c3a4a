/* Stand-in for <EGL/eglext.h>: the types live in the stand-in egl.h. */
#include <EGL/egl.h>
