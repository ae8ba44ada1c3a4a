/* Whether GPU code runs on a GPU: shared by the command (cushim check) and
 * the library (a module the driver refused). */
#ifndef CUSHIM_GPUFIT_H
#define CUSHIM_GPUFIT_H
#include "fatbin.h"

/* A GPU, as --gpu names it: its compute capability. */
struct cli_gpu_arch {
	int major, minor;
};
/* Whether the code runs on a GPU, with a driver of CUDA version `driver`
 * (0: unknown). */
enum { GPU_NO_CODE, GPU_SASS, GPU_PTX, GPU_PTX_TOO_NEW };
struct cli_gpu_fit {
	int how;                   /* one of the above */
	const struct fb_image *image; /* the image that runs (or the newest PTX that would) */
	int ptx_driver;            /* GPU_PTX, GPU_PTX_TOO_NEW: the driver its ISA needs, 0 unknown */
};
void cli_gpu_fit(const struct fb_list *l, struct cli_gpu_arch gpu, int driver, struct cli_gpu_fit *fit);

#endif
