/* cushim check: what a file loads at run time, and the CUDA release it was
 * built for.  Lazy stubs (a framework's plugin that dlopens
 * "libcudart.so.12" through a run path into nvidia/cuda_runtime/lib)
 * import nothing from CUDA, yet need what they load: each name in their
 * data is resolved as the loader resolves a DT_NEEDED name, in the tree
 * first; a runtime found so counts as a linked one does; and the CUDA major
 * release the file was built for (from what it loads, its GPU code's
 * compiler, its wheel) sets the least driver it can run on, since from CUDA
 * 11 on a release's libraries refuse drivers of an older major release
 * (CUDA Compatibility, "Minor Version Compatibility"). */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "requirements.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void check_loads_read(struct result *r, Elf *elf)
{
	cli_loads_read(elf, r->soname, r->needed, r->nneeded, &r->loads);
	cli_loads_read_paths(r->has_runpath ? NULL : r->rpath, r->runpath, &r->loads);
	r->gpu_release = cli_gpu_release(elf, r->gpu_release_text, sizeof r->gpu_release_text,
					  &r->gpu_release_unpacked);
}

/* The major release a found file's name says (".../libcudart.so.12.9.79": 12). */
static int found_major(const char *path, const char *stem)
{
	const char *base = strrchr(path, '/');
	int major;
	size_t n = strlen(stem);
	base = base ? base + 1 : path;
	if (strncmp(base, stem, n) == 0 && sscanf(base + n, ".so.%d", &major) == 1 && major >= 11 && major < 100)
		return major;
	return 0;
}

static void keep(struct cli_load *l, int v, const char *found, const char *why)
{
	l->state = v == CLI_LD_LOADS ? LOAD_FOUND : v == CLI_LD_STOPS ? LOAD_STOPS : LOAD_NONE;
	free(l->path), free(l->why);
	l->path = v != CLI_LD_SKIPPED ? strdup(found) : NULL;
	l->why = v == CLI_LD_STOPS ? strdup(why) : NULL;
	if (v == CLI_LD_LOADS && !l->major && !l->several && cli_load_tells_major(l->stem))
		l->major = found_major(found, l->stem);
}

/* The majors to try for a name whose version the program appends: the
 * one its GPU code was built by first, then the newest. */
static int majors_of(const struct result *r, int *out)
{
	static const int known[] = { 13, 12, 11 };
	int n = 0, mine = r->gpu_release / 1000;
	if (mine >= 11)
		out[n++] = mine;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i] != mine)
			out[n++] = known[i];
	return n;
}

/* Each major's file name in one folder (NULL: by name, where the tree and
 * the system have it): the first the loader finds. */
static int in_folder(const struct tree *t, const struct cli_load *l, const int *majors, int nmajors, const char *dir,
		     char *found, size_t size, char *why, size_t whysize)
{
	char name[PATH_MAX], file[96];
	int v = CLI_LD_SKIPPED;
	for (int i = 0; i < nmajors && v != CLI_LD_LOADS; i++) {
		if ((l->major && l->major != majors[i]) || !cli_load_name(l->stem, majors[i], file, sizeof file))
			continue;
		snprintf(name, sizeof name, "%s%s%s", dir ? dir : "", dir ? "/" : "", file);
		int got = tree_resolve(t, name, NULL, NULL, found, size, why, whysize);
		if (got != CLI_LD_SKIPPED)
			v = got;
	}
	return v;
}

/* A name whose version the program appends: the loader's order, each
 * folder of the run paths for every major, then the tree's and the
 * system's. */
static int try_majors(const struct tree *t, const struct result *r, const struct cli_load *l, const char *rpath,
		      const char *runpath, char *found, size_t size, char *why, size_t whysize)
{
	int majors[4], n = majors_of(r, majors), v;
	const char *lists[] = { rpath, runpath };
	char dir[PATH_MAX];
	for (int k = 0; k < 2; k++)
		for (const char *p = lists[k]; p && *p;) {
			size_t len = strcspn(p, ":");
			snprintf(dir, sizeof dir, "%.*s", (int)(len ? len : 1), len ? p : ".");
			if ((v = in_folder(t, l, majors, n, dir, found, size, why, whysize)) != CLI_LD_SKIPPED)
				return v;
			p += len + (p[len] == ':');
		}
	return in_folder(t, l, majors, n, NULL, found, size, why, whysize);
}

void check_loads_resolve(const struct tree *t, struct result *r, const char *origin, const char *rpath,
			 const char *runpath)
{
	char found[PATH_MAX], why[512];
	for (size_t i = 0; i < r->loads.n; i++) {
		struct cli_load *l = &r->loads.v[i];
		size_t n = strlen(l->name);
		int v;
		if (cli_load_driver(l))
			continue; /* the driver: what cushim check compares with */
		if (l->how == LOAD_FOLDER) {
			char *dir = cli_ld_expand(l->name, origin);
			int majors[4], nm = majors_of(r, majors);
			v = in_folder(t, l, majors, nm, dir, found, sizeof found, why, sizeof why);
			free(dir);
		} else if (l->name[n - 1] == '.') {
			v = try_majors(t, r, l, rpath, runpath, found, sizeof found, why, sizeof why);
		} else {
			v = tree_resolve(t, l->name, rpath, runpath, found, sizeof found, why, sizeof why);
		}
		keep(l, v, found, why);
	}
}

/* The runtime it loads: its first libcudart, found or not. */
static const struct cli_load *loaded_runtime(const struct result *r)
{
	for (size_t i = 0; i < r->loads.n; i++)
		if (strcmp(r->loads.v[i].stem, "libcudart") == 0 && r->loads.v[i].state != LOAD_STOPS &&
		    !r->loads.v[i].several)
			return &r->loads.v[i];
	return NULL;
}

/* The newest major release the names it loads say, and the first that says it. */
static const struct cli_load *loads_major(const struct result *r)
{
	const struct cli_load *best = NULL;
	for (size_t i = 0; i < r->loads.n; i++)
		if (r->loads.v[i].major && (!best || r->loads.v[i].major > best->major))
			best = &r->loads.v[i];
	return best;
}

/* Its SASS's newest toolkit (a cubin's note), where it has kernels. */
static int sass_toolkit(const struct result *r)
{
	int v = 0;
	for (size_t i = 0; i < r->gpu.list.n; i++)
		if (!r->gpu.list.img[i].empty && r->gpu.list.img[i].toolkit > v)
			v = r->gpu.list.img[i].toolkit;
	return v;
}

static void built_from_contents(struct result *r)
{
	struct built *b = &r->built;
	const struct cli_load *l = loads_major(r);
	int kernels = !r->gpu.error[0] && cli_gpucode_kernels(&r->gpu);
	int release = kernels ? r->gpu_release : 0, sass = kernels ? sass_toolkit(r) : 0;
	int exact = release > sass ? release : sass, major = l ? l->major : 0;
	size_t n = 0;
	if (exact / 1000 > major)
		major = exact / 1000;
	if (!major)
		return;
	b->version = exact / 1000 == major ? exact : major * 1000;
	b->major_only = exact / 1000 != major;
	if (l)
		n += (size_t)snprintf(b->from + n, sizeof b->from - n, "it loads %s at run time", l->name);
	if (release && n < sizeof b->from)
		n += (size_t)snprintf(b->from + n, sizeof b->from - n, "%sits GPU code's compiler says \"%s\"%s",
				      n ? "; " : "", r->gpu_release_text,
				      r->gpu_release_unpacked ? " (read from a compressed image)" : "");
	else if (sass && n < sizeof b->from)
		snprintf(b->from + n, sizeof b->from - n, "%sits SASS was built by CUDA %s", n ? "; " : "",
			 cli_version(sass));
}

/* A runtime it loads, found or named: judged as a linked one would be. */
static void runtime_loaded(struct result *r)
{
	const struct cli_load *l = loaded_runtime(r);
	struct cli_runtime *rt = &r->rt;
	int major = l ? l->major : 0;
	if (!l || (rt->linkage != RT_NONE && rt->linkage != RT_IMPORTED))
		return;
	if (!major && r->built.version)
		major = r->built.version / 1000;
	memset(rt, 0, sizeof *rt);
	rt->linkage = RT_LOADED;
	rt->version = major >= 11 ? major * 1000 : 0;
	rt->major_only = 1;
	rt->used = 1;
	snprintf(rt->library, sizeof rt->library, "%s", l->name);
	snprintf(rt->used_why, sizeof rt->used_why, "it loads the runtime in order to call it");
	if (l->how == LOAD_FOLDER)
		snprintf(rt->from, sizeof rt->from, "its run path points into %s", l->name);
	else
		snprintf(rt->from, sizeof rt->from, "its data names %s", l->name);
	if (l->state == LOAD_FOUND) {
		size_t n = strlen(rt->from);
		snprintf(rt->from + n, sizeof rt->from - n, "; found at %s", l->path);
	}
}

void check_loads_settle(struct result *r)
{
	char why[256];
	int major;
	int cuda = r->nimports || r->rt.linkage != RT_NONE || r->loads.n || r->gpu.list.n;
	if (r->raw_fatbin)
		return; /* GPU code alone: no runtime of its own; its PTX and SASS are judged by their rules */
	built_from_contents(r);
	if (!r->built.version && cuda && r->tag && (major = wheel_tag_major(r->tag, why, sizeof why)) >= 11) {
		r->built.version = major * 1000;
		r->built.major_only = 1;
		r->built.declared = 1;
		snprintf(r->built.from, sizeof r->built.from, "%s", why);
	}
	runtime_loaded(r);
}

/* The name it loads, as said: "libcudart.so.N" where the program appends
 * the version. */
static const char *shown(const struct cli_load *l)
{
	static _Thread_local char buf[96];
	size_t n = strlen(l->name);
	snprintf(buf, sizeof buf, "%s%s", l->name, n && l->name[n - 1] == '.' ? "N" : "");
	return buf;
}

/* Another name of the same library that the loader finds. */
static int found_otherwise(const struct result *r, const struct cli_load *l)
{
	for (size_t i = 0; i < r->loads.n; i++)
		if (r->loads.v[i].state == LOAD_FOUND && strcmp(r->loads.v[i].stem, l->stem) == 0)
			return 1;
	return 0;
}

/* A library named for several major releases is a probe for whichever is
 * there: its absence is no caution. */
const struct cli_load *check_first_unloaded(const struct result *r)
{
	for (size_t i = 0; i < r->loads.n; i++)
		if ((r->loads.v[i].state == LOAD_NONE || r->loads.v[i].state == LOAD_STOPS) &&
		    !r->loads.v[i].several && !found_otherwise(r, &r->loads.v[i]))
			return &r->loads.v[i];
	return NULL;
}

/* The CUDA major release a library it loads is for: its name's, else the
 * file's own. */
static int load_major(const struct result *r, const struct cli_load *l)
{
	return l->major ? l->major : r->built.version / 1000;
}

void check_unloaded_words(const struct result *r, const struct cli_load *l, char *buf, size_t size)
{
	char wheel[96], file[96];
	int major = load_major(r, l), n;
	const char *w = cli_load_wheel(l->stem, major, wheel, sizeof wheel);
	if (l->state == LOAD_STOPS) {
		snprintf(buf, size, "loads %s at run time, and the loader stops at %s: %s", shown(l), l->path, l->why);
		return;
	}
	if (l->how == LOAD_FOLDER)
		n = snprintf(buf, size, "its run path points into %s for %s, and this tree has none", l->name,
			     cli_load_name(l->stem, major, file, sizeof file) ? file : l->stem);
	else
		n = snprintf(buf, size, "loads %s at run time; this tree has none", shown(l));
	if (w && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ": the %s wheel provides it", w);
}

void check_built_reason(const struct result *r, const struct opts *o, char *buf, size_t size)
{
	int major = r->built.version / 1000;
	char hint[96] = "";
	(void)o;
	if (r->built.declared)
		snprintf(hint, sizeof hint, "; only its wheel says so: its files name no CUDA release");
	snprintf(buf, size, "it is built for CUDA %d (%s)%s: CUDA %d's runtime and libraries refuse drivers older "
		 "than CUDA %d.0 (cudaErrorInsufficientDriver), and cushim cannot change that: it needs a driver of "
		 "branch %d or later", major, r->built.from, hint, major, major, req_driver_branch(major * 1000));
}

/* "12" (its major alone) or "12.9". */
static const char *built_name(const struct built *b)
{
	static _Thread_local char buf[16];
	if (!b->major_only)
		return cli_version(b->version);
	snprintf(buf, sizeof buf, "%d", b->version / 1000);
	return buf;
}

/* The names it loads that were not looked for (no tree), in one line. */
static void print_named(const struct result *r)
{
	char line[1024];
	size_t n = 0;
	int drivers = 0;
	for (size_t i = 0; i < r->loads.n && n < sizeof line; i++) {
		const struct cli_load *l = &r->loads.v[i];
		if (l->state != LOAD_UNRESOLVED || l->how != LOAD_NAMED || (cli_load_driver(l) && drivers++))
			continue;
		n += (size_t)snprintf(line + n, sizeof line - n, "%s%s%s", n ? ", " : "", shown(l),
				      cli_load_driver(l) ? " (the driver)" : "");
	}
	if (n)
		printf("%s: loads at run time, by names in its data: %s\n", r->file, line);
}

void check_print_loads(const struct result *r)
{
	char why[1024];
	print_named(r);
	for (size_t i = 0; i < r->loads.n; i++) {
		const struct cli_load *l = &r->loads.v[i];
		if (l->state == LOAD_FOUND)
			printf("%s: loads %s at run time: %s\n", r->file, l->how == LOAD_FOLDER ? l->stem : shown(l), l->path);
		else if (l == check_first_unloaded(r)) {
			check_unloaded_words(r, l, why, sizeof why);
			printf("%s: %s\n", r->file, why);
		} else if (l->how == LOAD_FOLDER && l->state == LOAD_UNRESOLVED)
			printf("%s: its run path points into %s\n", r->file, l->name);
	}
	if (r->built.version && (r->rt.linkage == RT_NONE || r->rt.linkage == RT_IMPORTED || r->rt.linkage == RT_LOADED))
		printf("%s: built for CUDA %s (%s)\n", r->file, built_name(&r->built), r->built.from);
}

void check_json_loads(const struct result *r)
{
	static const char *const states[] = { "unresolved", "found", "stops", "none" };
	char wheel[96];
	printf(",\n    \"loads\": [");
	for (size_t i = 0; i < r->loads.n; i++) {
		const struct cli_load *l = &r->loads.v[i];
		const char *w = cli_load_driver(l) ? NULL : cli_load_wheel(l->stem, load_major(r, l), wheel, sizeof wheel);
		printf("%s{\"name\": ", i ? ", " : "");
		cushim_json_print(stdout, l->name);
		printf(", \"library\": \"%s\", \"how\": \"%s\", \"cuda_major\": ", l->stem,
		       l->how == LOAD_FOLDER ? "run_path" : "named");
		printf(l->major ? "%d" : "null", l->major);
		printf(", \"state\": \"%s\", \"path\": ", cli_load_driver(l) ? "driver" : states[l->state]);
		if (l->path)
			cushim_json_print(stdout, l->path);
		else
			printf("null");
		printf(", \"wheel\": ");
		if (w)
			cushim_json_print(stdout, w);
		else
			printf("null");
		printf("}");
	}
	printf("], \"built_for\": ");
	if (!r->built.version) {
		printf("null");
		return;
	}
	printf("{\"cuda_version\": \"%s\", \"cuda_major\": %d, \"major_only\": %s, \"declared\": %s, \"from\": ",
	       cli_version(r->built.version), r->built.version / 1000, r->built.major_only ? "true" : "false",
	       r->built.declared ? "true" : "false");
	cushim_json_print(stdout, r->built.from);
	printf("}");
}
