/* A small JSON reader: recursive descent over a buffer, into struct jv
 * trees (jsonread.h).  A \u escape is read back as the character it names,
 * in UTF-8 (a surrogate pair as one character); \u0000 and a lone surrogate
 * as U+FFFD, the character that stands for what is not text, which is what
 * cushim's files hold there (src/common/jsonstr.h). */
#include "jsonread.h"
#include <stdlib.h>
#include <string.h>

struct in {
	const char *p, *end;
	const char *why;
	int depth;
};

static void skip(struct in *in)
{
	while (in->p < in->end && (*in->p == ' ' || *in->p == '\n' || *in->p == '\t' || *in->p == '\r'))
		in->p++;
}

static int bad(struct in *in, const char *why)
{
	if (!in->why)
		in->why = why;
	return -1;
}

/* Four hex digits at p: their value, or -1. */
static long hex4(const char *p, const char *end)
{
	long v = 0;
	for (int k = 0; k < 4; k++, p++) {
		int d = p >= end ? -1 : *p >= '0' && *p <= '9' ? *p - '0' : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ?
									  (*p | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* The escape \uXXXX (or a pair of them) at in->p (on its 'u'), as UTF-8
 * into u (at most 4 bytes): how many, or 0 when it is not one; in->p is
 * left on its last digit. */
static int unicode(struct in *in, char u[4])
{
	long c = hex4(in->p + 1, in->end), lo;
	if (c < 0)
		return 0;
	in->p += 4;
	if (c >= 0xd800 && c < 0xdc00 && in->end - in->p > 6 && in->p[1] == '\\' && in->p[2] == 'u' &&
	    (lo = hex4(in->p + 3, in->end)) >= 0xdc00 && lo < 0xe000) {
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		in->p += 6;
	} else if (c == 0 || (c >= 0xd800 && c < 0xe000)) {
		c = 0xfffd;
	}
	if (c < 0x80)
		return u[0] = (char)c, 1;
	if (c < 0x800)
		return u[0] = (char)(0xc0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3f)), 2;
	if (c < 0x10000)
		return u[0] = (char)(0xe0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 0x3f)),
		       u[2] = (char)(0x80 | (c & 0x3f)), 3;
	u[0] = (char)(0xf0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 0x3f));
	u[2] = (char)(0x80 | (c >> 6 & 0x3f)), u[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static int string(struct in *in, char **out)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);
	if (!s)
		return bad(in, "out of memory");
	for (in->p++; in->p < in->end && *in->p != '"'; in->p++) {
		char c = *in->p, u[4];
		int nu = 1;
		if ((unsigned char)c < 0x20)
			break;
		u[0] = c;
		if (c == '\\') {
			if (++in->p >= in->end)
				break;
			c = *in->p;
			const char *map = c ? strchr("\"\"\\\\//b\bf\fn\nr\rt\t", c) : NULL;
			if (c == 'u')
				nu = unicode(in, u);
			else if (map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0)
				u[0] = map[1];
			else
				break;
			if (!nu)
				break;
		}
		if (len + 5 > cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return bad(in, "out of memory");
			}
			s = t;
		}
		memcpy(s + len, u, (size_t)nu);
		len += (size_t)nu;
	}
	s[len] = '\0';
	*out = s;
	if (in->p >= in->end || *in->p != '"')
		return bad(in, "a string that does not end");
	in->p++;
	return 0;
}

static int value(struct in *in, struct jv *v);

/* The items of an array or object, after its opening bracket. */
static int items(struct in *in, struct jv *v, char close)
{
	size_t cap = 0;
	skip(in);
	if (in->p < in->end && *in->p == close)
		return in->p++, 0;
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			v->items = realloc(v->items, cap * sizeof *v->items);
			v->keys = close == '}' ? realloc(v->keys, cap * sizeof *v->keys) : NULL;
			if (!v->items || (close == '}' && !v->keys))
				return bad(in, "out of memory");
		}
		memset(&v->items[v->n], 0, sizeof *v->items);
		skip(in);
		if (close == '}') {
			char *key = NULL;
			int named = in->p < in->end && *in->p == '"' && string(in, &key) == 0;
			skip(in);
			if (!named || in->p >= in->end || *in->p++ != ':') {
				free(key);
				return bad(in, named ? "a member name without ':'" : "an object member without a name");
			}
			v->keys[v->n] = key;
		}
		if (value(in, &v->items[v->n++]) != 0)
			return -1;
		skip(in);
		if (in->p < in->end && *in->p == ',') {
			in->p++;
			continue;
		}
		if (in->p < in->end && *in->p == close)
			return in->p++, 0;
		return bad(in, close == '}' ? "an object that does not end" : "an array that does not end");
	}
}

static int value(struct in *in, struct jv *v)
{
	char *end;
	skip(in);
	if (in->p >= in->end)
		return bad(in, "it ends where a value should be");
	if (++in->depth > 64)
		return bad(in, "nested too deep");
	char c = *in->p;
	int rc = 0;
	if (c == '{' || c == '[') {
		v->type = c == '{' ? JV_OBJ : JV_ARR;
		in->p++;
		rc = items(in, v, c == '{' ? '}' : ']');
	} else if (c == '"') {
		v->type = JV_STR;
		rc = string(in, &v->str);
	} else if (in->end - in->p >= 4 && (!memcmp(in->p, "true", 4) || !memcmp(in->p, "null", 4))) {
		v->type = c == 't' ? JV_BOOL : JV_NULL, v->num = c == 't', in->p += 4;
	} else if (in->end - in->p >= 5 && !memcmp(in->p, "false", 5)) {
		v->type = JV_BOOL, in->p += 5;
	} else if ((c >= '0' && c <= '9') || c == '-') {
		char buf[64];
		size_t l = 0;
		while (in->p + l < in->end && l < sizeof buf - 1 && strchr("0123456789+-.eE", in->p[l]))
			buf[l] = in->p[l], l++;
		buf[l] = '\0';
		v->type = JV_NUM, v->num = strtod(buf, &end);
		if (end != buf + l)
			return bad(in, "a number that is not one");
		in->p += l;
	} else {
		return bad(in, "something that is not JSON");
	}
	in->depth--;
	return rc;
}

int jv_parse(const char *text, size_t n, struct jv *out, const char **why)
{
	struct in in = { text, text + n, NULL, 0 };
	memset(out, 0, sizeof *out);
	int rc = value(&in, out);
	skip(&in);
	if (rc == 0 && in.p != in.end)
		rc = bad(&in, "more follows the value");
	*why = in.why;
	return rc;
}

void jv_free(struct jv *v)
{
	for (size_t k = 0; k < v->n; k++) {
		jv_free(&v->items[k]);
		if (v->keys)
			free(v->keys[k]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof *v);
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (v->type != JV_OBJ)
		return NULL;
	for (size_t k = 0; k < v->n; k++)
		if (strcmp(v->keys[k], key) == 0)
			return &v->items[k];
	return NULL;
}

double jv_num(const struct jv *v, const char *key, double def)
{
	const struct jv *m = jv_get(v, key);
	return m && m->type == JV_NUM ? m->num : def;
}
