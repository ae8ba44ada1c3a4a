/* Every CUSHIM_* variable (the table of settings.c), read once with
 * secure_getenv during the bootstrap, and the parsers of the values.  A bad
 * value gets one warning naming the variable, what it accepts and what
 * applies instead: the host program never stops because of cushim's
 * settings. */
#include "cushim-internal.h"
#include "settings.h"
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cushim_conf cushim_conf;

static const char *const level_names[] = { "off", "warn", "info", "errors", "trace" };

int cushim_parse_level(const char *s, int *level)
{
	for (int i = 0; i < (int)(sizeof level_names / sizeof *level_names); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*level = i;
			return 0;
		}
	return -1;
}

/* "12.0", "12.1", "12" (12.0) and "12010" (CUDA_VERSION form) -> 12010. */
int cushim_parse_version(const char *s, int *version)
{
	unsigned long major = 0, minor = 0;
	const char *p = s;
	int digits = 0;

	while (*p >= '0' && *p <= '9' && digits < 6)
		major = major * 10 + (unsigned long)(*p++ - '0'), digits++;
	if (digits == 0)
		return -1;
	if (*p == '.') {
		int mdigits = 0;
		p++;
		while (*p >= '0' && *p <= '9' && mdigits < 2)
			minor = minor * 10 + (unsigned long)(*p++ - '0'), mdigits++;
		if (mdigits == 0 || *p != '\0' || major == 0 || major > 99)
			return -1;
		*version = (int)(major * 1000 + minor * 10);
		return 0;
	}
	if (*p != '\0')
		return -1;
	if (major >= 1 && major <= 99) {
		*version = (int)(major * 1000);
		return 0;
	}
	if (major >= 1000 && major <= 99999 && major % 10 == 0) {
		*version = (int)major;
		return 0;
	}
	return -1;
}

/* "cuMulticast*,cuMemCreate" -> patterns; storage receives one malloc'd copy.
 * Returns the count, or -1 for an empty list, an empty pattern or too many. */
int cushim_parse_patterns(const char *s, char **out, int max, char **storage)
{
	char *copy = strdup(s), *save = NULL;
	int n = 0;

	*storage = copy;
	if (!copy)
		return -1;
	if (*copy == '\0' || copy[strlen(copy) - 1] == ',' || *copy == ',' || strstr(copy, ",,"))
		goto bad;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		char *end = tok + strlen(tok);
		while (end > tok && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*tok == '\0' || n == max)
			goto bad;
		out[n++] = tok;
	}
	return n;
bad:
	free(copy);
	*storage = NULL;
	return -1;
}

int cushim_hidden_name(const char *name)
{
	for (int i = 0; i < cushim_conf.npatterns; i++)
		if (fnmatch(cushim_conf.patterns[i], name, 0) == 0)
			return 1;
	return 0;
}

const char *cushim_format_version(int version, char buf[16])
{
	snprintf(buf, 16, "%d.%d", version / 1000, (version % 1000) / 10);
	return buf;
}

/* The value of s in the environment, or NULL when it is unset or empty
 * where that means unset. */
static const char *setting_value(const struct cushim_setting *s)
{
	const char *v = secure_getenv(s->name);
	return v && !(s->empty_unset && !*v) ? v : NULL;
}

const char *cushim_setting_env(const char *name)
{
	const struct cushim_setting *s = cushim_setting_named(name, -1);
	return s ? setting_value(s) : NULL;
}

void cushim_conf_read(struct cushim_conf *c)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < cushim_nsettings; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		const char *v = setting_value(s);
		if ((!v || s->parse(v, c) != 0) && s->deflt)
			s->parse(s->deflt, c);
	}
}

void cushim_conf_clear(struct cushim_conf *c)
{
	free(c->hide_storage);
	c->hide_storage = NULL;
	c->npatterns = 0;
}

/* Each bad value said once, with what it accepts and what applies. */
static void warn_bad_settings(void)
{
	char why[256];
	for (int i = 0; i < cushim_nsettings; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		const char *v = setting_value(s);
		if (v && cushim_setting_verdict(s, v, why, sizeof why))
			cushim_log(CUSHIM_LOG_WARN, "%s=\"%s\" is %s", s->name, v, why);
	}
}

void cushim_conf_load(void)
{
	cushim_conf_clear(&cushim_conf);
	cushim_conf_read(&cushim_conf);
	cushim_log_open();
	warn_bad_settings();
}
