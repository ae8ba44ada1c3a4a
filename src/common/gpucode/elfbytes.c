/* See elfbytes.h.  The layout is the System V ABI's (elf.h): a 64-byte file
 * header, a table of 64-byte section headers at e_shoff. */
#include "elfbytes.h"
#include <elf.h>
#include <string.h>

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int is_elf64le(const unsigned char *p)
{
	return memcmp(p, ELFMAG, SELFMAG) == 0 && p[EI_CLASS] == ELFCLASS64 && p[EI_DATA] == ELFDATA2LSB;
}

uint64_t eb_extent(const unsigned char *p)
{
	if (!is_elf64le(p))
		return 0;
	uint64_t sh = le(p + 40, 8) + le(p + 60, 2) * le(p + 58, 2);
	uint64_t ph = le(p + 32, 8) + le(p + 56, 2) * le(p + 54, 2);
	uint64_t end = sh > ph ? sh : ph;
	return end > 64 ? end : 64;
}

int eb_open(const unsigned char *p, size_t n, struct eb_elf *e)
{
	memset(e, 0, sizeof *e);
	if (n < 64 || !is_elf64le(p))
		return -1;
	e->p = p, e->n = n;
	e->abiversion = p[EI_ABIVERSION];
	e->machine = (unsigned)le(p + 18, 2);
	e->flags = (uint32_t)le(p + 48, 4);
	e->shoff = le(p + 40, 8);
	e->shentsize = (unsigned)le(p + 58, 2);
	e->shnum = (unsigned)le(p + 60, 2);
	e->shstrndx = (unsigned)le(p + 62, 2);
	if (e->shnum == 0)
		return 0;
	if (e->shentsize < 64 || e->shoff > n || (uint64_t)e->shnum * e->shentsize > n - e->shoff)
		return -1;
	return 0;
}

static const char *name_at(const struct eb_elf *e, uint64_t at)
{
	struct eb_section t;
	if (e->shstrndx >= e->shnum || e->shstrndx == 0)
		return "";
	const unsigned char *h = e->p + e->shoff + (uint64_t)e->shstrndx * e->shentsize;
	uint64_t off = le(h + 24, 8), size = le(h + 32, 8);
	if (off > e->n || size > e->n - off || at >= size)
		return "";
	t.p = e->p + off, t.n = (size_t)size;
	return memchr(t.p + at, 0, t.n - (size_t)at) ? (const char *)t.p + at : "";
}

int eb_section(const struct eb_elf *e, unsigned k, struct eb_section *s)
{
	if (k >= e->shnum)
		return -1;
	const unsigned char *h = e->p + e->shoff + (uint64_t)k * e->shentsize;
	uint64_t off = le(h + 24, 8), size = le(h + 32, 8);
	s->type = (uint32_t)le(h + 4, 4);
	s->flags = le(h + 8, 8);
	s->name = name_at(e, le(h, 4));
	s->p = NULL, s->n = 0;
	if (s->type == SHT_NOBITS)
		return 0;
	if (off > e->n || size > e->n - off)
		return -1;
	s->p = e->p + off, s->n = (size_t)size;
	return 0;
}

size_t eb_note(const struct eb_section *s, size_t off, uint32_t *type, const unsigned char **desc, size_t *descsz)
{
	if (!s->p || off + 12 > s->n || off + 12 < off)
		return 0;
	uint64_t namesz = le(s->p + off, 4), dsz = le(s->p + off + 4, 4);
	uint64_t dat = off + 12 + ((namesz + 3) & ~(uint64_t)3);
	uint64_t next = dat + ((dsz + 3) & ~(uint64_t)3);
	if (dat > s->n || dsz > s->n - dat || next > s->n)
		return 0;
	*type = (uint32_t)le(s->p + off + 8, 4);
	*desc = s->p + dat;
	*descsz = (size_t)dsz;
	return (size_t)next;
}
