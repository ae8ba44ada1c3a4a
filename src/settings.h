/* The one table of cushim's settings: every CUSHIM_* variable, its accepted
 * values, what applies when it is unset or bad, and one line of
 * documentation.  The library reads it (conf.c), cushim run sets and checks
 * it, cushim doctor judges the environment with it and lists it, and the
 * docs test holds the man page to it. */
#ifndef CUSHIM_SETTINGS_H
#define CUSHIM_SETTINGS_H

struct cushim_setting {
	const char *name;     /* "CUSHIM_LOG" */
	const char *accepted; /* "off, warn, info, errors or trace" */
	const char *unset;    /* what applies when unset: "warn" */
	const char *bad;      /* what a bad value gets: "warn is used" */
	const char *doc;      /* one line */
	int (*check)(const char *value); /* 0 when the value is good */
	int empty_unset;      /* an empty value counts as unset (paths) */
};
extern const struct cushim_setting cushim_settings[] __attribute__((visibility("hidden")));
extern const int cushim_nsettings __attribute__((visibility("hidden")));

/* The row of a variable ("CUSHIM_LOG", or "CUSHIM_LOG=info" up to the '='),
 * NULL when it is not a setting.  Test-harness variables (CUSHIM_TEST_*,
 * CUSHIM_ORACLE_DIR) are no settings but are no typos either. */
const struct cushim_setting *cushim_setting_named(const char *name, int len) __attribute__((visibility("hidden")));
int cushim_harness_variable(const char *name, int len) __attribute__((visibility("hidden")));

/* NULL when value is good for s, else "not X: Y is used" in buf (an empty
 * value of a path: "empty: ignored"). */
const char *cushim_setting_verdict(const struct cushim_setting *s, const char *value, char *buf, int size)
	__attribute__((visibility("hidden")));

/* CUSHIM_SUMMARY: 0, 1 or a FILE.json; returns 0, 1 or 2 (a file), -1 if bad. */
int cushim_parse_summary(const char *s) __attribute__((visibility("hidden")));
/* CUSHIM_ADAPT: 0 or 1, -1 if bad. */
int cushim_parse_flag(const char *s) __attribute__((visibility("hidden")));
#endif
