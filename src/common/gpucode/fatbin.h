/* Reading NVIDIA fatbins: the containers of GPU code (SASS and PTX) that
 * nvcc embeds in a program (.nv_fatbin) or writes to a .fatbin file. */
#ifndef CUSHIM_FATBIN_H
#define CUSHIM_FATBIN_H
#include <stddef.h>
#include <stdint.h>

#define FB_MAGIC 0xBA55ED50u         /* a fatbin container */
#define FB_WRAPPER_MAGIC 0x466243B1u /* __fatBinC_Wrapper_t, in .nvFatBinSegment */

enum { FB_PTX = 1, FB_SASS = 2 };
enum { FB_LZ4 = 1, FB_ZSTD = 2 };
/* "LZ4", "zstd", or "a method the header does not name". */
const char *fb_method_name(int method);

struct fb_image {
	int kind;       /* FB_PTX, FB_SASS, or another kind as recorded */
	int arch;       /* 90 for sm_90 and compute_90, 100 for sm_100 */
	char variant;   /* 0, 'a' (architecture-specific) or 'f' (family-specific) */
	int isa_major, isa_minor; /* PTX: its ISA version (9.0); SASS: 0 */
	int toolkit;    /* SASS: the CUDA version of the ptxas that built it, 0 if not recorded */
	int compressed; /* the payload is compressed; what is above comes from the header */
	int method;     /* how, by the header's flags: FB_LZ4, FB_ZSTD, or 0 (not said) */
	int empty;      /* no kernels in it (nvcc's device link leaves such SASS) */
	int fatbin;     /* which fatbin of the file (1-based) */
};

struct fb_list {
	struct fb_image *img;
	size_t n, cap;
	int nfatbins;
};

/* The fatbins laid one after another in p[0..n), as in a .nv_fatbin section
 * or a .fatbin file: their images are added to out.  0, or -1 with one
 * sentence in why saying what is wrong and where (offsets from p, shown
 * relative to `base`). */
int fb_read_region(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, char *why,
		   size_t whysize);
/* fb_read_region, calling done with where the next fatbin begins after each
 * one is read: the reader of a mapped file lets go of the pages behind. */
typedef void fb_done_fn(const unsigned char *next, void *arg);
int fb_read_region_by(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, fb_done_fn *done,
		      void *arg, char *why, size_t whysize);
/* One fatbin at p (n bytes available): its images are added to out and its
 * size is left in used.  0, or -1 with why. */
int fb_read_one(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, size_t *used,
		char *why, size_t whysize);
/* A cubin on its own (an ELF file for EM_CUDA): its one SASS image is added
 * to out.  0, or -1 with why. */
int fb_read_cubin(const unsigned char *p, size_t n, struct fb_list *out, char *why, size_t whysize);
void fb_free(struct fb_list *l);
/* Calls fn on the start of each image in the fatbins laid one after another
 * in p[0..n): for one stored uncompressed, its header and its first bytes,
 * at most `head` in all (method 0); for one compressed, its compressed
 * payload whole (method FB_LZ4 or FB_ZSTD: the caller unpacks what it
 * needs; an image compressed by a method the header does not name is
 * passed over).  Walks as far as the layout holds (a reader of marks, not a
 * judge: fb_read_region says what is wrong). */
struct fb_head {
	const unsigned char *p;
	size_t n;
	int method; /* 0, FB_LZ4 or FB_ZSTD */
	int kind;   /* FB_PTX, FB_SASS, ... */
};
typedef void fb_head_fn(const struct fb_head *h, void *arg);
void fb_each_head(const unsigned char *p, size_t n, size_t head, fb_head_fn *fn, void *arg);
/* A little-endian number of 2, 4 or 8 bytes. */
uint64_t fb_le(const unsigned char *p, int bytes);
/* "sm_90a", "compute_100f", "kind 64 for arch 90". */
const char *fb_image_name(const struct fb_image *im, char *buf, size_t size);

#endif
