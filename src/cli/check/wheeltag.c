/* See wheeltag.h.  A wheel's file name is NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl
 * (PEP 427); its version's local part follows a '+' (PEP 440).  The marks
 * of a CUDA major release are NVIDIA's and the projects' own: a name part
 * "cu12" or "cuda12" (cuda12x), a local version "cu124" (12.4), and
 * requirements on NVIDIA's wheels, nvidia-<component>-cu12.  A variant
 * wheel (PEP 817, wheel variants) adds a label to its file name,
 * NAME-VERSION-PY-ABI-PLATFORM-LABEL.whl, and lists its properties in
 * .dist-info/variant.json, "variants": {LABEL: {"nvidia":
 * {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real", ...]}}}
 * (the properties of wheelnext's nvidia-variant-provider). */
#include "config.h"
#include "wheeltag.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* "cu12", "cuda12", "cuda12x": 12; else 0. */
static int major_word(const char *w, size_t n)
{
	size_t k = n >= 4 && strncmp(w, "cuda", 4) == 0 ? 4 : n >= 2 && strncmp(w, "cu", 2) == 0 ? 2 : 0;
	if (!k || n < k + 2 || !isdigit((unsigned char)w[k]) || !isdigit((unsigned char)w[k + 1]))
		return 0;
	if (n > k + 2 && !(n == k + 3 && w[k + 2] == 'x'))
		return 0;
	int major = (w[k] - '0') * 10 + (w[k + 1] - '0');
	return major >= 10 && major < 100 ? major : 0;
}

/* "cu124" -> 12040, "cu118" -> 11080, "cu13" -> 13000; else 0. */
static int local_word(const char *w, size_t n)
{
	if (n < 4 || strncmp(w, "cu", 2) != 0)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!isdigit((unsigned char)w[i]))
			return 0;
	if (n == 4)
		return ((w[2] - '0') * 10 + (w[3] - '0')) * 1000;
	if (n == 5)
		return ((w[2] - '0') * 10 + (w[3] - '0')) * 1000 + (w[4] - '0') * 10;
	return 0;
}

void wheel_tag_name(const char *path, struct wheel_tag *t)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t name = strcspn(base, "-"), version = base[name] ? strcspn(base + name + 1, "-") : 0;
	snprintf(t->dist, sizeof t->dist, "%.*s", (int)(name + (version ? version + 1 : 0)), base);
	for (size_t i = 0; i < name;) {
		size_t n = strcspn(base + i, "_.-");
		if (n > name - i)
			n = name - i;
		int m = major_word(base + i, n);
		if (m && !t->name_major) {
			t->name_major = m;
			snprintf(t->name_word, sizeof t->name_word, "%.*s", (int)n, base + i);
		}
		i += n + 1;
	}
	const char *plus = version ? memchr(base + name + 1, '+', version) : NULL;
	if (plus) {
		size_t n = (size_t)(base + name + 1 + version - plus - 1);
		for (size_t i = 0; i < n;) { /* "+cu124", "+cu124.post1" */
			size_t k = strcspn(plus + 1 + i, ".");
			if (k > n - i)
				k = n - i;
			if (!t->local_version && (t->local_version = local_word(plus + 1 + i, k)))
				snprintf(t->local_word, sizeof t->local_word, "+%.*s", (int)k, plus + 1 + i);
			i += k + 1;
		}
	}
}

/* "Requires-Dist: nvidia-cuda-runtime-cu12==12.4.127; ..." */
static void requirement(const char *line, size_t n, struct wheel_tag *t)
{
	const char *key = "Requires-Dist:";
	size_t klen = strlen(key), i = klen;
	if (n <= klen || strncasecmp(line, key, klen) != 0)
		return;
	while (i < n && line[i] == ' ')
		i++;
	size_t len = 0;
	while (i + len < n && (isalnum((unsigned char)line[i + len]) || strchr("-_.", line[i + len])))
		len++;
	if (len < 8 || strncasecmp(line + i, "nvidia", 6) != 0 || t->requires_major)
		return;
	const char *dash = NULL;
	for (size_t k = 0; k < len; k++)
		if (line[i + k] == '-' || line[i + k] == '_')
			dash = line + i + k;
	int m = dash ? major_word(dash + 1, (size_t)(line + i + len - dash - 1)) : 0;
	if (m) {
		t->requires_major = m;
		snprintf(t->requires_word, sizeof t->requires_word, "%.*s", (int)len, line + i);
	}
}

void wheel_tag_metadata(const char *text, size_t n, struct wheel_tag *t)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - text - i) : n - i;
		if (len == 0 || (len == 1 && text[i] == '\r'))
			break; /* the headers end; the description follows */
		requirement(text + i, len, t);
		i += len + 1;
	}
}

int wheel_tag_major(const struct wheel_tag *t, char *why, size_t size)
{
	if (t->name_major) {
		snprintf(why, size, "its wheel's name says %s (%s)", t->name_word, t->dist);
		return t->name_major;
	}
	if (t->local_version) {
		snprintf(why, size, "its wheel's version says %s (%s)", t->local_word, t->dist);
		return t->local_version / 1000;
	}
	if (t->requires_major) {
		snprintf(why, size, "its wheel (%s) requires %s", t->dist, t->requires_word);
		return t->requires_major;
	}
	return 0;
}

/* The quoted strings of the array after "key" in json[0..n), joined by
 * commas into out: how many. */
static int string_array(const char *json, size_t n, const char *key, char *out, size_t size)
{
	const char *end = json + n, *at = memmem(json, n, key, strlen(key));
	size_t o = 0;
	int count = 0;
	out[0] = '\0';
	if (!at || !(at = memchr(at, '[', (size_t)(end - at))))
		return 0;
	for (at++; at < end && *at != ']'; at++) {
		if (*at != '"')
			continue;
		const char *close = memchr(at + 1, '"', (size_t)(end - at - 1));
		if (!close)
			break;
		size_t len = (size_t)(close - at - 1);
		if (o + len + 2 < size) {
			o += (size_t)snprintf(out + o, size - o, "%s%.*s", o ? "," : "", (int)len, at + 1);
			count++;
		}
		at = close;
	}
	return count;
}

void wheel_tag_variant(const char *json, size_t n, const char *path, struct wheel_tag *t)
{
	char lower[32];
	int major, minor = 0;
	const char *base = strrchr(path, '/'), *dot;
	base = base ? base + 1 : path;
	dot = strstr(base, ".whl");
	int parts = 0;
	for (const char *p = base; dot && p < dot; p++)
		parts += *p == '-';
	const char *last = dot ? base : NULL;
	for (const char *p = base; dot && p < dot; p++)
		if (*p == '-')
			last = p + 1;
	if (parts >= 5 && last) /* NAME-VERSION-PY-ABI-PLATFORM-LABEL, or with a build tag before PY */
		snprintf(t->variant_label, sizeof t->variant_label, "%.*s", (int)(dot - last), last);
	if (string_array(json, n, "\"cuda_version_lower_bound\"", lower, sizeof lower) &&
	    sscanf(lower, "%d.%d", &major, &minor) >= 1 && major > 0 && major < 100 && minor >= 0 && minor <= 9)
		t->variant_lower = major * 1000 + minor * 10;
	string_array(json, n, "\"sm_arch\"", t->variant_sm, sizeof t->variant_sm);
}
