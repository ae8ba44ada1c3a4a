/* cushim check --emit=FORMAT: what an environment needs, derived from its
 * files, in another tool's terms: the least driver (its CUDA version) and
 * the GPUs every file with kernels has code for.
 *
 * - docker: the NVIDIA Container Toolkit's NVIDIA_REQUIRE_* constraints
 *   (its documentation, "NVIDIA_REQUIRE_*": cuda, driver, arch and brand;
 *   space-separated constraints are ORed, comma-separated ones ANDed, and
 *   the variables are ANDed together): NVIDIA_REQUIRE_CUDA, a clause for
 *   each range of GPUs and the driver it needs (cuda>=12.0,arch>=8.0,arch<8.7).
 * - conda: the virtual packages __cuda (the newest CUDA the driver
 *   supports; conda's "Managing virtual packages") and __cuda_arch (the
 *   least compute capability of the machine's GPUs; CEP 46), as match specs
 *   ("|" ORs, "," ANDs).  One driver bound serves every GPU here: the GPUs
 *   are those a driver of the least CUDA version the files need runs them on.
 * - variant: the properties of NVIDIA's provider for wheel variants
 *   (PEP 817; wheelnext/nvidia-variant-provider): nvidia ::
 *   cuda_version_lower_bound :: X.Y, and nvidia :: sm_arch :: XY_real for
 *   each compute capability run from SASS, XY_virtual for the first of the
 *   GPUs that later PTX serves. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include <string.h>

int check_emit_format(const char *name)
{
	return strcmp(name, "docker") == 0 ? EMIT_DOCKER : strcmp(name, "conda") == 0 ? EMIT_CONDA :
	       strcmp(name, "variant") == 0 ? EMIT_VARIANT : 0;
}

/* Plain PTX (not arch- or family-specific): what GPUs after all those
 * known JIT-compile. */
static int open_ptx(const struct fb_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->img[i].kind == FB_PTX && !l->img[i].empty && !l->img[i].variant)
			return 1;
	return 0;
}

void check_archset(const struct result *rs, size_t n, const char *prefix, struct archset *s)
{
	struct gpu_fit fit;
	memset(s, 0, sizeof *s);
	while (s->n < ARCHSET_MAX && cli_gpu_known((size_t)s->n, &s->cc[s->n]))
		s->runs[s->n++] = 1;
	s->open = 1;
	for (size_t k = 0; k < n; k++) {
		const struct result *r = &rs[k];
		if (r->error || r->gpu.error[0] || !cli_gpucode_kernels(&r->gpu) ||
		    (prefix && strncmp(r->file, prefix, strlen(prefix)) != 0))
			continue;
		s->files++;
		s->open &= open_ptx(&r->gpu.list);
		for (int i = 0; i < s->n; i++) {
			gpu_fit(&r->gpu.list, s->cc[i], 0, &fit);
			s->runs[i] &= fit.how == GPU_SASS || fit.how == GPU_PTX;
			if (fit.how == GPU_PTX && fit.ptx_driver > s->need[i])
				s->need[i] = fit.ptx_driver;
		}
	}
	s->open &= s->files > 0 && s->runs[s->n - 1];
}

/* Only the GPUs where a driver of CUDA version `driver` runs it. */
static void restrict_to(struct archset *s, int driver)
{
	for (int i = 0; i < s->n; i++)
		if (s->need[i] > driver)
			s->runs[i] = 0;
	s->open &= s->runs[s->n - 1];
}

/* The runs of the set: [from, to) by index; to == n for the last when open. */
static int next_range(const struct archset *s, int at, int *from, int *to)
{
	while (at < s->n && !s->runs[at])
		at++;
	if (at >= s->n)
		return 0;
	*from = at;
	while (at < s->n && s->runs[at])
		at++;
	*to = at == s->n && !s->open ? -1 : at; /* -1: up to the last known alone */
	return 1;
}

static void version(char *buf, size_t size, struct gpu_arch g)
{
	snprintf(buf, size, "%d.%d", g.major, g.minor);
}

/* One range in a tool's words: docker "arch>=8.0,arch<8.7", conda ">=8.0,<8.7". */
static void range_words(const struct archset *s, int from, int to, int format, char *buf, size_t size)
{
	char lo[8], hi[8];
	const char *key = format == EMIT_DOCKER ? "arch" : "";
	version(lo, sizeof lo, s->cc[from]);
	if (to < 0) /* closed at the last known: every later one differs in major or is not known */
		version(hi, sizeof hi, s->cc[s->n - 1]), snprintf(buf, size, "%s>=%s,%s<=%s", key, lo, key, hi);
	else if (to == s->n)
		snprintf(buf, size, "%s>=%s", key, lo);
	else
		version(hi, sizeof hi, s->cc[to]), snprintf(buf, size, "%s>=%s,%s<%s", key, lo, key, hi);
}

static void arch_line(const struct archset *s, int format, const char *lead, const char *sep)
{
	char words[64];
	int from, to, at = 0, k = 0;
	printf("%s", lead);
	while (next_range(s, at, &from, &to)) {
		range_words(s, from, to, format, words, sizeof words);
		printf("%s%s", k++ ? sep : "", words);
		at = to < 0 ? s->n : to;
	}
	printf("\n");
}

/* NVIDIA_REQUIRE_CUDA as ORed clauses, one for each range of GPUs that
 * needs the same driver ("cuda>=12.0,arch>=8.0,arch<8.7 cuda>=12.4,arch>=10.0"):
 * PTX for later GPUs may need a newer driver than the SASS for earlier ones. */
static void emit_docker(const struct env *e, const struct archset *s)
{
	char words[64];
	int k = 0;
	if (!s->files) {
		if (e->need)
			printf("NVIDIA_REQUIRE_CUDA=cuda>=%s\n", cli_version(e->need));
		return;
	}
	printf("NVIDIA_REQUIRE_CUDA=");
	for (int i = 0; i < s->n;) {
		if (!s->runs[i]) {
			i++;
			continue;
		}
		int need = s->need[i] > e->need ? s->need[i] : e->need, j = i;
		while (j < s->n && s->runs[j] && (s->need[j] > e->need ? s->need[j] : e->need) == need)
			j++;
		struct archset one = *s;
		for (int m = 0; m < s->n; m++)
			one.runs[m] = m >= i && m < j;
		one.open = s->open && j == s->n;
		int from, to;
		next_range(&one, 0, &from, &to);
		range_words(&one, from, to, EMIT_DOCKER, words, sizeof words);
		printf(need ? "%scuda>=%s,%s" : "%s%.0s%s", k++ ? " " : "", cli_version(need), words);
		i = j;
	}
	printf("\n");
}

static void emit_variant(const struct env *e, const struct archset *s)
{
	int from, to, at = 0;
	if (e->need)
		printf("nvidia :: cuda_version_lower_bound :: %s\n", cli_version(e->need));
	while (s->files && next_range(s, at, &from, &to)) {
		int last = to < 0 ? s->n : to;
		for (int i = from; i < last; i++) {
			if (to == s->n && s->open && i == from)
				break; /* the open tail: its first GPU's PTX */
			printf("nvidia :: sm_arch :: %d%d_real\n", s->cc[i].major, s->cc[i].minor);
		}
		if (to == s->n && s->open)
			printf("nvidia :: sm_arch :: %d%d_virtual\n", s->cc[from].major, s->cc[from].minor);
		at = last;
	}
}

void check_emit(const struct env *e, const struct result *rs, size_t n, const struct opts *o)
{
	struct archset s;
	check_archset(rs, n, NULL, &s);
	if (o->emit == EMIT_DOCKER) {
		emit_docker(e, &s);
		return;
	}
	restrict_to(&s, e->need); /* one driver bound for every GPU: those it serves */
	switch (o->emit) {
	case EMIT_CONDA:
		if (e->need)
			printf("__cuda >=%s\n", cli_version(e->need));
		if (s.files)
			arch_line(&s, EMIT_CONDA, "__cuda_arch ", "|");
		break;
	default:
		emit_variant(e, &s);
	}
}
