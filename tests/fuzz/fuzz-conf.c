/* libFuzzer targets for the CUSHIM_* value parsers (src/common/settings.c, src/common/log.c),
 * one per -D: FUZZ_LEVEL (CUSHIM_LOG), FUZZ_VERSION (CUSHIM_DRIVER_VERSION),
 * FUZZ_PATTERNS (CUSHIM_HIDE: the list and the globs it is matched with),
 * FUZZ_PATH (CUSHIM_LOG_FILE / CUSHIM_SUMMARY's %p expansion).  Besides the
 * sanitizers' checks, each asserts what its parser promises. */
#include "conf.h"
#include "settings.h"
#include "log.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an environment variable: a C string, cut at the first NUL */
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	cushim_conf.level = CUSHIM_LOG_OFF; /* cushim_log stays quiet */
#if defined(FUZZ_LEVEL)
	int level = -1;
	if (cushim_parse_level(s, &level) == 0)
		REQUIRE(level >= CUSHIM_LOG_OFF && level <= CUSHIM_LOG_TRACE);
	else
		REQUIRE(level == -1);
#elif defined(FUZZ_VERSION)
	int v = -1, again = -1;
	char text[16];
	if (cushim_parse_version(s, &v) == 0) {
		REQUIRE(v >= 1000 && v <= 99999);
		/* what cushim prints reads back as the same version */
		REQUIRE(cushim_parse_version(cushim_format_version(v, text), &again) == 0 && again == v);
	}
#elif defined(FUZZ_PATTERNS)
	char *pats[CUSHIM_MAX_PATTERNS], *storage = NULL;
	int n = cushim_parse_patterns(s, pats, CUSHIM_MAX_PATTERNS, &storage);
	REQUIRE(n >= -1 && n <= CUSHIM_MAX_PATTERNS);
	REQUIRE((n < 0) == (storage == NULL));
	for (int i = 0; i < n; i++) {
		size_t len = strlen(pats[i]);
		REQUIRE(len > 0 && !strchr(pats[i], ','));
		REQUIRE(pats[i][0] != ' ' && pats[i][len - 1] != ' ');
		cushim_conf.patterns[i] = pats[i];
	}
	cushim_conf.npatterns = n > 0 ? n : 0;
	static const char *const names[] = { "cuInit", "cuMemCreate", "cuMulticastCreate", "cuCtxCreate_v4", "" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		(void)cushim_hidden_name(names[i]);
	(void)cushim_hidden_name(s);
	cushim_conf.npatterns = 0;
	free(storage);
#elif defined(FUZZ_PATH)
	/* the expansion, written again here: %p -> the pid, %% -> %, the rest kept */
	char out[64], want[4096 * 8 + 64], pid[24];
	size_t w = 0;
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	for (const char *p = s; *p; p++) {
		if (p[0] == '%' && p[1] == 'p')
			w += (size_t)sprintf(want + w, "%s", pid), p++;
		else if (p[0] == '%' && p[1] == '%')
			want[w++] = '%', p++;
		else
			want[w++] = *p;
		if (w > sizeof want - 32)
			break;
	}
	want[w] = '\0';
	memset(out, 'x', sizeof out);
	if (cushim_expand_path(s, out, sizeof out) == 0)
		REQUIRE(strcmp(out, want) == 0);
	else
		REQUIRE(w >= sizeof out); /* refused only when it does not fit */
#else
#error "build with -DFUZZ_LEVEL, -DFUZZ_VERSION, -DFUZZ_PATTERNS or -DFUZZ_PATH"
#endif
	free(s);
	return 0;
}
