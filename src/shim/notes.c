/* The messages of a bootstrap or an adoption, kept until it is known whether
 * the thread's findings are published (notes.h).  Filtered by CUSHIM_LOG's
 * level when made; said through cushim_log, one line each. */
#include "conf.h"
#include "log.h"
#include "notes.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread struct cushim_notes *kept __attribute__((tls_model("initial-exec")));

void cushim_notes_keep(struct cushim_notes *n)
{
	kept = n;
}

void cushim_note(int level, const char *fmt, ...)
{
	struct cushim_notes *n = kept;
	char text[1024];
	va_list ap;
	size_t len;

	if (level > cushim_conf.level)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (!n) {
		cushim_log(level, "%s", text);
		return;
	}
	len = strlen(text) + 1;
	if (n->len + 1 + len > sizeof n->text)
		return; /* past 32 KiB: a bootstrap says a few dozen lines */
	n->text[n->len] = (char)level;
	memcpy(n->text + n->len + 1, text, len);
	n->len += 1 + len;
}

void cushim_notes_say(const struct cushim_notes *n)
{
	for (size_t o = 0; o < n->len; o += 2 + strlen(n->text + o + 1))
		cushim_log(n->text[o], "%s", n->text + o + 1);
}
