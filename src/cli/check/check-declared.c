/* cushim check: where a wheel says otherwise than its files.  A wheel
 * declares the CUDA it is for in its name (cupy_cuda12x), its version's
 * local part (+cu128), its requirements (nvidia-cuda-runtime-cu12) and, as a
 * variant (PEP 817), in its label's properties (nvidia ::
 * cuda_version_lower_bound, nvidia :: sm_arch); its files say what they
 * were built for and what GPUs they run on.  Each contradiction is a line. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "requirements.h"
#include <string.h>

/* What the wheel's files say: the newest CUDA release they were built for
 * (from their contents, not the wheel), the file that says it, and the
 * least driver they need. */
struct contents {
	int version, major_only, need;
	const struct result *by, *needs;
};

static int built_of(const struct result *r, int *major_only)
{
	if (r->rt.linkage != RT_NONE && r->rt.version && r->rt.used != 0 && r->rt.linkage != RT_IMPORTED) {
		*major_only = r->rt.major_only;
		return r->rt.version;
	}
	*major_only = r->built.major_only;
	return r->built.declared ? 0 : r->built.version;
}

static void contents_of(const struct result *rs, size_t n, const char *prefix, struct contents *c)
{
	memset(c, 0, sizeof *c);
	for (size_t k = 0; k < n; k++) {
		const struct result *r = &rs[k];
		int only, v;
		if (r->error || strncmp(r->file, prefix, strlen(prefix)) != 0)
			continue;
		if ((v = built_of(r, &only)) && (v > c->version || (v == c->version && !only)))
			c->version = v, c->major_only = only, c->by = r;
		if (r->v.need > c->need)
			c->need = r->v.need, c->needs = r;
	}
}

static void say(FILE *out, const char *lead, const char *wheel, const char *what, const struct contents *c)
{
	fprintf(out, "%s%s: %s, but %s was built for CUDA %s\n", lead, wheel, what, c->by->file,
		c->major_only ? cli_version(c->version / 1000 * 1000) : cli_version(c->version));
}

static void names(const struct tree_input *in, const struct contents *c, FILE *out, const char *lead)
{
	const struct wheel_tag *t = &in->tag;
	char what[256];
	int major = c->version / 1000;
	if (!c->version)
		return;
	if (t->name_major && t->name_major != major) {
		snprintf(what, sizeof what, "its name says %s (CUDA %d)", t->name_word, t->name_major);
		say(out, lead, in->path, what, c);
	}
	if (t->local_version && (t->local_version / 1000 != major || (!c->major_only && c->version > t->local_version))) {
		snprintf(what, sizeof what, "its version says %s (CUDA %s)", t->local_word, cli_version(t->local_version));
		say(out, lead, in->path, what, c);
	}
	if (t->requires_major && t->requires_major != major) {
		snprintf(what, sizeof what, "it requires %s (CUDA %d)", t->requires_word, t->requires_major);
		say(out, lead, in->path, what, c);
	}
}

/* A declared nvidia :: sm_arch value ("90_real", "90a_real", "120_virtual")
 * that no GPU the files run on answers. */
static int arch_runs(const struct archset *s, const char *value)
{
	int cc = 0, k = 0;
	while (value[k] >= '0' && value[k] <= '9')
		cc = cc * 10 + (value[k++] - '0');
	for (int i = 0; i < s->n; i++)
		if (s->cc[i].major * 10 + s->cc[i].minor == cc)
			return s->runs[i];
	return 1; /* a compute capability cushim does not know: not judged */
}

static void variant(const struct tree_input *in, const struct result *rs, size_t n, const struct contents *c,
		    const char *prefix, FILE *out, const char *lead)
{
	const struct wheel_tag *t = &in->tag;
	struct archset s;
	char list[sizeof t->variant_sm], *save = NULL;
	if (t->variant_lower && c->need > t->variant_lower)
		fprintf(out, "%s%s: its variant %s says nvidia :: cuda_version_lower_bound :: %s, but %s needs a CUDA %s "
			"driver\n", lead, in->path, t->variant_label, cli_version(t->variant_lower), c->needs->file,
			cli_version(c->need));
	check_archset(rs, n, prefix, &s);
	snprintf(list, sizeof list, "%s", t->variant_sm);
	for (char *v = strtok_r(list, ",", &save); v && s.files; v = strtok_r(NULL, ",", &save))
		if (!arch_runs(&s, v))
			fprintf(out, "%s%s: its variant %s says nvidia :: sm_arch :: %s, but not every file with kernels in "
				"it runs there\n", lead, in->path, t->variant_label, v);
}

void check_declared(const struct tree *t, const struct result *rs, size_t n, FILE *out, const char *lead)
{
	char prefix[4200];
	struct contents c;
	for (size_t i = 0; t && i < t->ninputs; i++) {
		const struct tree_input *in = &t->inputs[i];
		if (in->kind != INPUT_WHEEL)
			continue;
		snprintf(prefix, sizeof prefix, "%s:", in->path);
		contents_of(rs, n, prefix, &c);
		names(in, &c, out, lead);
		variant(in, rs, n, &c, prefix, out, lead);
	}
}
