/* Stand-in for <vdpau/vdpau.h> when the system has none: only the types cudaVDPAU.h
 * uses, with libvdpau's ABI (32-bit handles, an enum status). */
#ifndef CUSHIM_COMPAT_VDPAU_H
#define CUSHIM_COMPAT_VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef enum { VDP_STATUS_OK = 0 } VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
#endif
