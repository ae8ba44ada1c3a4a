/* JSON strings (jsonstr.c): one way of writing any bytes as a JSON string,
 * for every file and output cushim writes (the timeline, the summary, the
 * command's --json).
 *
 * The result is valid JSON whatever the bytes are:
 *   - '"' and '\' are escaped with a backslash;
 *   - the control bytes 0x00 to 0x1f and 0x7f are \u00xx (lowercase hex);
 *   - a well-formed UTF-8 sequence (no overlong form, no surrogate, nothing
 *     above U+10FFFF) is kept as it is;
 *   - every other byte, one at a time, is \ufffd (U+FFFD, the replacement
 *     character): a byte that begins no sequence, and the first byte of a
 *     sequence that is cut or malformed (the bytes after it are judged
 *     afresh).
 * So a name that is not UTF-8 (a file name, a thread's name) still gives a
 * string every JSON reader takes, though not its bytes back. */
#ifndef CUSHIM_JSONSTR_H
#define CUSHIM_JSONSTR_H
#include "hidden.h"
#include <stddef.h>
#include <stdio.h>

/* The longest text one byte sequence becomes: \ufffd, \u00xx. */
#define CUSHIM_JSON_UNIT_MAX 6

/* The contents (no quotes) of the n bytes at s, into buf: as many whole
 * escapes and whole UTF-8 sequences as fit before a NUL, which ends buf
 * when size > 0 (never a piece of either, so a cut string is still
 * valid).  The bytes written before the NUL.  No stdio, no malloc, no
 * lock: safe in a signal handler and on the call path. */
size_t cushim_json_escape_n(char *buf, size_t size, const char *s, size_t n) CUSHIM_HIDDEN;
/* The same for the C string s (NULL: ""). */
size_t cushim_json_escape(char *buf, size_t size, const char *s) CUSHIM_HIDDEN;
/* s between quotes, whole, on f (NULL: ""). */
void cushim_json_print(FILE *f, const char *s) CUSHIM_HIDDEN;

#endif
