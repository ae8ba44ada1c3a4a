/* JSON strings: escaped, and valid UTF-8 even for file names that are not. */
#include "cli.h"

static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (c == 0xe0 && s[1] < 0xa0)
		return 0; /* overlong */
	if (c == 0xed && s[1] >= 0xa0)
		return 0; /* surrogate */
	if (c == 0xf0 && s[1] < 0x90)
		return 0;
	if (c == 0xf4 && s[1] >= 0x90)
		return 0;
	return n;
}

void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	putc('"', f);
	while (*s) {
		int n;
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = utf8_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		} else {
			fputs("\\ufffd", f); /* a byte that is not UTF-8 */
			s++;
		}
	}
	putc('"', f);
}
