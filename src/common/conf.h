/* The configuration (conf.c): every CUSHIM_* variable, read once into
 * struct cushim_conf through the settings table (settings.c). */
#ifndef CUSHIM_CONF_H
#define CUSHIM_CONF_H
#include "hidden.h"

enum cushim_level { CUSHIM_LOG_OFF, CUSHIM_LOG_WARN, CUSHIM_LOG_INFO, CUSHIM_LOG_ERRORS, CUSHIM_LOG_TRACE };
#define CUSHIM_MAX_PATTERNS 64
struct cushim_conf {
	int level;                 /* CUSHIM_LOG */
	const char *log_file;      /* CUSHIM_LOG_FILE */
	const char *cudart;        /* CUSHIM_CUDART, NULL for none */
	int cudart_none;           /* CUSHIM_CUDART=none: the driver's own lookup */
	int driver_version;        /* CUSHIM_DRIVER_VERSION, 0 when unset */
	int npatterns;             /* CUSHIM_HIDE */
	char *patterns[CUSHIM_MAX_PATTERNS];
	char *hide_storage;        /* what patterns point into */
	int summary;               /* CUSHIM_SUMMARY: 0, 1 (table) or 2 (JSON file) */
	const char *summary_file;
	const char *driver;        /* CUSHIM_DRIVER: the real driver, for masquerade */
	int adapt;                 /* CUSHIM_ADAPT: 1 (default) or 0 */
	const char *timeline;      /* CUSHIM_TIMELINE: the trace-event JSON file */
	int record;                /* CUSHIM_RECORD: the flight recorder */
	const char *record_file;   /* its file, NULL for none */
};
extern struct cushim_conf cushim_conf CUSHIM_HIDDEN;
/* c from the environment (a bad or unset value: the table's default), quietly;
 * cushim_conf_clear frees what it holds. */
void cushim_conf_read(struct cushim_conf *c) CUSHIM_HIDDEN;
void cushim_conf_clear(struct cushim_conf *c) CUSHIM_HIDDEN;
/* A setting's value in the environment, NULL when unset (or empty where that means unset). */
const char *cushim_setting_env(const char *name) CUSHIM_HIDDEN;

/* A test harness's variable (CUSHIM_TEST_*: no setting, never documented
 * for users), NULL when unset or in secure execution. */
const char *cushim_test_env(const char *name) CUSHIM_HIDDEN;

/* Whether CUSHIM_HIDE hides the export name. */
int cushim_hidden_name(const char *name) CUSHIM_HIDDEN;

#endif
