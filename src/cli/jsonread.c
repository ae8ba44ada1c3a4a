/* A small JSON reader: recursive descent over a buffer, into struct jv
 * trees (jsonread.h).  \u escapes are kept as '?': cushim's files hold
 * them only for bytes of a name that are not text (src/common/jsonstr.h),
 * and what is read is names and numbers. */
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

static int string(struct in *in, char **out)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);
	if (!s)
		return bad(in, "out of memory");
	for (in->p++; in->p < in->end && *in->p != '"'; in->p++) {
		char c = *in->p;
		if ((unsigned char)c < 0x20)
			break;
		if (c == '\\') {
			if (++in->p >= in->end)
				break;
			c = *in->p;
			const char *map = c ? strchr("\"\"\\\\//b\bf\fn\nr\rt\t", c) : NULL;
			if (c == 'u' && in->end - in->p > 4)
				in->p += 4, c = '?';
			else if (map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0)
				c = map[1];
			else
				break;
		}
		if (len + 2 > cap && !(s = realloc(s, cap *= 2)))
			return bad(in, "out of memory");
		s[len++] = c;
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
