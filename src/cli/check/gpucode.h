/* The GPU code a program or library carries, and whether it runs on a GPU. */
#ifndef CUSHIM_GPUCODE_H
#define CUSHIM_GPUCODE_H
#include <gelf.h>
#include "fatbin.h"
#include "gpufit.h"

struct cli_gpucode {
	struct fb_list list;
	int wrappers;     /* fatbins registered through .nvFatBinSegment */
	int unregistered; /* a program or library whose .nv_fatbin no wrapper
			   * registers: it loads its GPU code itself (cuFFT),
			   * from data not read here, so its kernels are unknown */
	char error[512];  /* set when the GPU code cannot be read: what is wrong */
};

/* The fatbins of a host ELF file: the .nv_fatbin section, and those the
 * wrappers in .nvFatBinSegment register from elsewhere.  mapped: elf reads
 * a file mapped read-only (elf_begin, ELF_C_READ_MMAP), whose pages read
 * already may be given back; never bytes the caller owns (elf_memory). */
void cli_gpucode_read(Elf *elf, int mapped, struct cli_gpucode *g);
/* The fatbins of a .fatbin file (which begins with the fatbin magic). */
void cli_gpucode_read_raw(const unsigned char *p, size_t n, struct cli_gpucode *g);
void cli_gpucode_free(struct cli_gpucode *g);
/* How many of its images may hold kernels (all but the empty ones; none
 * where the code is unregistered). */
int cli_gpucode_kernels(const struct cli_gpucode *g);
/* The bytes from vaddr to the end of the allocated section that holds it:
 * 0, or -1 when no section of the file holds it. */
int cli_elf_bytes_at(Elf *elf, GElf_Addr vaddr, const unsigned char **p, size_t *n);

/* "sm_90", "90", "9.0" -> 9.0, and NVIDIA's arch- and family-specific
 * names ("sm_90a", "sm_100f": *variant 'a' or 'f', else 0); -1 when it is
 * not the architecture of a GPU NVIDIA has made. */
int cli_gpu_parse(const char *s, struct gpu_arch *gpu, char *variant);
/* The i-th compute capability of NVIDIA's GPUs, oldest first: 1, or 0 past the last. */
int cli_gpu_known(size_t i, struct gpu_arch *gpu);

#endif
