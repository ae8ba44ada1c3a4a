/* See modimage.h.  PTX is read from its directives (PTX ISA, "PTX Module
 * Directives"): ".version MAJOR.MINOR" and ".target sm_XY[a|f]". */
#include "config.h"
#include "modimage.h"
#include "elfbytes.h"
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mi_form_name(int form)
{
	switch (form) {
	case IMG_FATBIN: return "a fatbin";
	case IMG_CUBIN: return "a cubin";
	case IMG_HOST_ELF: return "an ELF object";
	case IMG_PTX: return "PTX";
	default: return "an image of unknown form";
	}
}

/* The number after `directive` and blanks in p[0..n): its digits and dots,
 * and a letter after them. */
static const char *directive(const char *p, size_t n, const char *name, char *buf, size_t size)
{
	size_t len = strlen(name), k = 0;
	const char *at = memmem(p, n, name, len);
	if (!at)
		return NULL;
	for (at += len; at < p + n && (*at == ' ' || *at == '\t'); at++)
		;
	while (at < p + n && k + 1 < size && (*at == '_' || *at == '.' || (*at >= '0' && *at <= '9') ||
					      (*at >= 'a' && *at <= 'z')))
		buf[k++] = *at++;
	buf[k] = '\0';
	return k ? buf : NULL;
}

static void read_ptx(const char *p, size_t n, struct mi_image *im)
{
	char v[32], t[32];
	int major, minor, arch = 0;
	char variant = 0;
	if (!directive(p, n, ".version", v, sizeof v) || sscanf(v, "%d.%d", &major, &minor) != 2 || major < 1 ||
	    major > 99 || minor < 0 || minor > 9) {
		snprintf(im->error, sizeof im->error, "no .version directive");
		return;
	}
	if (directive(p, n, ".target", t, sizeof t) && strncmp(t, "sm_", 3) == 0) {
		char *end;
		arch = (int)strtol(t + 3, &end, 10);
		variant = *end == 'a' || *end == 'f' ? *end : 0;
	}
	struct fb_list *l = &im->list;
	struct fb_image one = { .kind = FB_PTX, .arch = arch > 0 && arch < 1000 ? arch : 0, .variant = variant,
				.isa_major = major, .isa_minor = minor, .empty = !memmem(p, n, ".entry", 6), .fatbin = 1 };
	if (!one.arch) {
		snprintf(im->error, sizeof im->error, "no .target sm_XY directive");
		return;
	}
	if (!(l->img = malloc(sizeof *l->img)))
		return;
	l->img[0] = one;
	l->n = l->cap = 1;
	l->nfatbins = 1;
}

/* A host ELF file: the fatbins of its .nv_fatbin section. */
static void read_host_elf(const unsigned char *p, size_t n, struct mi_image *im)
{
	struct eb_elf e;
	struct eb_section s;
	char why[300];
	if (eb_open(p, n, &e) != 0) {
		snprintf(im->error, sizeof im->error, "an ELF file whose section table does not fit");
		return;
	}
	for (unsigned k = 1; k < e.shnum; k++)
		if (eb_section(&e, k, &s) == 0 && s.p && strcmp(s.name, ".nv_fatbin") == 0) {
			if (fb_read_region(s.p, s.n, 0, &im->list, why, sizeof why) != 0)
				snprintf(im->error, sizeof im->error, ".nv_fatbin: %s", why);
			return;
		}
	snprintf(im->error, sizeof im->error, "an ELF file without GPU code (no .nv_fatbin section)");
}

void mi_read(const unsigned char *p, size_t n, struct mi_image *im)
{
	char why[300];
	memset(im, 0, sizeof *im);
	if (n >= 4 && fb_le(p, 4) == FB_MAGIC) {
		im->form = IMG_FATBIN;
		if (fb_read_region(p, n, 0, &im->list, why, sizeof why) != 0)
			snprintf(im->error, sizeof im->error, "%s", why);
	} else if (n >= 4 && fb_le(p, 4) == FB_WRAPPER_MAGIC) {
		im->form = IMG_FATBIN;
		snprintf(im->error, sizeof im->error, "a fatbin wrapper, read from where it points");
	} else if (n >= 64 && memcmp(p, ELFMAG, SELFMAG) == 0) {
		im->form = fb_le(p + 18, 2) == EM_CUDA ? IMG_CUBIN : IMG_HOST_ELF;
		if (im->form == IMG_HOST_ELF)
			read_host_elf(p, n, im);
		else if (fb_read_cubin(p, n, &im->list, why, sizeof why) != 0)
			snprintf(im->error, sizeof im->error, "%s", why);
	} else if (memmem(p, n, ".version", 8)) {
		im->form = IMG_PTX;
		read_ptx((const char *)p, n, im);
	} else {
		snprintf(im->error, sizeof im->error, "not a fatbin, a cubin, an ELF object or PTX");
	}
	if (!im->error[0] && !im->list.n)
		snprintf(im->error, sizeof im->error, "%s without GPU code", mi_form_name(im->form));
}

void mi_free(struct mi_image *im)
{
	fb_free(&im->list);
}

/* sep (unless it is the first part), a and b, added at *o. */
static void part(char *buf, size_t size, size_t *o, const char *sep, const char *a, const char *b)
{
	if (*o >= size)
		return;
	int m = snprintf(buf + *o, size - *o, "%s%s%s", *o ? sep : "", a, b);
	*o += m > 0 ? (size_t)m : 0;
}

const char *mi_describe(const struct mi_image *im, char *buf, size_t size)
{
	char name[64], sass[256] = "", ptx[256] = "";
	size_t s = 0, x = 0, o = 0;
	int compressed = 0;
	for (size_t i = 0; i < im->list.n; i++) {
		const struct fb_image *m = &im->list.img[i];
		compressed += m->compressed;
		fb_image_name(m, name, sizeof name);
		if (m->kind == FB_SASS) {
			part(sass, sizeof sass, &s, ", ", name, "");
		} else if (m->kind == FB_PTX) {
			char isa[96];
			snprintf(isa, sizeof isa, "ISA %d.%d for %s", m->isa_major, m->isa_minor, name);
			part(ptx, sizeof ptx, &x, ", ", isa, "");
		}
	}
	buf[0] = '\0';
	part(buf, size, &o, "; ", s ? "SASS for " : "no SASS", sass);
	part(buf, size, &o, "; ", x ? "PTX " : "no PTX", ptx);
	snprintf(name, sizeof name, "%d of %zu", compressed, im->list.n);
	part(buf, size, &o, "; ", compressed ? name : "none", " compressed");
	return buf;
}
