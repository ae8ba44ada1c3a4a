/* libFuzzer target for what `cushim timeline` and `cushim summary` read:
 * the events of a CUSHIM_TIMELINE file, whole, whoever wrote into it
 * (src/cli/tlscan.c), and a CUSHIM_SUMMARY file's JSON (src/cli/jsonread.c).
 * Every event handed over lies inside the input and is one object; a file
 * the scanner refuses, and JSON the reader refuses, say why. */
#include "config.h"
#include "cli.h"
#include "jsonread.h"
#include "tlscan.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct span {
	const char *begin, *end;
	size_t n;
};

static void event(const char *p, size_t n, void *arg)
{
	struct span *s = arg;
	if (p < s->begin || p + n > s->end || n < 2 || p[0] != '{' || p[n - 1] != '}')
		abort();
	s->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tl_scan s;
	const char *text = (const char *)data, *why = NULL;
	struct span sp = { text, text + size, 0 };
	struct jv v;

	if (tl_scan(text, size, &s, event, &sp, &why) != 0) {
		if (!why || !*why)
			abort();
	} else if (sp.n != s.events || s.keep > size || s.tail > size) {
		abort();
	}
	why = NULL;
	if (jv_parse(text, size, &v, &why) != 0 && (!why || !*why))
		abort();
	jv_free(&v);
	return 0;
}
