/* A reader of NVIDIA's fatbin layout, from its public descriptions (the
 * fatbinary.h header of the toolkit's early releases, and the readers of
 * cuobjdump's format in GPGPU-Sim, ZLUDA and cuda-fatbin-decompression),
 * checked against what nvcc 13.0 writes.  Little-endian throughout:
 *
 *   container: u32 magic 0xBA55ED50, u16 version (1), u16 header size (16),
 *              u64 size of the entries that follow
 *   entry:     u16 kind (1 PTX, 2 ELF/SASS), u16 ?, u32 header size (64, 80
 *              or 112), u64 payload size, u32 compressed size, u32 ?,
 *              u16 minor, u16 major (PTX: its ISA version), u32 arch (90),
 *              u32 name offset, u32 name size, u64 flags, u64 ?,
 *              u64 uncompressed size; the payload follows the header.
 *   flags:     0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 compressed (LZ4),
 *              0x8000 compressed (zstd), 0x100000 architecture-specific
 *              (sm_90a), 0x200000 family-specific (sm_100f).
 *
 * An ELF payload that is not compressed is a cubin whose .note.nv.cuinfo
 * note records the toolkit that built it.  An image without kernels (nvcc
 * leaves some) is marked empty: it does not count when judging a GPU. */
#include "config.h"
#include "fatbin.h"
#include "elfbytes.h"
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FB_HEADER 16
#define FB_ENTRY 64 /* the part of an entry header this reader needs */
#define FB_FLAG_LZ4 0x2000u
#define FB_FLAG_ZSTD 0x8000u
#define FB_FLAG_ARCH_SPECIFIC 0x100000u
#define FB_FLAG_FAMILY_SPECIFIC 0x200000u
#define NOTE_CUINFO 1000 /* .note.nv.cuinfo: u16 version, u16 arch, u32 toolkit (130 = 13.0) */

uint64_t fb_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int fail(char *why, size_t whysize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whysize, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && whysize)
		vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	return -1;
}

static struct fb_image *add(struct fb_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct fb_image *p = realloc(l->img, cap * sizeof *p);
		if (!p)
			abort();
		l->img = p;
		l->cap = cap;
	}
	memset(&l->img[l->n], 0, sizeof *l->img);
	return &l->img[l->n++];
}

/* The toolkit version in a cuinfo note, 0 if none. */
static int cuinfo_toolkit(const struct eb_section *s)
{
	const unsigned char *desc;
	size_t off = 0, size;
	uint32_t type;
	while ((off = eb_note(s, off, &type, &desc, &size)) > 0) {
		if (type != NOTE_CUINFO || size < 8)
			continue;
		unsigned v = (unsigned)fb_le(desc + 4, 4);
		if (v >= 10 && v < 1000)
			return (int)(v / 10 * 1000 + v % 10 * 10);
	}
	return 0;
}

/* What a cubin records: the toolkit that built it (its .note.nv.cuinfo), and
 * whether it has code at all (nvcc's device link leaves an empty one). */
static void read_cubin(const unsigned char *p, size_t n, struct fb_image *im)
{
	struct eb_elf e;
	struct eb_section s;
	int code = 0, sections = 0;
	if (eb_open(p, n, &e) != 0)
		return;
	for (unsigned k = 1; k < e.shnum && eb_section(&e, k, &s) == 0; k++) {
		sections++;
		code |= (s.flags & SHF_EXECINSTR) != 0;
		if (s.type == SHT_NOTE && !im->toolkit)
			im->toolkit = cuinfo_toolkit(&s);
	}
	im->empty = sections > 0 && !code;
}

int fb_read_cubin(const unsigned char *p, size_t n, struct fb_list *out, char *why, size_t whysize)
{
	struct eb_elf e;
	if (eb_open(p, n, &e) != 0 || e.machine != EM_CUDA)
		return fail(why, whysize, "not a cubin (a 64-bit ELF file for EM_CUDA whose sections fit)");
	/* e_flags: the SASS architecture in bits 8-15 from ELF ABI version 8 on
	 * (nvcc 13.0: 0x6005a04 for sm_90), in bits 0-7 before */
	int arch = (int)(e.abiversion >= 8 ? e.flags >> 8 & 0xff : e.flags & 0xff);
	if (arch <= 0)
		return fail(why, whysize, "the cubin names no GPU architecture (e_flags 0x%" PRIx32 ")", e.flags);
	struct fb_image *im = add(out);
	im->kind = FB_SASS;
	im->arch = arch;
	read_cubin(p, n, im);
	return 0;
}

/* One entry at p (n bytes to the container's end); its size in used. */
static int read_entry(const unsigned char *p, size_t n, uint64_t at, struct fb_list *out, size_t *used,
		      char *why, size_t whysize)
{
	if (n < FB_ENTRY)
		return fail(why, whysize, "an image header at offset 0x%" PRIx64 " is cut off (%zu of %d bytes)",
			    at, n, FB_ENTRY);
	uint64_t hsize = fb_le(p + 4, 4), size = fb_le(p + 8, 8), flags = fb_le(p + 40, 8);
	if (hsize < FB_ENTRY || hsize > n)
		return fail(why, whysize, "the image at offset 0x%" PRIx64 " has a header size of %" PRIu64
			    " bytes (%d to %zu fit)", at, hsize, FB_ENTRY, n);
	if (size > n - hsize)
		return fail(why, whysize, "the image at offset 0x%" PRIx64 " says it holds %" PRIu64
			    " bytes; its fatbin ends after %" PRIu64, at, size, (uint64_t)(n - hsize));
	struct fb_image *im = add(out);
	im->kind = (int)fb_le(p, 2);
	im->arch = (int)fb_le(p + 28, 4);
	im->variant = flags & FB_FLAG_ARCH_SPECIFIC ? 'a' : flags & FB_FLAG_FAMILY_SPECIFIC ? 'f' : 0;
	im->compressed = (flags & (FB_FLAG_LZ4 | FB_FLAG_ZSTD)) || fb_le(p + 16, 4) != 0;
	im->method = flags & FB_FLAG_ZSTD ? FB_ZSTD : flags & FB_FLAG_LZ4 ? FB_LZ4 : 0;
	im->fatbin = out->nfatbins;
	if (im->kind == FB_PTX) {
		im->isa_minor = (int)fb_le(p + 24, 2);
		im->isa_major = (int)fb_le(p + 26, 2);
	}
	if (im->arch <= 0 || im->arch > 1000) {
		out->n--;
		return fail(why, whysize, "the image at offset 0x%" PRIx64 " names no GPU architecture (%d)", at,
			    im->arch);
	}
	if (im->kind == FB_SASS && !im->compressed && size >= 4 && memcmp(p + hsize, ELFMAG, SELFMAG) == 0)
		read_cubin(p + hsize, (size_t)size, im);
	if (im->kind == FB_PTX && !im->compressed)
		im->empty = !memmem(p + hsize, (size_t)size, ".entry", 6);
	*used = (size_t)(hsize + size);
	return 0;
}

/* PTX compiled, with SASS, from a file without kernels has none either:
 * where a fatbin's SASS images are all empty, its compressed PTX is taken
 * as empty too. */
static void empty_ptx(struct fb_list *out, size_t first)
{
	int empty_sass = 0;
	for (size_t i = first; i < out->n; i++) {
		if (out->img[i].kind == FB_SASS && !out->img[i].empty)
			return;
		empty_sass |= out->img[i].kind == FB_SASS;
	}
	for (size_t i = first; empty_sass && i < out->n; i++)
		if (out->img[i].kind == FB_PTX)
			out->img[i].empty = 1;
}

int fb_read_one(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, size_t *used, char *why,
		size_t whysize)
{
	if (n < FB_HEADER)
		return fail(why, whysize, "the fatbin at offset 0x%" PRIx64 " is cut off (%zu of %d header bytes)",
			    base, n, FB_HEADER);
	uint32_t magic = (uint32_t)fb_le(p, 4);
	uint64_t hsize = fb_le(p + 6, 2), size = fb_le(p + 8, 8);
	if (magic != FB_MAGIC)
		return fail(why, whysize, "no fatbin at offset 0x%" PRIx64 " (magic 0x%08" PRIx32 ", not 0x%08x)",
			    base, magic, FB_MAGIC);
	if (fb_le(p + 4, 2) != 1 || hsize < FB_HEADER || hsize > n)
		return fail(why, whysize, "the fatbin at offset 0x%" PRIx64 " has version %u and a header of %"
			    PRIu64 " bytes; this reader knows version 1 with 16", base, (unsigned)fb_le(p + 4, 2), hsize);
	if (size > n - hsize)
		return fail(why, whysize, "the fatbin at offset 0x%" PRIx64 " is truncated: it says %" PRIu64
			    " bytes follow its header, %" PRIu64 " do", base, size, (uint64_t)(n - hsize));
	size_t before = out->n;
	out->nfatbins++;
	for (size_t at = (size_t)hsize, end = (size_t)(hsize + size), step = 0; at < end; at += step)
		if (read_entry(p + at, end - at, base + at, out, &step, why, whysize) != 0)
			return -1;
	if (out->n == before)
		out->nfatbins--; /* an empty fatbin (nvcc writes one before PTX-only code) */
	else
		empty_ptx(out, before);
	*used = (size_t)(hsize + size);
	return 0;
}

int fb_read_region_by(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, fb_done_fn *done,
		      void *arg, char *why, size_t whysize)
{
	size_t at = 0, used;
	while (at < n) {
		if (p[at] == 0) { /* padding between fatbins */
			at++;
			continue;
		}
		if (fb_read_one(p + at, n - at, base + at, out, &used, why, whysize) != 0)
			return -1;
		at += used;
		if (done)
			done(p + at, arg);
	}
	return 0;
}

int fb_read_region(const unsigned char *p, size_t n, uint64_t base, struct fb_list *out, char *why,
		   size_t whysize)
{
	return fb_read_region_by(p, n, base, out, NULL, NULL, why, whysize);
}

void fb_each_head(const unsigned char *p, size_t n, size_t head, fb_head_fn *fn, void *arg)
{
	size_t at = 0;
	while (at < n) {
		if (p[at] == 0) { /* padding between fatbins */
			at++;
			continue;
		}
		uint64_t hsize = n - at >= FB_HEADER ? fb_le(p + at + 6, 2) : 0, size = hsize ? fb_le(p + at + 8, 8) : 0;
		if (!hsize || fb_le(p + at, 4) != FB_MAGIC || hsize < FB_HEADER || hsize > n - at ||
		    size > n - at - hsize)
			return;
		for (size_t e = at + (size_t)hsize, end = e + (size_t)size; e < end;) {
			if (end - e < FB_ENTRY)
				return;
			uint64_t ehsize = fb_le(p + e + 4, 4), esize = fb_le(p + e + 8, 8);
			if (ehsize < FB_ENTRY || ehsize > end - e || esize > end - e - ehsize)
				return;
			uint64_t whole = ehsize + esize, flags = fb_le(p + e + 40, 8), packed = fb_le(p + e + 16, 4);
			struct fb_head h = { p + e, (size_t)(whole < head ? whole : head), 0, (int)fb_le(p + e, 2) };
			if (flags & (FB_FLAG_LZ4 | FB_FLAG_ZSTD)) {
				h.p = p + e + ehsize;
				h.n = (size_t)(packed && packed <= esize ? packed : esize);
				h.method = flags & FB_FLAG_ZSTD ? FB_ZSTD : FB_LZ4;
			}
			if (h.method || !packed)
				fn(&h, arg);
			e += (size_t)whole;
		}
		at += (size_t)(hsize + size);
	}
}

const char *fb_method_name(int method)
{
	return method == FB_LZ4 ? "LZ4" : method == FB_ZSTD ? "zstd" : "a method the header does not name";
}

void fb_free(struct fb_list *l)
{
	free(l->img);
	memset(l, 0, sizeof *l);
}

const char *fb_image_name(const struct fb_image *im, char *buf, size_t size)
{
	const char *suffix = im->variant == 'a' ? "a" : im->variant == 'f' ? "f" : "";
	if (im->kind == FB_SASS)
		snprintf(buf, size, "sm_%d%s", im->arch, suffix);
	else if (im->kind == FB_PTX)
		snprintf(buf, size, "compute_%d%s", im->arch, suffix);
	else
		snprintf(buf, size, "kind %d for arch %d%s", im->kind, im->arch, suffix);
	return buf;
}
