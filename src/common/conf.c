/* Every CUSHIM_* variable (the table of settings.c), read once with
 * secure_getenv during the bootstrap into struct cushim_conf; the table's
 * parsers (settings.c) take each value, and a bad value or an unset one gets
 * the table's default.  Saying what was bad is the log's (log.c). */
#include "conf.h"
#include "settings.h"
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cushim_conf cushim_conf;

int cushim_hidden_name(const char *name)
{
	for (int i = 0; i < cushim_conf.npatterns; i++)
		if (fnmatch(cushim_conf.patterns[i], name, 0) == 0)
			return 1;
	return 0;
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

const char *cushim_test_env(const char *name)
{
	return cushim_harness_variable(name, -1) ? secure_getenv(name) : NULL;
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
