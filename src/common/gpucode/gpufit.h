/* Whether GPU code runs on a GPU: shared by the command (cushim check) and
 * the library (a module the driver refused). */
#ifndef CUSHIM_GPUFIT_H
#define CUSHIM_GPUFIT_H
#include "fatbin.h"

/* A GPU, as --gpu names it: its compute capability. */
struct gpu_arch {
	int major, minor;
};
/* Whether the code runs on a GPU, with a driver of CUDA version `driver`
 * (0: unknown).  GPU_UNKNOWN: its only code for the GPU is SASS of another
 * compute capability that NVIDIA's documentation neither allows nor rules
 * out there (sm_101 on a GPU CUDA 13 calls 11.0). */
enum { GPU_NO_CODE, GPU_SASS, GPU_PTX, GPU_PTX_TOO_NEW, GPU_UNKNOWN };
struct gpu_fit {
	int how;                   /* one of the above */
	const struct fb_image *image; /* the image that runs (or the newest PTX that would, or the SASS unknown) */
	int ptx_driver;            /* GPU_PTX, GPU_PTX_TOO_NEW: the driver its ISA needs, 0 unknown */
};
void gpu_fit(const struct fb_list *l, struct gpu_arch gpu, int driver, struct gpu_fit *fit);

/* Whether SASS image im runs on gpu: 1, 0, or -1 where NVIDIA does not say. */
int gpu_sass_runs(const struct fb_image *im, struct gpu_arch gpu);
/* A Tegra (integrated) GPU's compute capability, major * 10 + minor: 1 or 0. */
int gpu_tegra(int arch);

/* Without a GPU named: what the code's kernels need of any GPU's driver.
 * ptx_only: no SASS has kernels, so every GPU must JIT-compile PTX; need:
 * then the least driver that JIT-compiles some of its PTX (0 unknown, and
 * beyond set when every ISA is newer than the releases cushim knows). */
struct gpu_code_need {
	int ptx_only, need, beyond;
	const struct fb_image *image; /* the PTX that needs the least */
};
void gpu_code_need(const struct fb_list *l, struct gpu_code_need *out);

#endif
