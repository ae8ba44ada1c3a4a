/* JSON strings: see jsonstr.h for the rule every output follows. */
#include "jsonstr.h"
#include <string.h>

/* The length of the well-formed UTF-8 sequence that begins the n > 0 bytes
 * at s (RFC 3629's table: no overlong form, no surrogate, nothing above
 * U+10FFFF), or 0 where none does. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The first unit of the n > 0 bytes at s as JSON, into out (at most
 * CUSHIM_JSON_UNIT_MAX bytes): its length there; *used, the bytes of s it
 * stands for. */
static size_t unit(const unsigned char *s, size_t n, char *out, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	size_t len;

	*used = 1;
	if (c == '"' || c == '\\') {
		out[0] = '\\', out[1] = (char)c;
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		memcpy(out, "\\u00", 4);
		out[4] = hex[c >> 4], out[5] = hex[c & 15];
		return 6;
	}
	if ((len = utf8_len(s, n)) == 0) {
		memcpy(out, "\\ufffd", 6);
		return 6;
	}
	memcpy(out, s, len);
	*used = len;
	return len;
}

size_t cushim_json_escape_n(char *buf, size_t size, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char one[CUSHIM_JSON_UNIT_MAX];
	size_t o = 0, used;

	if (size == 0)
		return 0;
	while (n > 0) {
		size_t m = unit(p, n, one, &used);
		if (m > size - 1 - o)
			break; /* no room for it whole and the NUL */
		memcpy(buf + o, one, m);
		o += m, p += used, n -= used;
	}
	buf[o] = '\0';
	return o;
}

size_t cushim_json_escape(char *buf, size_t size, const char *s)
{
	return s ? cushim_json_escape_n(buf, size, s, strlen(s)) : cushim_json_escape_n(buf, size, "", 0);
}

void cushim_json_print(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char one[CUSHIM_JSON_UNIT_MAX];
	size_t n = strlen((const char *)p), used;

	putc('"', f);
	while (n > 0) {
		fwrite(one, 1, unit(p, n, one, &used), f);
		p += used, n -= used;
	}
	putc('"', f);
}
