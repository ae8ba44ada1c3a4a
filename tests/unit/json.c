/* Unit tests of the JSON string escaper every output uses
 * (src/common/jsonstr.c): every byte 0..255 alone, well-formed UTF-8 at
 * each boundary of RFC 3629's table and the malformed sequences beside
 * them, quotes and backslashes, the bounded buffer (never a piece of an
 * escape or of a sequence, always NUL-terminated) and the stdio form.  The
 * expected strings are written here by hand from jsonstr.h's rule. */
#include "jsonstr.h"
#include "jsonread.h"
#include <check.h>
#include "../harness/check-run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contents for the n bytes at s, with room to spare. */
static const char *esc(const char *s, size_t n)
{
	static char out[1024];
	size_t len = cushim_json_escape_n(out, sizeof out, s, n);
	ck_assert_uint_eq(len, strlen(out));
	return out;
}

#define ESC(lit) esc(lit, sizeof lit - 1)

START_TEST(every_byte_alone)
{
	for (int c = 0; c < 256; c++) {
		char in = (char)c, want[8];
		if (c == '"' || c == '\\')
			snprintf(want, sizeof want, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			snprintf(want, sizeof want, "\\u00%02x", c);
		else if (c < 0x80)
			snprintf(want, sizeof want, "%c", c);
		else /* no byte above 0x7f is a sequence alone */
			snprintf(want, sizeof want, "\\ufffd");
		ck_assert_msg(strcmp(esc(&in, 1), want) == 0, "byte %#x gives \"%s\", wanted \"%s\"", c, esc(&in, 1),
			      want);
	}
}
END_TEST

START_TEST(quotes_and_controls)
{
	ck_assert_str_eq(ESC("say \"hi\" \\ bye"), "say \\\"hi\\\" \\\\ bye");
	ck_assert_str_eq(ESC("a\nb\tc\rd"), "a\\u000ab\\u0009c\\u000dd");
	ck_assert_str_eq(ESC("\x1f\x7f"), "\\u001f\\u007f");
	ck_assert_str_eq(esc("a\0b", 3), "a\\u0000b"); /* a NUL within the length given */
	ck_assert_str_eq(ESC("\"\\\""), "\\\"\\\\\\\"");
	ck_assert_str_eq(ESC(""), "");
}
END_TEST

START_TEST(well_formed_utf8_kept)
{
	static const char *const good[] = {
		"\xc2\x80",         /* U+0080, the first of two bytes */
		"\xdf\xbf",         /* U+07FF */
		"\xe0\xa0\x80",     /* U+0800 */
		"\xe2\x82\xac",     /* the euro sign */
		"\xed\x9f\xbf",     /* U+D7FF, below the surrogates */
		"\xee\x80\x80",     /* U+E000, above them */
		"\xef\xbf\xbf",     /* U+FFFF */
		"\xf0\x90\x80\x80", /* U+10000 */
		"\xf4\x8f\xbf\xbf", /* U+10FFFF, the last */
		"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	};
	for (size_t k = 0; k < sizeof good / sizeof *good; k++)
		ck_assert_str_eq(esc(good[k], strlen(good[k])), good[k]);
}
END_TEST

START_TEST(malformed_utf8_replaced)
{
#define R "\\ufffd"
	static const struct {
		const char *in, *want;
	} bad[] = {
		{ "\x80", R },                                   /* a continuation byte alone */
		{ "\xbf\x80", R R },
		{ "\xc0\x80", R R },                             /* overlong NUL */
		{ "\xc1\xbf", R R },                             /* overlong */
		{ "\xe0\x9f\xbf", R R R },                       /* overlong, three bytes */
		{ "\xf0\x8f\xbf\xbf", R R R R },                 /* overlong, four bytes */
		{ "\xed\xa0\x80", R R R },                       /* a surrogate, U+D800 */
		{ "\xed\xbf\xbf", R R R },                       /* U+DFFF */
		{ "\xf4\x90\x80\x80", R R R R },                 /* above U+10FFFF */
		{ "\xf5\x80\x80\x80", R R R R },
		{ "\xfe\xff", R R },
		{ "\xe2\x82", R R },                             /* cut at the end */
		{ "\xe2\x82" "A", R R "A" },                     /* cut by an ASCII byte */
		{ "\xe2" "\"", R "\\\"" },                       /* cut by a quote */
		{ "\xf0\x9f\x98", R R R },
		{ "\xc3" "\n", R "\\u000a" },                    /* cut by a control byte */
		{ "\xc3\xa9\xa9", "\xc3\xa9" R },                /* a sequence and one too many */
		{ "a\xffz\xc3\xa9", "a" R "z\xc3\xa9" },
	};
#undef R
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		ck_assert_msg(strcmp(esc(bad[k].in, strlen(bad[k].in)), bad[k].want) == 0, "case %zu gives \"%s\", wanted \"%s\"",
			      k, esc(bad[k].in, strlen(bad[k].in)), bad[k].want);
}
END_TEST

/* A bound cuts between units, never inside one, and leaves room for the NUL. */
START_TEST(bounded_buffer)
{
	static const struct {
		const char *in;
		size_t size;
		const char *want;
	} cut[] = {
		{ "a\"b", 3, "a" },  { "a\"b", 4, "a\\\"" },   { "a\"b", 5, "a\\\"b" },
		{ "\xc3\xa9", 2, "" }, { "\xc3\xa9", 3, "\xc3\xa9" }, { "\x01x", 6, "" },
		{ "\x01x", 7, "\\u0001" }, { "\xffx", 8, "\\ufffdx" }, { "abc", 1, "" },
	};
	for (size_t k = 0; k < sizeof cut / sizeof *cut; k++) {
		char buf[16];
		memset(buf, '#', sizeof buf);
		size_t n = cushim_json_escape_n(buf, cut[k].size, cut[k].in, strlen(cut[k].in));
		ck_assert_msg(strcmp(buf, cut[k].want) == 0 && n == strlen(cut[k].want),
			      "\"%s\" in %zu bytes gives \"%s\" (%zu), wanted \"%s\"", cut[k].in, cut[k].size, buf, n,
			      cut[k].want);
		ck_assert_msg(buf[cut[k].size] == '#', "wrote past %zu bytes", cut[k].size);
	}
	char untouched = '#';
	ck_assert_uint_eq(cushim_json_escape_n(&untouched, 0, "abc", 3), 0);
	ck_assert_int_eq(untouched, '#');
	char buf[8];
	ck_assert_uint_eq(cushim_json_escape(buf, sizeof buf, NULL), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* Every byte value in one string, through stdio and through the buffer:
 * the same text, between quotes. */
START_TEST(stdio_form)
{
	char all[256], *text = NULL;
	size_t len = 0;
	static char want[256 * CUSHIM_JSON_UNIT_MAX + 3];
	for (int c = 1; c < 256; c++)
		all[c - 1] = (char)c;
	all[255] = '\0';
	FILE *f = open_memstream(&text, &len);
	ck_assert(f != NULL);
	cushim_json_print(f, all);
	cushim_json_print(f, NULL);
	fclose(f);
	want[0] = '"';
	size_t n = 1 + cushim_json_escape(want + 1, sizeof want - 3, all);
	strcpy(want + n, "\"\"\"");
	ck_assert_str_eq(text, want);
	ck_assert(strstr(text, "\\u0001\\u0002") && strstr(text, " !\\\"#") && strstr(text, "[\\\\]") &&
		  strstr(text, "~\\u007f\\ufffd\\ufffd"));
	free(text);
}
END_TEST

/* What the escaper writes, the command's reader (src/cli/jsonread.c) reads
 * back as it was: text, controls and quotes whole, a character beyond the
 * BMP from its surrogate pair; \u0000 and a lone surrogate as U+FFFD. */
static char *read_back(const char *json)
{
	struct jv v;
	const char *why = NULL;
	ck_assert_msg(jv_parse(json, strlen(json), &v, &why) == 0, "%s: %s", json, why);
	ck_assert_int_eq(v.type, JV_STR);
	return v.str;
}

START_TEST(read_back_whole)
{
	static const char *const texts[] = { "plain", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e",
					     "tab\there \"quoted\" back\\slash \x01\x1f\x7f", NULL };
	for (int k = 0; texts[k]; k++) {
		char *json = NULL, *back;
		size_t len = 0;
		FILE *f = open_memstream(&json, &len);
		ck_assert(f != NULL);
		cushim_json_print(f, texts[k]);
		fclose(f);
		back = read_back(json);
		ck_assert_str_eq(back, texts[k]);
		free(back);
		free(json);
	}
	char *pair = read_back("\"\\ud834\\udd1e\""), *nul = read_back("\"a\\u0000b\""),
	     *lone = read_back("\"\\udc00x\""), *ff = read_back("\"\\ufffd\"");
	ck_assert_str_eq(pair, "\xf0\x9d\x84\x9e");
	ck_assert_str_eq(nul, "a\xef\xbf\xbd" "b");
	ck_assert_str_eq(lone, "\xef\xbf\xbdx");
	ck_assert_str_eq(ff, "\xef\xbf\xbd");
	free(pair), free(nul), free(lone), free(ff);
	struct jv v;
	const char *why = NULL;
	ck_assert_int_ne(jv_parse("\"\\u12\"", 6, &v, &why), 0); /* too few digits: refused */
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { every_byte_alone, quotes_and_controls, well_formed_utf8_kept,
				       malformed_utf8_replaced, bounded_buffer, stdio_form, read_back_whole, NULL };

	return check_run("json", "strings", tests, NULL, NULL);
}
