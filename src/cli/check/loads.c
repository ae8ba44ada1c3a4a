/* See loads.h.  A name counts where it stands on its own in the data (a C
 * string, or the tail of a path: "/usr/lib/libcuda.so.1"): "lib", a stem
 * NVIDIA ships, ".so", then a version ("12", "11.0"), none, or a '.' or
 * "%d" that the program's own version completes at run time. */
#include "config.h"
#include "loads.h"
#include "cudart.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOADS_MAX 32

/* The libraries NVIDIA's wheels ship, their folder there (nvidia/<folder>/lib),
 * and the wheel (nvidia-<wheel>-cuNN); tells: the soname's number is the
 * CUDA major release; toolkit: the wheel is the toolkit's, named without
 * -cuNN from CUDA 13 on. */
static const struct lib {
	const char *stem, *folder, *wheel;
	int tells, toolkit;
} libs[] = {
	{ "libcuda", NULL, NULL, 0, 0 },
	{ "libcudart", "cuda_runtime", "cuda-runtime", 1, 1 },
	{ "libnvrtc", "cuda_nvrtc", "cuda-nvrtc", 1, 1 },
	{ "libnvJitLink", "nvjitlink", "nvjitlink", 1, 1 },
	{ "libcublas", "cublas", "cublas", 1, 1 },
	{ "libcublasLt", "cublas", "cublas", 1, 1 },
	{ "libcufft", "cufft", "cufft", 0, 1 },
	{ "libcurand", "curand", "curand", 0, 1 },
	{ "libcusolver", "cusolver", "cusolver", 0, 1 },
	{ "libcusparse", "cusparse", "cusparse", 0, 1 },
	{ "libcupti", "cuda_cupti", "cuda-cupti", 0, 1 },
	{ "libnvToolsExt", "nvtx", "nvtx", 0, 1 },
	{ "libcudnn", "cudnn", "cudnn", 0, 0 },
	{ "libnccl", "nccl", "nccl", 0, 0 },
};
#define NLIBS (sizeof libs / sizeof *libs)

static const struct lib *lib_of(const char *stem, size_t len)
{
	for (size_t i = 0; i < NLIBS; i++)
		if (strlen(libs[i].stem) == len && strncmp(libs[i].stem, stem, len) == 0)
			return &libs[i];
	return NULL;
}

int cli_load_driver(const struct cli_load *l)
{
	return strcmp(l->stem, "libcuda") == 0;
}

int cli_load_tells_major(const char *stem)
{
	const struct lib *l = lib_of(stem, strlen(stem));
	return l && l->tells;
}

int cli_load_name(const char *stem, int major, char *buf, size_t size)
{
	if (!cli_load_tells_major(stem) || major < 11)
		return 0;
	snprintf(buf, size, "%s.so.%d", stem, major);
	return 1;
}

const char *cli_load_wheel(const char *stem, int major, char *buf, size_t size)
{
	const struct lib *l = lib_of(stem, strlen(stem));
	if (!l || !l->wheel || major < 11)
		return NULL;
	if (major >= 13 && l->toolkit)
		snprintf(buf, size, "nvidia-%s %d.x", l->wheel, major);
	else
		snprintf(buf, size, "nvidia-%s-cu%d", l->wheel, major);
	return buf;
}

const char *cli_load_folder_stem(const char *component, int *major)
{
	int m;
	char tail;
	*major = 0;
	if (sscanf(component, "cu%d%c", &m, &tail) == 1 && m >= 11 && m < 100) {
		*major = m;
		return "libcudart";
	}
	for (size_t i = 0; i < NLIBS; i++)
		if (libs[i].folder && strcmp(libs[i].folder, component) == 0)
			return libs[i].stem;
	return NULL;
}

static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '+';
}

static int listed(const struct cli_loads *out, const char *name)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i].name, name) == 0)
			return 1;
	return 0;
}

static struct cli_load *add(struct cli_loads *out, const char *name, const char *stem, int how)
{
	if (out->n == LOADS_MAX || listed(out, name))
		return NULL;
	struct cli_load *v = realloc(out->v, (out->n + 1) * sizeof *v);
	if (!v)
		abort();
	out->v = v;
	v += out->n++;
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "%s", name);
	snprintf(v->stem, sizeof v->stem, "%s", stem);
	v->how = how;
	return v;
}

struct scan {
	struct cli_loads *out;
	const char *soname;
	char *const *needed;
	size_t nneeded;
};

static int skipped(const struct scan *s, const char *name)
{
	if (s->soname && strcmp(s->soname, name) == 0)
		return 1;
	for (size_t i = 0; i < s->nneeded; i++)
		if (strcmp(s->needed[i], name) == 0)
			return 1;
	return 0;
}

/* The version after ".so" at v (up to end): its length in *len (".12",
 * ".11.0", or none), with *prefix set where the program completes it
 * ("libcudart.so." or "libcudart.so.%d": *len is 1, the '.'); -1 when what
 * follows is no version (".sox", ".so.one"). */
static int version_at(const unsigned char *v, const unsigned char *end, size_t *len, int *prefix)
{
	size_t k = 1;
	*prefix = 0;
	*len = 0;
	if (v == end || *v != '.')
		return v != end && name_char(*v) ? -1 : 0;
	while (v + k < end && (isdigit(v[k]) || (v[k] == '.' && isdigit(v[k - 1]))))
		k++;
	if (v + k < end && v[k] == '%') {
		*prefix = 1, *len = 1;
		return 0;
	}
	if (v + k < end && name_char(v[k]))
		return -1;
	if (k > 1 && v[k - 1] == '.')
		k--;
	*prefix = k == 1;
	*len = k;
	return 0;
}

static void take(struct scan *s, const unsigned char *start, const unsigned char *so, const unsigned char *end)
{
	char name[80], stem[24];
	size_t slen = (size_t)(so - start), vlen = 0;
	int prefix;
	const struct lib *l = lib_of((const char *)start, slen);
	if (!l || version_at(so + 3, end, &vlen, &prefix) != 0 || slen + 3 + vlen >= sizeof name)
		return;
	memcpy(name, start, slen + 3 + vlen);
	name[slen + 3 + vlen] = '\0';
	snprintf(stem, sizeof stem, "%s", l->stem);
	if (skipped(s, name))
		return;
	struct cli_load *ld = add(s->out, name, stem, LOAD_NAMED);
	int major = 0;
	if (ld && !prefix && l->tells && sscanf(name + slen + 3, ".%d", &major) == 1 && major >= 11 && major < 100)
		ld->major = major;
}

static void scan_data(const unsigned char *p, size_t n, void *arg)
{
	struct scan *s = arg;
	const unsigned char *end = p + n;
	for (const unsigned char *q = p; q + 3 <= end && (q = memmem(q, (size_t)(end - q), ".so", 3)); q += 3) {
		const unsigned char *start = q;
		while (start > p && q - start < 24 && name_char(start[-1]))
			start--;
		if (q - start > 3 && memcmp(start, "lib", 3) == 0 && (start == p || !name_char(start[-1])))
			take(s, start, q, end);
	}
}

/* A library named for several major releases (a loader that tries
 * libcudart.so.13, then .12, ...): none of them is the file's own. */
static void mark_several(struct cli_loads *out)
{
	for (size_t i = 0; i < out->n; i++)
		for (size_t k = 0; k < out->n; k++)
			if (out->v[i].major && out->v[k].major && out->v[i].major != out->v[k].major &&
			    strcmp(out->v[i].stem, out->v[k].stem) == 0)
				out->v[i].several = 1;
	for (size_t i = 0; i < out->n; i++)
		for (size_t k = 0; k < out->n; k++)
			if (out->v[k].several && strcmp(out->v[i].stem, out->v[k].stem) == 0)
				out->v[i].several = 1;
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].several)
			out->v[i].major = 0;
}

void cli_loads_read(Elf *elf, const char *soname, char *const *needed, size_t nneeded, struct cli_loads *out)
{
	struct scan s = { out, soname, needed, nneeded };
	memset(out, 0, sizeof *out);
	cli_each_data(elf, scan_data, &s);
	mark_several(out);
}

static int named_stem(const struct cli_loads *out, const char *stem)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i].stem, stem) == 0)
			return 1;
	return 0;
}

/* Each nvidia/<component>/lib of a run path list. */
static void folders_of(const char *list, struct cli_loads *out)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":");
		char entry[512], component[64];
		snprintf(entry, sizeof entry, "%.*s", (int)(n < sizeof entry ? n : sizeof entry - 1), p);
		const char *at = strstr(entry, "nvidia/");
		int major;
		const char *stem;
		if (at && sscanf(at + 7, "%63[^/]/lib", component) == 1 && strlen(at + 7) >= strlen(component) + 4 &&
		    strncmp(at + 7 + strlen(component), "/lib", 4) == 0 && (stem = cli_load_folder_stem(component, &major)) &&
		    !named_stem(out, stem)) {
			struct cli_load *l = add(out, entry, stem, LOAD_FOLDER);
			if (l)
				l->major = major;
		}
		p += n + (p[n] == ':');
	}
}

void cli_loads_read_paths(const char *rpath, const char *runpath, struct cli_loads *out)
{
	folders_of(rpath, out);
	folders_of(runpath, out);
}

void cli_loads_free(struct cli_loads *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path), free(l->v[i].why);
	free(l->v);
	memset(l, 0, sizeof *l);
}
