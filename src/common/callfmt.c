/* How the trace shows a call (callfmt.h): the formatting of numbers and of
 * each kind of argument, and the argument tables, expanded from the
 * generated table (each row's parameters: name, how to print them).  The
 * library's trace and timeline and the command's decoding of a record file
 * share it. */
#include "config.h"
#include "table.h"
#include "callfmt.h"
#include "enums.h"
#include "errnames.h"
#include "peek.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define STR_MAX 64
#define CUSHIM_UNPAREN(...) __VA_ARGS__

#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, args, u64, n, descs) \
	static const struct cushim_argdesc argd_##i[] = { { 0 }, CUSHIM_UNPAREN descs };
#include "cushim-syms.h"
#undef CUSHIM_SYM

const struct cushim_argdesc *const cushim_argdescs[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, ...) [i] = argd_##i + 1,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

const unsigned char cushim_nargs[CUSHIM_NSYMS] = {
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, args, u64, n, ...) [i] = n,
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

static void put(struct cushim_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct cushim_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (o->left <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->left)
		n = (int)o->left - 1;
	o->p += n;
	o->left -= (size_t)n;
}

/* The common cases by hand: the trace's cost is mostly its formatting. */
void cushim_put_raw(struct cushim_out *o, const char *s, size_t n)
{
	if (n >= o->left)
		n = o->left ? o->left - 1 : 0;
	memcpy(o->p, s, n);
	o->p += n;
	o->left -= n;
	if (o->left)
		*o->p = '\0';
}

static void put_s(struct cushim_out *o, const char *s)
{
	cushim_put_raw(o, s, strlen(s));
}

void cushim_put_u(struct cushim_out *o, uint64_t v)
{
	char tmp[24], *e = tmp + sizeof tmp, *p = e;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	cushim_put_raw(o, p, (size_t)(e - p));
}

static void put_x(struct cushim_out *o, uint64_t v)
{
	char tmp[20], *e = tmp + sizeof tmp, *p = e;
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	cushim_put_raw(o, p, (size_t)(e - p));
}

/* value/1000 with three decimals: 1234 -> "1.234" */
void cushim_put_milli(struct cushim_out *o, uint64_t v, int digits)
{
	uint64_t scale = digits == 6 ? 1000000 : 1000, frac = v % scale;
	char tmp[8];
	cushim_put_u(o, v / scale);
	tmp[0] = '.';
	for (int k = digits; k > 0; k--, frac /= 10)
		tmp[k] = (char)('0' + frac % 10);
	cushim_put_raw(o, tmp, (size_t)digits + 1);
}

/* s[0..n) between quotes: a quote, a backslash and the blanks escaped, C's
 * way; other bytes outside printable ASCII as \xHH. */
static void put_quoted(struct cushim_out *o, const char *s, size_t n)
{
	char tmp[4 * STR_MAX + 2], *q = tmp;
	*q++ = '"';
	for (size_t k = 0; k < n && k < STR_MAX; k++) {
		unsigned char c = (unsigned char)s[k];
		if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			*q++ = '\\';
			*q++ = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			*q++ = '\\';
			*q++ = 'x';
			*q++ = "0123456789abcdef"[c >> 4];
			*q++ = "0123456789abcdef"[c & 15];
		} else {
			*q++ = (char)c;
		}
	}
	*q++ = '"';
	cushim_put_raw(o, tmp, (size_t)(q - tmp));
}

/* A C string the program passed, read through the checked copy (peek.h),
 * never directly: "text", cut after STR_MAX characters ("text"...).  Where
 * it runs into memory that cannot be read before its NUL, what could be
 * read and then <unreadable ADDRESS>, the first address that cannot
 * (<unreadable ADDRESS> alone when not even its first byte can). */
/* s (len bytes; n, its length, or -1 where it ran into memory that cannot
 * be read at v + len), as put_str shows it. */
static void show_str(struct cushim_out *o, uint64_t v, const char *s, long n, size_t len, int cut)
{
	if (n >= 0 || len)
		put_quoted(o, s, len);
	if (cut) {
		put_s(o, "...");
	} else if (n < 0) {
		put_s(o, "<unreadable ");
		put_x(o, v + len);
		put_s(o, ">");
	}
}

static void put_str(struct cushim_out *o, uint64_t v)
{
	char s[STR_MAX + 2]; /* one more than is shown: a longer string is cut */
	int cut;
	long n;

	if (!v) {
		put_s(o, "NULL");
		return;
	}
	n = cushim_peek_str((const void *)(uintptr_t)v, s, sizeof s, &cut);
	show_str(o, v, s, n, n >= 0 ? (size_t)n : strlen(s), cut);
}

/* The string at v as put_str shows it, from the bytes a record copied. */
static void put_copied(struct cushim_out *o, uint64_t v, const struct cushim_strarg *sa)
{
	size_t len = strnlen(sa->bytes, STR_MAX + 1);
	int cut = sa->state == 1 || (sa->state == 0 && len > STR_MAX); /* as put_str: STR_MAX + 1 read */

	if (!v)
		put_s(o, "NULL");
	else
		show_str(o, v, sa->bytes, sa->state == 2 ? -1 : (long)len, len, cut);
}

static void put_arg(struct cushim_out *o, const struct cushim_argdesc *d, uint64_t v, const struct cushim_strarg *sa)
{
	const char *name;
	switch (d->cls) {
	case CUSHIM_A_PTR:
	case CUSHIM_A_HEX:
		if (v == 0 && d->cls == CUSHIM_A_PTR)
			put_s(o, "NULL");
		else
			put_x(o, v);
		break;
	case CUSHIM_A_STR:
		if (sa)
			put_copied(o, v, sa);
		else
			put_str(o, v);
		break;
	case CUSHIM_A_INT:
		if ((int64_t)v < 0) {
			cushim_put_raw(o, "-", 1);
			v = (uint64_t)0 - v;
		}
		cushim_put_u(o, v);
		break;
	case CUSHIM_A_UINT:
		cushim_put_u(o, v);
		break;
	case CUSHIM_A_ENUM:
		if ((name = cushim_enum_name(d->extra, (long long)(int)v)))
			put_s(o, name);
		else
			put(o, "%lld", (long long)(int)v);
		break;
	case CUSHIM_A_FLOAT: {
		double f;
		memcpy(&f, &v, sizeof f);
		put(o, "%g", f);
		break;
	}
	case CUSHIM_A_STRUCT: {
		const unsigned char *b = (const unsigned char *)(uintptr_t)v;
		int n = d->extra < 16 ? d->extra : 16;
		put(o, "{");
		for (int k = 0; k < n; k++)
			put(o, "%02x", b[k]);
		put(o, d->extra > 16 ? "...}" : "}");
		break;
	}
	}
}

/* "cuMemAlloc_v2(dptr=0x7ffd5e1c, bytesize=1048576) = CUDA_SUCCESS" */
size_t cushim_format_call(char *buf, size_t size, unsigned i, CUresult r, const uint64_t *argv,
			  const struct cushim_strarg *sa)
{
	struct cushim_out o = { buf, size };
	const char *rn = cushim_error_name((int)r);

	put_s(&o, cushim_syms[i].name);
	cushim_put_raw(&o, "(", 1);
	for (unsigned k = 0; k < cushim_nargs[i]; k++) {
		if (k)
			cushim_put_raw(&o, ", ", 2);
		put_s(&o, cushim_argdescs[i][k].name);
		cushim_put_raw(&o, "=", 1);
		put_arg(&o, &cushim_argdescs[i][k], argv[k], sa && sa->arg == (int)k ? sa : NULL);
	}
	cushim_put_raw(&o, ") = ", 4);
	if (rn)
		put_s(&o, rn);
	else
		put(&o, "%d", (int)r);
	return (size_t)(o.p - buf);
}

size_t cushim_format_decimal(char *buf, size_t size, uint64_t v, int decimals)
{
	struct cushim_out o = { buf, size };
	if (decimals)
		cushim_put_milli(&o, v, decimals);
	else
		cushim_put_u(&o, v);
	return (size_t)(o.p - buf);
}

size_t cushim_format_arg(char *buf, size_t size, const struct cushim_argdesc *d, uint64_t v,
			 const struct cushim_strarg *sa)
{
	struct cushim_out o = { buf, size };
	put_arg(&o, d, v, sa);
	return (size_t)(o.p - buf);
}

size_t cushim_format_line(char *buf, size_t size, const struct cushim_line *l)
{
	enum { TAIL = 32 }; /* room kept for " 123456789.123 us\n" */
	struct cushim_out o = { buf, size - TAIL };

	cushim_put_raw(&o, "cushim: ", 8);
	cushim_put_milli(&o, l->since_us, 6);
	cushim_put_raw(&o, " ", 1);
	cushim_put_u(&o, (uint64_t)l->pid);
	cushim_put_raw(&o, " ", 1);
	cushim_put_u(&o, (uint64_t)l->tid);
	cushim_put_raw(&o, " ", 1);
	o.p += cushim_format_call(o.p, o.left, l->fn, l->result, l->argv, l->sa);
	o.left = size - (size_t)(o.p - buf);
	cushim_put_raw(&o, " ", 1);
	cushim_put_milli(&o, l->took_ns, 3);
	cushim_put_raw(&o, " us\n", 4);
	return (size_t)(o.p - buf);
}
