/* Unit tests of the settings' parsers (src/common/conf.c,
 * src/common/settings.c): each parser on good and bad values, each setting
 * through the table (its check and its verdict), the configuration read from
 * the environment (a bad value: the table's default, or nothing) and the one
 * warning a bad value gets, naming the variable, what it accepts and what
 * applies instead.  The expected values are written here from the settings'
 * contract. */
#include "conf.h"
#include "log.h"
#include "settings.h"
#include <check.h>
#include "../harness/check-run.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cushim_setting *row(const char *name)
{
	const struct cushim_setting *s = cushim_setting_named(name, -1);
	ck_assert_msg(s != NULL, "%s is not in the settings table", name);
	return s;
}

START_TEST(levels)
{
	static const char *const names[] = { "off", "warn", "info", "errors", "trace" };
	static const int want[] = { CUSHIM_LOG_OFF, CUSHIM_LOG_WARN, CUSHIM_LOG_INFO, CUSHIM_LOG_ERRORS,
				    CUSHIM_LOG_TRACE };
	static const char *const bad[] = { "", "WARN", "Trace", "3", "trace ", " off", "debug", "warning" };
	for (int i = 0; i < 5; i++) {
		int level = -7;
		ck_assert_msg(cushim_parse_level(names[i], &level) == 0, "level %s refused", names[i]);
		ck_assert_int_eq(level, want[i]);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int level = -7;
		ck_assert_msg(cushim_parse_level(bad[i], &level) == -1, "level \"%s\" taken", bad[i]);
		ck_assert_msg(level == -7, "a refused level \"%s\" changed the level", bad[i]);
	}
}
END_TEST

START_TEST(versions)
{
	static const struct {
		const char *text;
		int version;
	} good[] = {
		{ "12.4", 12040 }, { "12.0", 12000 }, { "12", 12000 }, { "9.2", 9020 }, { "11.8", 11080 },
		{ "13.1", 13010 }, { "99.9", 99090 }, { "1", 1000 }, { "12040", 12040 }, { "12000", 12000 },
		{ "11080", 11080 }, { "1000", 1000 }, { "99990", 99990 },
	};
	static const char *const bad[] = { "", "abc", "12.", ".5", "12.4.1", "0.5", "0", "100.0", "100", "999",
					   "12345", "12041", "100000", "1234567", "12x", "-12", "+12", "12.123",
					   "12.4 ", " 12.4", "12,4", "1e4" };
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		int v = -7;
		ck_assert_msg(cushim_parse_version(good[i].text, &v) == 0, "version %s refused", good[i].text);
		ck_assert_msg(v == good[i].version, "version %s read as %d, not %d", good[i].text, v, good[i].version);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int v = -7;
		ck_assert_msg(cushim_parse_version(bad[i], &v) == -1, "version \"%s\" taken as %d", bad[i], v);
		ck_assert_msg(v == -7, "a refused version \"%s\" was written", bad[i]);
	}
}
END_TEST

/* The version the other way: X.Y, as messages name it. */
START_TEST(version_text)
{
	char buf[16];
	ck_assert_str_eq(cushim_format_version(12040, buf), "12.4");
	ck_assert_str_eq(cushim_format_version(13000, buf), "13.0");
	ck_assert_str_eq(cushim_format_version(9020, buf), "9.2");
}
END_TEST

START_TEST(glob_lists)
{
	char *pat[CUSHIM_MAX_PATTERNS + 1], *storage = (char *)1;
	char many[CUSHIM_MAX_PATTERNS * 4 + 8];
	static const char *const bad[] = { "", ",", ",a", "a,", "a,,b", "a, ,b", " ", "a,\t" };

	ck_assert_int_eq(cushim_parse_patterns("cuMulticast*,cuMemCreate", pat, CUSHIM_MAX_PATTERNS, &storage), 2);
	ck_assert_str_eq(pat[0], "cuMulticast*");
	ck_assert_str_eq(pat[1], "cuMemCreate");
	ck_assert_ptr_nonnull(storage);
	free(storage);
	ck_assert_int_eq(cushim_parse_patterns("  cuA* ,\tcuB?  ", pat, CUSHIM_MAX_PATTERNS, &storage), 2);
	ck_assert_str_eq(pat[0], "cuA*");
	ck_assert_str_eq(pat[1], "cuB?");
	free(storage);
	ck_assert_int_eq(cushim_parse_patterns("cu[A-C]x", pat, CUSHIM_MAX_PATTERNS, &storage), 1);
	ck_assert_str_eq(pat[0], "cu[A-C]x");
	free(storage);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		storage = (char *)1;
		ck_assert_msg(cushim_parse_patterns(bad[i], pat, CUSHIM_MAX_PATTERNS, &storage) == -1,
			      "pattern list \"%s\" taken", bad[i]);
		ck_assert_msg(storage == NULL, "a refused list \"%s\" kept its copy", bad[i]);
	}
	/* at most CUSHIM_MAX_PATTERNS patterns */
	many[0] = '\0';
	for (int i = 0; i < CUSHIM_MAX_PATTERNS; i++)
		strcat(many, i ? ",c*" : "c*");
	ck_assert_int_eq(cushim_parse_patterns(many, pat, CUSHIM_MAX_PATTERNS, &storage), CUSHIM_MAX_PATTERNS);
	free(storage);
	strcat(many, ",c*");
	ck_assert_int_eq(cushim_parse_patterns(many, pat, CUSHIM_MAX_PATTERNS, &storage), -1);
}
END_TEST

/* Each setting of the table: values it takes, values it refuses, and the
 * verdict on a refused one (what it accepts, what applies instead). */
static const struct {
	const char *name, *value, *verdict; /* verdict NULL: the value is good */
} cases[] = {
	{ "CUSHIM_LOG", "trace", NULL },
	{ "CUSHIM_LOG", "off", NULL },
	{ "CUSHIM_LOG", "loud", "not off, warn, info, errors or trace: warn is used" },
	{ "CUSHIM_LOG", "", "not off, warn, info, errors or trace: warn is used" },
	{ "CUSHIM_LOG_FILE", "/tmp/cushim-%p.log", NULL },
	{ "CUSHIM_LOG_FILE", "", "empty: ignored" },
	{ "CUSHIM_SUMMARY", "0", NULL },
	{ "CUSHIM_SUMMARY", "1", NULL },
	{ "CUSHIM_SUMMARY", "out.json", NULL },
	{ "CUSHIM_SUMMARY", "yes", "not 0, 1 or a FILE.json: no summary" },
	{ "CUSHIM_SUMMARY", ".json", "not 0, 1 or a FILE.json: no summary" },
	{ "CUSHIM_SUMMARY", "out.txt", "not 0, 1 or a FILE.json: no summary" },
	{ "CUSHIM_SUMMARY", "2", "not 0, 1 or a FILE.json: no summary" },
	{ "CUSHIM_TIMELINE", "tl-%p.json", NULL },
	{ "CUSHIM_TIMELINE", "", "empty: ignored" },
	{ "CUSHIM_RECORD", "1", NULL },
	{ "CUSHIM_RECORD", "rec-%p.bin", NULL },
	{ "CUSHIM_RECORD", "0", "not 1 or a FILE path (%p: the process id): no recording" },
	{ "CUSHIM_RECORD", "", "empty: ignored" },
	{ "CUSHIM_DRIVER_VERSION", "12.4", NULL },
	{ "CUSHIM_DRIVER_VERSION", "12040", NULL },
	{ "CUSHIM_DRIVER_VERSION", "twelve",
	  "not a CUDA version: X.Y (12.0) or the CUDA_VERSION form (12000): the driver's own version" },
	{ "CUSHIM_HIDE", "cuMulticast*,cuMemCreate", NULL },
	{ "CUSHIM_HIDE", "cuA,,cuB", "not shell globs separated by commas: nothing hidden" },
	{ "CUSHIM_ADAPT", "0", NULL },
	{ "CUSHIM_ADAPT", "1", NULL },
	{ "CUSHIM_ADAPT", "yes", "not 0 or 1: 1 is used" },
	{ "CUSHIM_ADAPT", "2", "not 0 or 1: 1 is used" },
	{ "CUSHIM_CUDART", "none", NULL },
	{ "CUSHIM_CUDART", "/opt/rt/libcudart.so.12", NULL },
	{ "CUSHIM_CUDART", "", "empty: ignored" },
	{ "CUSHIM_DRIVER", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", NULL },
	{ "CUSHIM_DRIVER", "", "empty: ignored" },
	{ "CUSHIM_RUN", "1234-1700000000", NULL },
	{ "CUSHIM_RUN", "1234-0", NULL },
	{ "CUSHIM_RUN", "0-1700000000", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "1234", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "1234-x", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "1234--5", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "x-5", "not PID-SECONDS, set by cushim: this process starts a run" },
	/* beyond the word the library keeps the run in: refused here as there */
	{ "CUSHIM_RUN", "4194304-1", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "4194303-1099511627775", NULL },
	{ "CUSHIM_RUN", "1234-1099511627776", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", "+1234-5", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN", " 1234-5", "not PID-SECONDS, set by cushim: this process starts a run" },
	{ "CUSHIM_RUN_REPORT", "/tmp/cushim-run.report", NULL },
	{ "CUSHIM_RUN_REPORT", "report", "not an absolute file path, set by cushim run: no report" },
};

START_TEST(each_setting)
{
	char buf[256];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct cushim_setting *s = row(cases[i].name);
		const char *v = cushim_setting_verdict(s, cases[i].value, buf, sizeof buf);
		ck_assert_msg(cushim_setting_check(s, cases[i].value) == (cases[i].verdict ? -1 : 0), "%s=\"%s\": check",
			      cases[i].name, cases[i].value);
		if (!cases[i].verdict)
			ck_assert_msg(v == NULL, "%s=\"%s\" judged bad: %s", cases[i].name, cases[i].value, v);
		else
			ck_assert_msg(v && strcmp(v, cases[i].verdict) == 0, "%s=\"%s\": verdict \"%s\", wanted \"%s\"",
				      cases[i].name, cases[i].value, v ? v : "(none)", cases[i].verdict);
	}
}
END_TEST

/* Every setting of the table has cases above, good and bad. */
START_TEST(every_setting_tested)
{
	for (int k = 0; k < cushim_nsettings; k++) {
		int good = 0, bad = 0;
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			if (strcmp(cases[i].name, cushim_settings[k].name) == 0)
				cases[i].verdict ? bad++ : good++;
		ck_assert_msg(good && bad, "%s has no good or no bad value in the cases", cushim_settings[k].name);
	}
}
END_TEST

START_TEST(names)
{
	ck_assert_ptr_eq(cushim_setting_named("CUSHIM_LOG=info", -1), row("CUSHIM_LOG"));
	ck_assert_ptr_eq(cushim_setting_named("CUSHIM_LOG_FILE", 10), row("CUSHIM_LOG"));
	ck_assert_ptr_null(cushim_setting_named("CUSHIM_LOGS", -1));
	ck_assert_ptr_null(cushim_setting_named("CUSHIM_LO", -1));
	ck_assert_int_eq(cushim_harness_variable("CUSHIM_TEST_REQUIRE_GPU=1", -1), 1);
	ck_assert_int_eq(cushim_harness_variable("CUSHIM_ORACLE_DIR", -1), 1);
	ck_assert_int_eq(cushim_harness_variable("CUSHIM_TEST_", -1), 0);
	ck_assert_int_eq(cushim_harness_variable("CUSHIM_LOG", -1), 0);
	ck_assert_str_eq(cushim_setting_unset(row("CUSHIM_LOG")), "warn");
	ck_assert_str_eq(cushim_setting_unset(row("CUSHIM_SUMMARY")), "no summary");
}
END_TEST

static void clear_env(void)
{
	for (int k = 0; k < cushim_nsettings; k++)
		unsetenv(cushim_settings[k].name);
}

/* What the library runs with when no value, or no good one, is set. */
static void assert_defaults(const struct cushim_conf *c)
{
	ck_assert_int_eq(c->level, CUSHIM_LOG_WARN);
	ck_assert_int_eq(c->adapt, 1);
	ck_assert_int_eq(c->driver_version, 0);
	ck_assert_int_eq(c->npatterns, 0);
	ck_assert_int_eq(c->summary, 0);
	ck_assert_ptr_null(c->log_file);
	ck_assert_ptr_null(c->cudart);
	ck_assert_int_eq(c->cudart_none, 0);
}

/* What the library runs with: the value where it is good, else the default
 * (or nothing), never a half-parsed value. */
START_TEST(from_environment)
{
	struct cushim_conf c;

	clear_env();
	cushim_conf_read(&c);
	assert_defaults(&c);
	cushim_conf_clear(&c);

	setenv("CUSHIM_LOG", "errors", 1), setenv("CUSHIM_ADAPT", "0", 1), setenv("CUSHIM_DRIVER_VERSION", "12.4", 1);
	setenv("CUSHIM_HIDE", "cuMem*, cuInit", 1), setenv("CUSHIM_SUMMARY", "s.json", 1);
	setenv("CUSHIM_CUDART", "none", 1), setenv("CUSHIM_LOG_FILE", "/tmp/l", 1);
	setenv("CUSHIM_TIMELINE", "t.json", 1), setenv("CUSHIM_DRIVER", "/d/libcuda.so.1", 1);
	cushim_conf_read(&c);
	ck_assert_int_eq(c.level, CUSHIM_LOG_ERRORS);
	ck_assert_int_eq(c.adapt, 0);
	ck_assert_int_eq(c.driver_version, 12040);
	ck_assert_int_eq(c.npatterns, 2);
	ck_assert_str_eq(c.patterns[0], "cuMem*");
	ck_assert_str_eq(c.patterns[1], "cuInit");
	ck_assert_int_eq(c.summary, 2);
	ck_assert_str_eq(c.summary_file, "s.json");
	ck_assert_int_eq(c.cudart_none, 1);
	ck_assert_ptr_null(c.cudart);
	ck_assert_str_eq(c.log_file, "/tmp/l");
	ck_assert_str_eq(c.timeline, "t.json");
	ck_assert_str_eq(c.driver, "/d/libcuda.so.1");
	cushim_conf_clear(&c);

	/* bad values: the defaults (warn, adapt 1), or nothing */
	setenv("CUSHIM_LOG", "loud", 1), setenv("CUSHIM_ADAPT", "yes", 1), setenv("CUSHIM_DRIVER_VERSION", "12.4.1", 1);
	setenv("CUSHIM_HIDE", "cuA,,cuB", 1), setenv("CUSHIM_SUMMARY", "maybe", 1);
	setenv("CUSHIM_CUDART", "", 1), setenv("CUSHIM_LOG_FILE", "", 1);
	cushim_conf_read(&c);
	assert_defaults(&c);
	ck_assert_ptr_null(cushim_setting_env("CUSHIM_CUDART"));
	ck_assert_str_eq(cushim_setting_env("CUSHIM_ADAPT"), "yes");
	cushim_conf_clear(&c);
}
END_TEST

/* A bad value is said once, naming the variable, the value, what it
 * accepts and what applies; a good one is not. */
START_TEST(warnings)
{
	char path[] = "/tmp/cushim-unit-settings.XXXXXX", text[4096];
	int fd = mkstemp(path);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	clear_env();
	setenv("CUSHIM_LOG_FILE", path, 1);
	setenv("CUSHIM_LOG", "loud", 1);
	setenv("CUSHIM_ADAPT", "maybe", 1);
	setenv("CUSHIM_DRIVER_VERSION", "12.4", 1);
	setenv("CUSHIM_TIMELINE", "", 1);
	cushim_conf_load();
	n = read(fd, text, sizeof text - 1);
	close(fd);
	unlink(path);
	ck_assert_int_ge(n, 0);
	text[n] = '\0';
	ck_assert_str_eq(text, "cushim: CUSHIM_LOG=\"loud\" is not off, warn, info, errors or trace: warn is used\n"
			       "cushim: CUSHIM_ADAPT=\"maybe\" is not 0 or 1: 1 is used\n");
	ck_assert_int_eq(cushim_conf.level, CUSHIM_LOG_WARN);
	ck_assert_int_eq(cushim_conf.driver_version, 12040);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { levels, versions, version_text, glob_lists, each_setting, every_setting_tested, names, from_environment, warnings, NULL };

	return check_run("settings", "parsers", tests, NULL, NULL);
}
