/* The one table of cushim's settings: every CUSHIM_* variable, its parser,
 * its accepted values, what applies when it is unset or bad, the cushim run
 * option that sets it, and one line of documentation.  The library reads it
 * (conf.c), cushim run builds its options from it and checks their values,
 * cushim doctor judges the environment with it, --help lists it, and the docs
 * test holds the man page to it. */
#ifndef CUSHIM_SETTINGS_H
#define CUSHIM_SETTINGS_H

struct cushim_conf;
struct cushim_setting {
	const char *name;      /* "CUSHIM_LOG" */
	const char *option;    /* the cushim run option setting it, "log=LEVEL" or "summary[=FILE]"; or NULL */
	const char *accepted;  /* "off, warn, info, errors or trace" */
	const char *deflt;     /* the value parsed when it is unset or bad ("warn"), or NULL */
	const char *otherwise; /* with no default value, what happens when unset or bad: "no summary" */
	const char *doc;       /* one line */
	/* Sets the variable's fields of c from a value: 0, or -1 (c untouched) when the value is bad. */
	int (*parse)(const char *value, struct cushim_conf *c);
	int empty_unset;       /* an empty value counts as unset (paths) */
};
extern const struct cushim_setting cushim_settings[] __attribute__((visibility("hidden")));
extern const int cushim_nsettings __attribute__((visibility("hidden")));

/* The row of a variable ("CUSHIM_LOG", or "CUSHIM_LOG=info" up to the '='),
 * NULL when it is not a setting.  Test-harness variables (CUSHIM_TEST_*,
 * CUSHIM_ORACLE_DIR) are no settings but are no typos either. */
const struct cushim_setting *cushim_setting_named(const char *name, int len) __attribute__((visibility("hidden")));
int cushim_harness_variable(const char *name, int len) __attribute__((visibility("hidden")));

/* 0 when value is good for s. */
int cushim_setting_check(const struct cushim_setting *s, const char *value) __attribute__((visibility("hidden")));
/* What applies when s is unset: its default value or what happens. */
const char *cushim_setting_unset(const struct cushim_setting *s) __attribute__((visibility("hidden")));
/* NULL when value is good for s, else "not X: Y is used" in buf (an empty
 * value of a path: "empty: ignored"). */
const char *cushim_setting_verdict(const struct cushim_setting *s, const char *value, char *buf, int size)
	__attribute__((visibility("hidden")));

/* The parsers of values (0, or -1 when bad), and the version's printing. */
int cushim_parse_level(const char *s, int *level) __attribute__((visibility("hidden")));
int cushim_parse_version(const char *s, int *version) __attribute__((visibility("hidden")));
int cushim_parse_patterns(const char *s, char **out, int max, char **storage) __attribute__((visibility("hidden")));
const char *cushim_format_version(int version, char buf[16]) __attribute__((visibility("hidden")));
/* CUSHIM_RUN's PID-SECONDS: 0 with *pid below 2^CUSHIM_RUN_PID_BITS (not 0)
 * and *sec below 2^CUSHIM_RUN_SEC_BITS, decimal digits alone; -1 else.  The
 * bounds are those of the word the library keeps the run in (runmark.c). */
#define CUSHIM_RUN_PID_BITS 22 /* pids are below 4194304, Linux's highest pid_max */
#define CUSHIM_RUN_SEC_BITS 40
int cushim_parse_run(const char *s, unsigned long long *pid, unsigned long long *sec)
	__attribute__((visibility("hidden")));
#endif
