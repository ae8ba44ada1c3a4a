/* The bytes of a module image the driver refused, as far as the reader of
 * images (modimage.c) looks at them: from the program's memory, through the
 * checked copy (peek.h), or from a file.  The image's first bytes say its
 * form and extent; then the layout is walked as the reader will walk it, and
 * only what it reads is copied: a fatbin's headers, an uncompressed cubin's
 * header, section table, name table and notes, a host ELF file's
 * .nv_fatbin, PTX text (given as a C string: up to its NUL).  What it skips
 * (a compressed payload, a cubin's code) stays zeros in an anonymous
 * mapping, which costs nothing where it is not written: a header that
 * claims 256 MB costs a few pages.
 * Where a byte the reader needs cannot be read, the image is one that
 * cannot be read, from that offset on. */
#include "explain-image.h"
#include "elfbytes.h"
#include "fatbin.h"
#include "peek.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMAGE_MAX (256u << 20) /* a larger image is not read */
#define PIECE 4096u
#define FB_HEADER 16 /* fatbin.c's layout: a container's header, */
#define FB_ENTRY 64  /* the part of an entry's header it reads, */
#define FB_PACKED (0x2000u | 0x8000u) /* and the flags of a compressed payload */

/* ---- the copy: an anonymous mapping, grown as the image's extent is learnt ---- */
static int reserve(struct cushim_image *c, size_t n)
{
	size_t span = (n + PIECE - 1) / PIECE * PIECE;
	void *p;
	if (span <= c->span)
		return 0;
	p = c->p ? mremap(c->p, c->span, span, MREMAP_MAYMOVE)
		 : mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		c->why = "no memory to copy it into";
		return -1;
	}
	c->p = p;
	c->span = span;
	return 0;
}

/* len bytes of the image from off into the copy, as far as they can be
 * read: how many. */
static size_t fetch(struct cushim_image *c, size_t off, size_t len)
{
	size_t got = 0;
	if (c->mem)
		return cushim_peek(c->mem + off, c->p + off, len);
	while (got < len) {
		ssize_t r = pread(c->fd, c->p + off + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			c->err = r < 0 ? errno : 0;
			break;
		}
		got += (size_t)r;
	}
	return got;
}

/* Bytes [off, off + len) of the image, clipped to its extent, into the
 * copy: 0, or -1 where they cannot all be read (bad set). */
static int need(struct cushim_image *c, size_t off, size_t len)
{
	size_t got;
	if (off >= c->n)
		return 0;
	if (len > c->n - off)
		len = c->n - off;
	got = fetch(c, off, len);
	if (got == len)
		return 0;
	if (off + got < c->bad)
		c->bad = off + got;
	return -1;
}

/* From *off on, a piece at a time, until a byte that is 0 (nul set) or
 * is not (nul clear), or end: *off left there.  -1 where a byte before it
 * cannot be read. */
static int scan(struct cushim_image *c, size_t *off, size_t end, int nul)
{
	while (*off < end) {
		size_t k = end - *off < PIECE ? end - *off : PIECE, got = fetch(c, *off, k), i;
		for (i = 0; i < got && (c->p[*off + i] == 0) != nul; i++)
			;
		*off += i;
		if (i < got)
			return 0;
		if (got < k) {
			c->bad = *off < c->bad ? *off : c->bad;
			return -1;
		}
	}
	return 0;
}

/* ---- the walk, as the reader walks ---- */
static int need_region(struct cushim_image *c, size_t off, size_t end);

/* Text at off, within end: all of it (the reader looks for PTX's
 * directives and its kernels throughout). */
static int need_text(struct cushim_image *c, size_t off, size_t end)
{
	return need(c, off, end - off);
}

/* An ELF file at off, n bytes: its header and section table, its name
 * table, its notes (a cubin's toolkit) and its .nv_fatbin (a host file's
 * GPU code). */
static int need_elf(struct cushim_image *c, size_t off, size_t n)
{
	struct eb_elf e;
	struct eb_section s;
	if (n < 64)
		return 0;
	if (need(c, off, 64) != 0)
		return -1;
	const unsigned char *h = c->p + off;
	if (!eb_extent(h))
		return 0; /* not 64-bit little-endian ELF: the reader reads no more */
	uint64_t shoff = fb_le(h + 40, 8), shentsize = fb_le(h + 58, 2), shnum = fb_le(h + 60, 2);
	if (shnum == 0 || shentsize < 64 || shoff > n || shnum * shentsize > n - shoff)
		return 0; /* the reader stops here too */
	if (need(c, off + (size_t)shoff, (size_t)(shnum * shentsize)) != 0)
		return -1;
	if (eb_open(c->p + off, n, &e) != 0)
		return 0;
	if (e.shstrndx && eb_section(&e, e.shstrndx, &s) == 0 && s.p && need(c, (size_t)(s.p - c->p), s.n) != 0)
		return -1;
	for (unsigned k = 1; k < e.shnum; k++) {
		if (eb_section(&e, k, &s) != 0 || !s.p)
			continue;
		size_t at = (size_t)(s.p - c->p);
		if (s.type == SHT_NOTE && need(c, at, s.n) != 0)
			return -1;
		if (strcmp(s.name, ".nv_fatbin") == 0)
			return need_region(c, at, at + s.n);
	}
	return 0;
}

/* One entry of a fatbin at off (its entries end at end): its header, and
 * the payload the reader looks into (an uncompressed cubin or PTX).  1 and
 * *used set, 0 where the reader stops at it, -1 where it cannot be read. */
static int need_entry(struct cushim_image *c, size_t off, size_t end, size_t *used)
{
	if (end - off < FB_ENTRY)
		return 0;
	if (need(c, off, FB_ENTRY) != 0)
		return -1;
	const unsigned char *h = c->p + off;
	uint64_t hsize = fb_le(h + 4, 4), size = fb_le(h + 8, 8), arch = fb_le(h + 28, 4);
	int kind = (int)fb_le(h, 2), packed = (fb_le(h + 40, 8) & FB_PACKED) || fb_le(h + 16, 4) != 0;
	if (hsize < FB_ENTRY || hsize > end - off || size > end - off - hsize || arch == 0 || arch > 1000)
		return 0;
	size_t at = off + (size_t)hsize;
	*used = (size_t)(hsize + size);
	if (packed)
		return 1;
	if (kind == FB_SASS && size >= 4) {
		if (need(c, at, 4) != 0)
			return -1;
		if (memcmp(c->p + at, ELFMAG, SELFMAG) == 0 && need_elf(c, at, (size_t)size) != 0)
			return -1;
	} else if (kind == FB_PTX && need_text(c, at, at + (size_t)size) != 0) {
		return -1;
	}
	return 1;
}

/* One fatbin at off, within end: its header and its entries.  1 and *used
 * set, 0 where the reader stops at it, -1 where it cannot be read. */
static int need_fatbin(struct cushim_image *c, size_t off, size_t end, size_t *used)
{
	if (end - off < FB_HEADER)
		return 0;
	if (need(c, off, FB_HEADER) != 0)
		return -1;
	const unsigned char *h = c->p + off;
	uint64_t hsize = fb_le(h + 6, 2), size = fb_le(h + 8, 8);
	if (fb_le(h, 4) != FB_MAGIC || fb_le(h + 4, 2) != 1 || hsize < FB_HEADER || hsize > end - off ||
	    size > end - off - hsize)
		return 0;
	for (size_t at = off + (size_t)hsize, stop = at + (size_t)size, step = 0; at < stop; at += step) {
		int r = need_entry(c, at, stop, &step);
		if (r <= 0)
			return r;
	}
	*used = (size_t)(hsize + size);
	return 1;
}

/* Fatbins laid one after another in [off, end), with zeros between. */
static int need_region(struct cushim_image *c, size_t off, size_t end)
{
	size_t used = 0;
	while (off < end) {
		if (scan(c, &off, end, 0) != 0)
			return -1;
		if (off == end)
			return 0;
		int r = need_fatbin(c, off, end, &used);
		if (r <= 0)
			return r;
		off += used;
	}
	return 0;
}

/* The walk by the image's form, its first bytes in the copy: as mi_read
 * tells the forms apart. */
static void walk(struct cushim_image *c)
{
	const unsigned char *h = c->p;
	if (c->n >= 4 && fb_le(h, 4) == FB_MAGIC)
		need_region(c, 0, c->n);
	else if (c->n >= 4 && fb_le(h, 4) == FB_WRAPPER_MAGIC)
		need(c, 0, FB_HEADER);
	else if (c->n >= 64 && memcmp(h, ELFMAG, SELFMAG) == 0)
		need_elf(c, 0, c->n);
	else
		need_text(c, 0, c->n);
}

/* ---- from memory ---- */
/* Text whose extent nothing states (PTX handed over as a C string): up to
 * its NUL, the copy growing as it goes. */
static void text_unbounded(struct cushim_image *c)
{
	size_t at = 0;
	for (size_t n = 64u << 10;; n = n * 2 < IMAGE_MAX ? n * 2 : IMAGE_MAX) {
		c->n = n;
		if (reserve(c, n) != 0)
			return;
		if (scan(c, &at, n, 1) != 0 || at < n || n == IMAGE_MAX)
			break;
	}
	c->n = at;
}

/* The extent its first bytes (got of them, in the copy) say, 0 where
 * nothing does (text up to its NUL). */
static size_t extent(const unsigned char *h, size_t got)
{
	if (got >= 4 && fb_le(h, 4) == FB_MAGIC) {
		uint64_t claim = got >= FB_HEADER ? fb_le(h + 8, 8) : 0;
		return FB_HEADER + (size_t)(claim < IMAGE_MAX ? claim : IMAGE_MAX);
	}
	if (got >= 4 && fb_le(h, 4) == FB_WRAPPER_MAGIC)
		return FB_HEADER;
	if (got >= SELFMAG && memcmp(h, ELFMAG, SELFMAG) == 0) {
		uint64_t n = got >= 64 ? eb_extent(h) : 0;
		return n > 64 ? (size_t)(n < IMAGE_MAX ? n : IMAGE_MAX) : 64;
	}
	return 0;
}

void cushim_image_from_memory(const void *image, size_t size, struct cushim_image *c)
{
	unsigned char head[FB_HEADER];
	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->bad = SIZE_MAX;
	/* a fatbin wrapper (__fatBinC_Wrapper_t) is followed to its fatbin, once */
	if ((!size || size >= sizeof head) && cushim_peek(image, head, sizeof head) == sizeof head &&
	    fb_le(head, 4) == FB_WRAPPER_MAGIC) {
		image = (const void *)(uintptr_t)fb_le(head + 8, 8);
		size = 0;
	}
	c->mem = image;
	c->at = image;
	if (size > IMAGE_MAX) {
		c->why = "larger than 256 MiB, which cushim does not read";
		return;
	}
	c->n = size ? size : 64;
	if (reserve(c, c->n) != 0)
		return;
	size_t got = fetch(c, 0, c->n < 64 ? c->n : 64);
	if (got == 0) {
		c->bad = 0;
		return;
	}
	if (!size && !(c->n = extent(c->p, got))) {
		text_unbounded(c);
		return;
	}
	if (reserve(c, c->n) == 0)
		walk(c);
}

/* ---- from a file: opened without blocking (a FIFO, a device), read only
 * where it is a regular file ---- */
static int open_regular(struct cushim_image *c, const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), flags;
	if (fd < 0) {
		c->why = "open failed";
		c->err = errno;
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		c->why = "not a regular file";
		close(fd);
		return -1;
	}
	if ((flags = fcntl(fd, F_GETFL)) != -1)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	c->fd = fd;
	return 0;
}

void cushim_image_from_file(const char *path, struct cushim_image *c)
{
	struct stat st;
	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->bad = SIZE_MAX;
	if (open_regular(c, path, &st) != 0)
		return;
	if ((uint64_t)st.st_size > IMAGE_MAX) {
		c->why = "larger than 256 MiB, which cushim does not read";
	} else if ((c->n = (size_t)st.st_size) > 0 && reserve(c, c->n) == 0) {
		if (need(c, 0, c->n < 64 ? c->n : 64) == 0)
			walk(c);
	}
	close(c->fd);
	c->fd = -1;
}

int cushim_image_readable(const struct cushim_image *c)
{
	return !c->why && c->bad == SIZE_MAX && (c->p || !c->n);
}

void cushim_image_free(struct cushim_image *c)
{
	if (c->p)
		munmap(c->p, c->span);
	c->p = NULL;
	c->span = 0;
}
