/* The table of CUSHIM_* settings (settings.h). */
#include "conf.h"
#include "settings.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the parsers of values ---- */
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

const char *cushim_format_version(int version, char buf[16])
{
	snprintf(buf, 16, "%d.%d", version / 1000, (version % 1000) / 10);
	return buf;
}

/* ---- each setting's parser, into struct cushim_conf ---- */
static int parse_level(const char *v, struct cushim_conf *c)
{
	return cushim_parse_level(v, &c->level);
}

static int parse_log_file(const char *v, struct cushim_conf *c)
{
	return *v ? (c->log_file = v, 0) : -1;
}

static int parse_summary(const char *v, struct cushim_conf *c)
{
	size_t n = strlen(v);
	if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
		c->summary = v[0] - '0', c->summary_file = NULL;
	else if (n > 5 && strcmp(v + n - 5, ".json") == 0)
		c->summary = 2, c->summary_file = v;
	else
		return -1;
	return 0;
}

static int parse_timeline(const char *v, struct cushim_conf *c)
{
	return *v ? (c->timeline = v, 0) : -1;
}

static int parse_record(const char *v, struct cushim_conf *c)
{
	if (!*v || strcmp(v, "0") == 0)
		return -1;
	c->record = 1;
	c->record_file = strcmp(v, "1") == 0 ? NULL : v;
	return 0;
}

static int parse_version(const char *v, struct cushim_conf *c)
{
	return cushim_parse_version(v, &c->driver_version);
}

static int parse_hide(const char *v, struct cushim_conf *c)
{
	char *pat[CUSHIM_MAX_PATTERNS], *storage = NULL;
	int n = cushim_parse_patterns(v, pat, CUSHIM_MAX_PATTERNS, &storage);
	if (n < 0)
		return -1;
	free(c->hide_storage);
	c->hide_storage = storage;
	memcpy(c->patterns, pat, (size_t)n * sizeof *pat);
	c->npatterns = n;
	return 0;
}

static int parse_adapt(const char *v, struct cushim_conf *c)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return -1;
	c->adapt = v[0] - '0';
	return 0;
}

static int parse_cudart(const char *v, struct cushim_conf *c)
{
	if (!*v)
		return -1;
	c->cudart_none = strcmp(v, "none") == 0;
	c->cudart = c->cudart_none ? NULL : v;
	return 0;
}

static int parse_driver(const char *v, struct cushim_conf *c)
{
	return *v ? (c->driver = v, 0) : -1;
}

/* PID-SECONDS: read by src/diag/runmark.c, nothing kept here. */
/* The decimal digits at *p as a number below limit: 0 and *p past them;
 * -1 where there are none or the number is not below limit. */
static int digits_below(const char **p, unsigned long long limit, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (unsigned long long)(*s - '0')) >= limit)
			return -1;
	if (s == *p)
		return -1;
	*p = s, *out = v;
	return 0;
}

int cushim_parse_run(const char *s, unsigned long long *pid, unsigned long long *sec)
{
	if (digits_below(&s, 1ull << CUSHIM_RUN_PID_BITS, pid) != 0 || *pid == 0 || *s++ != '-' ||
	    digits_below(&s, 1ull << CUSHIM_RUN_SEC_BITS, sec) != 0 || *s)
		return -1;
	return 0;
}

static int parse_run(const char *v, struct cushim_conf *c)
{
	unsigned long long pid, sec;
	(void)c;
	return cushim_parse_run(v, &pid, &sec);
}

/* A path: read by log.c when a write fails, nothing kept here. */
static int parse_report(const char *v, struct cushim_conf *c)
{
	(void)c;
	return v[0] == '/' ? 0 : -1;
}

const struct cushim_setting cushim_settings[] = {
	{ "CUSHIM_LOG", "log=LEVEL", "off, warn, info, errors or trace", "warn", NULL,
	  "what is logged: warn (missing exports, problems), info (where entry points come from), errors (every "
	  "failing call), trace (every call)", parse_level, 0 },
	{ "CUSHIM_LOG_FILE", "log-file=PATH", "a file path (%p: the process id)", NULL, "stderr",
	  "log there instead of stderr, append-only, mode 0600", parse_log_file, 1 },
	{ "CUSHIM_SUMMARY", "summary[=FILE]", "0, 1 or a FILE.json", NULL, "no summary",
	  "at exit, a table of calls, errors and times per function, or the same as JSON", parse_summary, 0 },
	{ "CUSHIM_TIMELINE", "timeline=FILE.json", "a FILE.json path (%p: the process id)", NULL, "no timeline",
	  "every call as an event of a Chrome trace-event file (Perfetto, chrome://tracing)", parse_timeline, 1 },
	{ "CUSHIM_RECORD", "record[=FILE]", "1 or a FILE path (%p: the process id)", NULL, "no recording",
	  "keep each thread's latest calls in a ring (a flight recorder) to name the kernels in flight at a sticky "
	  "error; with FILE, write them there at exit, exec and a crash (cushim trace FILE reads it)", parse_record, 1 },
	{ "CUSHIM_DRIVER_VERSION", "driver-version=X.Y", "a CUDA version: X.Y (12.0) or the CUDA_VERSION form (12000)",
	  NULL, "the driver's own version",
	  "look like an older driver: its version, its exports, its cuGetProcAddress answers", parse_version, 0 },
	{ "CUSHIM_HIDE", "hide=PATTERNS", "shell globs separated by commas", NULL, "nothing hidden",
	  "make these exports missing (cuMulticast*,cuMemCreate)", parse_hide, 0 },
	{ "CUSHIM_ADAPT", NULL, "0 or 1", "1", NULL,
	  "serve newer ABI variants with older ones where the arguments mean the same", parse_adapt, 0 },
	{ "CUSHIM_CUDART", NULL, "a runtime library's path, or none", NULL, "the usual runtimes",
	  "the runtime to take entry points from once the driver is initialised; none: the driver's own lookup",
	  parse_cudart, 1 },
	{ "CUSHIM_DRIVER", NULL, "the real libcuda.so.1's path", NULL, "libcuda.so.1 as the loader finds it",
	  "in masquerade mode, the real driver", parse_driver, 1 },
	{ "CUSHIM_RUN", NULL, "PID-SECONDS, set by cushim", NULL, "this process starts a run",
	  "set by cushim for every process a run starts (its first process's pid and start time): only a process "
	  "without it may empty a stale output file; not meant to be set by hand", parse_run, 1 },
	{ "CUSHIM_RUN_REPORT", NULL, "an absolute file path, set by cushim run", NULL, "no report",
	  "set by cushim run for the program it starts: the file where each process notes an output it could not "
	  "write, for cushim run's exit line; not meant to be set by hand", parse_report, 1 },
};
const int cushim_nsettings = (int)(sizeof cushim_settings / sizeof *cushim_settings);

const struct cushim_setting *cushim_setting_named(const char *name, int len)
{
	if (len < 0)
		len = (int)strcspn(name, "=");
	for (int i = 0; i < cushim_nsettings; i++)
		if ((int)strlen(cushim_settings[i].name) == len && strncmp(cushim_settings[i].name, name, (size_t)len) == 0)
			return &cushim_settings[i];
	return NULL;
}

int cushim_harness_variable(const char *name, int len)
{
	if (len < 0)
		len = (int)strcspn(name, "=");
	return (len > 12 && strncmp(name, "CUSHIM_TEST_", 12) == 0) ||
	       (len == 17 && strncmp(name, "CUSHIM_ORACLE_DIR", 17) == 0);
}

int cushim_setting_check(const struct cushim_setting *s, const char *value)
{
	struct cushim_conf scratch = { 0 };
	int rc = s->parse(value, &scratch);
	free(scratch.hide_storage);
	return rc;
}

const char *cushim_setting_unset(const struct cushim_setting *s)
{
	return s->deflt ? s->deflt : s->otherwise;
}

const char *cushim_setting_verdict(const struct cushim_setting *s, const char *value, char *buf, int size)
{
	if (cushim_setting_check(s, value) == 0)
		return NULL;
	if (s->empty_unset && !*value)
		snprintf(buf, (size_t)size, "empty: ignored");
	else if (s->deflt)
		snprintf(buf, (size_t)size, "not %s: %s is used", s->accepted, s->deflt);
	else
		snprintf(buf, (size_t)size, "not %s: %s", s->accepted, s->otherwise);
	return buf;
}
