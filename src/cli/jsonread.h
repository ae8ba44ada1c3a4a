/* A small JSON reader (jsonread.c): a document as a tree of values, for
 * the files cushim's library writes (CUSHIM_SUMMARY's). */
#ifndef CUSHIM_JSONREAD_H
#define CUSHIM_JSONREAD_H
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };
struct jv {
	enum jv_type type;
	double num;        /* JV_NUM, JV_BOOL */
	char *str;         /* JV_STR */
	size_t n;          /* JV_ARR, JV_OBJ: items */
	struct jv *items;
	char **keys;       /* JV_OBJ */
};
/* text[0..n) as one value: 0, or -1 with where it went wrong in *why
 * (static text). */
int jv_parse(const char *text, size_t n, struct jv *out, const char **why);
void jv_free(struct jv *v);
/* The member key of an object, NULL when v is no object or lacks it. */
const struct jv *jv_get(const struct jv *v, const char *key);
/* A member's number (def when it is missing or not a number). */
double jv_num(const struct jv *v, const char *key, double def);
#endif
