/* libFuzzer targets for what the diagnostics read of the program's memory
 * (src/common/peek.c), one per -D:
 *   FUZZ_STRING  a string argument: cushim_peek_str and the trace's and
 *                timeline's formatter (src/diag/stamp.c).  The input's
 *                first byte says where its other bytes lie: ending just
 *                before a PROT_NONE page, unterminated or with a NUL after
 *                them, or the pointer in that page; and how large a buffer
 *                each gets.  What they give is checked against the bytes:
 *                the same string, cut and escaped as promised, and
 *                <unreadable ADDRESS> at the first byte that cannot be read.
 *   FUZZ_IMAGE   a module image (src/shim/explain-image.c): the copy that
 *                holds only what the reader of images looks at gives that
 *                reader (src/common/gpucode/modimage.c) the same answer
 *                as the whole bytes, from memory and from a file; with its
 *                size taken from its header and its bytes just before a
 *                PROT_NONE page, it cannot be read from a byte past their
 *                end, or it is read whole. */
#include "config.h"
#include "peek.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* len bytes that end where a PROT_NONE page begins: their address (a fresh
 * mapping each time, so that nothing before them is left from another
 * input; unmap with unguard). */
static char *guarded(size_t len, size_t *span)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (len + page - 1) / page * page;
	char *p = mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(p != MAP_FAILED && mprotect(p + body, page, PROT_NONE) == 0);
	*span = body + page;
	return p + body - len;
}

static void unguard(char *at, size_t len, size_t span)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	munmap(at + len - (span - page), span);
}

#if defined(FUZZ_STRING)
#include "callfmt.h"
#include "table.h"

#define SHOWN 64 /* stamp.c's STR_MAX */

/* The slots errors.c reads when the driver names a code: none here. */
void *cushim_real[CUSHIM_NSYMS];

/* What the formatter must print for the n bytes at s, NUL-terminated where
 * nul, else running into memory that cannot be read at s + n. */
static void expected(const char *s, size_t n, int nul, char *out, size_t size)
{
	size_t len = strnlen(s, n), o = 0;
	int ends = len < n || nul, cut = (ends ? len : n) > SHOWN;
	if (!ends && !n) {
		snprintf(out, size, "<unreadable %p>", (const void *)s);
		return;
	}
	out[o++] = '"';
	for (size_t k = 0; k < (ends ? len : n) && k < SHOWN; k++) {
		unsigned char c = (unsigned char)s[k];
		if (c == '"' || c == '\\')
			o += (size_t)sprintf(out + o, "\\%c", c);
		else if (c == '\n' || c == '\t' || c == '\r')
			o += (size_t)sprintf(out + o, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	if (cut)
		snprintf(out + o, size - o, "...");
	else if (!ends)
		snprintf(out + o, size - o, "<unreadable %p>", (const void *)(s + n));
	else
		out[o] = '\0';
}

/* cushim_peek_str's promise for the n bytes at s (see expected). */
static void check_peek(const char *s, size_t n, int nul, size_t size)
{
	char dst[300];
	int cut = -1;
	size_t len = strnlen(s, n);
	long got = cushim_peek_str(s, dst, size, &cut);
	if (!size) {
		REQUIRE(got == -1 && cut == 0);
		return;
	}
	REQUIRE(memchr(dst, '\0', size) != NULL);
	if ((len < n || nul) && len < size - 1) { /* its NUL within reach */
		REQUIRE(got == (long)len && !cut && memcmp(dst, s, len + 1) == 0);
	} else if (len >= size - 1) { /* cut */
		REQUIRE(got == (long)(size - 1) && cut && memcmp(dst, s, size - 1) == 0 && !dst[size - 1]);
	} else { /* into the PROT_NONE page first */
		REQUIRE(got == -1 && !cut && strlen(dst) == n && memcmp(dst, s, n) == 0);
	}
}

static void check_format(const char *s, size_t n, int nul, size_t size)
{
	char want[400], full[400], buf[400];
	const struct cushim_argdesc d = { "name", CUSHIM_A_STR, -1 };
	expected(s, n, nul, want, sizeof want);
	size_t len = cushim_format_arg(full, sizeof full, &d, (uint64_t)(uintptr_t)s, NULL);
	REQUIRE(len == strlen(want) && strcmp(full, want) == 0);
	/* a smaller buffer: the same text, cut, terminated */
	len = cushim_format_arg(buf, size, &d, (uint64_t)(uintptr_t)s, NULL);
	REQUIRE(size == 0 || (len < size && !buf[len] && memcmp(buf, full, len) == 0));
	REQUIRE(size == 0 || len == (strlen(full) < size ? strlen(full) : size - 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t span, n;
	if (size < 2)
		return 0;
	/* data[0]: bit 0 a NUL after the bytes, bit 1 the pointer in the
	 * PROT_NONE page; data[1]: the buffer's size */
	int nul = data[0] & 1, inside = (data[0] & 2) && !nul;
	size_t bufsize = data[1] % 160;
	n = inside ? 0 : size - 2 < 4096 ? size - 2 : 4096;
	char *s = guarded(n + (size_t)nul, &span);
	memcpy(s, data + 2, n);
	if (nul)
		s[n] = '\0';
	check_peek(s, n, nul, bufsize);
	check_peek(s, n, nul, SHOWN + 2);
	check_format(s, n, nul, bufsize);
	const struct cushim_argdesc d = { "name", CUSHIM_A_STR, -1 };
	char null_text[8];
	REQUIRE(cushim_format_arg(null_text, sizeof null_text, &d, 0, NULL) == 4 && strcmp(null_text, "NULL") == 0);
	unguard(s, n + (size_t)nul, span);
	return 0;
}

#elif defined(FUZZ_IMAGE)
#include "state.h"
#include "explain-image.h"
#include "modimage.h"

static void same(const struct mi_image *a, const struct mi_image *b)
{
	REQUIRE(a->form == b->form && strcmp(a->error, b->error) == 0);
	REQUIRE(a->list.n == b->list.n && a->list.nfatbins == b->list.nfatbins);
	for (size_t i = 0; i < a->list.n; i++)
		REQUIRE(memcmp(&a->list.img[i], &b->list.img[i], sizeof *a->list.img) == 0);
}

/* The copy c of p[0..n) gives the reader what p does. */
static void check_copy(struct cushim_image *c, const unsigned char *p, size_t n)
{
	struct mi_image want, got;
	REQUIRE(cushim_image_readable(c) && c->n == n);
	mi_read(p, n, &want);
	mi_read(c->p ? c->p : (const unsigned char *)"", c->n, &got);
	same(&want, &got);
	mi_free(&want);
	mi_free(&got);
	cushim_image_free(c);
}

static void from_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	struct cushim_image c;
	if (fd < 0 && (fd = memfd_create("fuzz-image", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	cushim_image_from_file(path, &c);
	check_copy(&c, data, size);
}

/* Its size from its header, its bytes just before PROT_NONE memory that
 * reaches past the largest extent a header can claim (256 MiB, and a
 * page): it cannot be read from a byte the reader needs past their end, or
 * it can be read whole, and then (where its extent is not much larger) the
 * reader, given bytes other than 0 past their end, answers as it does from
 * the copy. */
#define ROOM (1u << 20) /* the largest input read this way */
static void by_header(const uint8_t *data, size_t size)
{
	static unsigned char *area;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (size + page - 1) / page * page;
	struct cushim_image c;
	struct mi_image want, got;
	if (size > ROOM)
		return;
	if (!area) {
		area = mmap(NULL, ROOM + (257u << 20), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		REQUIRE(area != MAP_FAILED);
	}
	unsigned char *p = area + ROOM - size;
	REQUIRE(mprotect(area + ROOM - body, body, PROT_READ | PROT_WRITE) == 0);
	memcpy(p, data, size);
	cushim_image_from_memory(p, 0, &c);
	if (!cushim_image_readable(&c)) {
		REQUIRE(!c.why && c.bad >= size && c.bad <= c.n); /* where a byte it needs lies past them */
	} else if (c.n <= size + 65536) {
		unsigned char *all = malloc(c.n ? c.n : 1);
		REQUIRE(all != NULL);
		memcpy(all, p, c.n < size ? c.n : size);
		if (c.n > size)
			memset(all + size, 0xa5, c.n - size);
		mi_read(all, c.n, &want);
		mi_read(c.p ? c.p : (const unsigned char *)"", c.n, &got);
		same(&want, &got);
		mi_free(&want);
		mi_free(&got);
		free(all);
	}
	cushim_image_free(&c);
	memset(area + ROOM - body, 0, body);
	REQUIRE(mprotect(area + ROOM - body, body, PROT_NONE) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cushim_image c;
	unsigned char *p;
	if (!size)
		return 0;
	from_file(data, size);
	/* a fatbin wrapper is followed to where it points: anywhere, here */
	if (size >= 4 && fb_le(data, 4) == FB_WRAPPER_MAGIC)
		return 0;
	p = malloc(size);
	REQUIRE(p != NULL);
	memcpy(p, data, size);
	cushim_image_from_memory(p, size, &c);
	check_copy(&c, data, size);
	free(p);
	by_header(data, size);
	return 0;
}

#else
#error "build with -DFUZZ_STRING or -DFUZZ_IMAGE"
#endif
