/* Reading a 64-bit little-endian ELF file held in memory (a cubin, or a host
 * object or library) without libelf: every offset is checked against the
 * bytes given, so that the library can read what a program hands the
 * driver, and the command what a file holds. */
#ifndef CUSHIM_ELFBYTES_H
#define CUSHIM_ELFBYTES_H
#include <stddef.h>
#include <stdint.h>

struct eb_elf {
	const unsigned char *p;
	size_t n;
	unsigned machine, abiversion;
	uint32_t flags;              /* e_flags */
	uint64_t shoff;
	unsigned shnum, shentsize, shstrndx;
};

struct eb_section {
	const char *name;            /* "" when the name table cannot give one */
	uint32_t type;
	uint64_t flags;
	const unsigned char *p;      /* its bytes, NULL for SHT_NOBITS */
	size_t n;
};

/* 0 and e filled when p[0..n) begins with a 64-bit little-endian ELF header
 * whose section table lies within the n bytes; -1 otherwise. */
int eb_open(const unsigned char *p, size_t n, struct eb_elf *e);
/* Section k (0 to shnum - 1): 0, or -1 when its bytes lie outside the file. */
int eb_section(const struct eb_elf *e, unsigned k, struct eb_section *s);
/* How many bytes the ELF file at p spans, read from its header alone (the
 * end of the section or program header table, whichever is later); 0 when p
 * (at least 64 bytes) is no 64-bit ELF header. */
uint64_t eb_extent(const unsigned char *p);
/* The notes of a SHT_NOTE section, one at a time: off starts at 0; returns
 * the next offset (0 at the end) with the note's type and description. */
size_t eb_note(const struct eb_section *s, size_t off, uint32_t *type, const unsigned char **desc, size_t *descsz);
#endif
