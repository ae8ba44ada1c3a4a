/* The table of CUSHIM_* settings (settings.h). */
#include "cushim-internal.h"
#include "settings.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_level(const char *v)
{
	int x;
	return cushim_parse_level(v, &x);
}

static int check_version(const char *v)
{
	int x;
	return cushim_parse_version(v, &x);
}

static int check_patterns(const char *v)
{
	char *pat[CUSHIM_MAX_PATTERNS], *storage = NULL;
	int n = cushim_parse_patterns(v, pat, CUSHIM_MAX_PATTERNS, &storage);
	free(storage);
	return n < 0 ? -1 : 0;
}

static int check_summary(const char *v)
{
	return cushim_parse_summary(v) < 0 ? -1 : 0;
}

static int check_flag(const char *v)
{
	return cushim_parse_flag(v) < 0 ? -1 : 0;
}

static int check_path(const char *v)
{
	return *v ? 0 : -1;
}

int cushim_parse_summary(const char *s)
{
	size_t n = strlen(s);
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0)
		return s[0] - '0';
	return n > 5 && strcmp(s + n - 5, ".json") == 0 ? 2 : -1;
}

int cushim_parse_flag(const char *s)
{
	return strcmp(s, "0") == 0 ? 0 : strcmp(s, "1") == 0 ? 1 : -1;
}

const struct cushim_setting cushim_settings[] = {
	{ "CUSHIM_LOG", "off, warn, info, errors or trace", "warn", "warn is used",
	  "what is logged: warn (missing exports, problems), info (where entry points come from), errors (every "
	  "failing call), trace (every call)", check_level, 0 },
	{ "CUSHIM_LOG_FILE", "a file path (%p: the process id)", "stderr", "stderr is used",
	  "log there instead of stderr, append-only, mode 0600", check_path, 1 },
	{ "CUSHIM_SUMMARY", "0, 1 or a FILE.json", "no summary", "no summary",
	  "at exit, a table of calls, errors and times per function, or the same as JSON", check_summary, 0 },
	{ "CUSHIM_TIMELINE", "a FILE.json path (%p: the process id)", "no timeline", "no timeline",
	  "every call as an event of a Chrome trace-event file (Perfetto, chrome://tracing)", check_path, 1 },
	{ "CUSHIM_DRIVER_VERSION", "a CUDA version: X.Y (12.0) or the CUDA_VERSION form (12000)",
	  "the driver's own version", "not emulating",
	  "look like an older driver: its version, its exports, its cuGetProcAddress answers", check_version, 0 },
	{ "CUSHIM_HIDE", "shell globs separated by commas", "nothing hidden", "hiding nothing",
	  "make these exports missing (cuMulticast*,cuMemCreate)", check_patterns, 0 },
	{ "CUSHIM_ADAPT", "0 or 1", "1", "1 is used",
	  "serve newer ABI variants with older ones where the arguments mean the same", check_flag, 0 },
	{ "CUSHIM_CUDART", "a runtime library's path, or none", "the usual runtimes", "the usual runtimes",
	  "the runtime to take entry points from once the driver is initialised; none: the driver's own lookup",
	  check_path, 1 },
	{ "CUSHIM_DRIVER", "the real libcuda.so.1's path", "libcuda.so.1 as the loader finds it",
	  "the usual places are searched", "in masquerade mode, the real driver", check_path, 1 },
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

const char *cushim_setting_verdict(const struct cushim_setting *s, const char *value, char *buf, int size)
{
	if (s->check(value) == 0)
		return NULL;
	if (s->empty_unset && !*value)
		snprintf(buf, (size_t)size, "empty: ignored");
	else
		snprintf(buf, (size_t)size, "not %s: %s", s->accepted, s->bad);
	return buf;
}
