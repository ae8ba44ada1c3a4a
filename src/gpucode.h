/* The GPU code a program or library carries, and whether it runs on a GPU. */
#ifndef CUSHIM_CLI_GPUCODE_H
#define CUSHIM_CLI_GPUCODE_H
#include <gelf.h>
#include "fatbin.h"

struct cli_gpucode {
	struct fb_list list;
	int wrappers;     /* fatbins registered through .nvFatBinSegment */
	char error[512];  /* set when the GPU code cannot be read: what is wrong */
};

/* The fatbins of a host ELF file: the .nv_fatbin section, and those the
 * wrappers in .nvFatBinSegment register from elsewhere. */
void cli_gpucode_read(Elf *elf, struct cli_gpucode *g);
/* The fatbins of a .fatbin file (which begins with the fatbin magic). */
void cli_gpucode_read_raw(const unsigned char *p, size_t n, struct cli_gpucode *g);
void cli_gpucode_free(struct cli_gpucode *g);
/* How many of its images may hold kernels (all but the empty ones). */
int cli_gpucode_kernels(const struct cli_gpucode *g);
/* The bytes from vaddr to the end of the allocated section that holds it:
 * 0, or -1 when no section of the file holds it. */
int cli_elf_bytes_at(Elf *elf, GElf_Addr vaddr, const unsigned char **p, size_t *n);

/* A GPU, as --gpu names it: its compute capability. */
struct cli_gpu_arch {
	int major, minor;
};
/* "sm_90", "90", "9.0" -> 9.0; -1 when not a GPU architecture. */
int cli_gpu_parse(const char *s, struct cli_gpu_arch *gpu);

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
