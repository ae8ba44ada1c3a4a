/* cushim check on an environment (folders, --python): one verdict for the
 * whole tree first, naming the one file and the one reason that decide it;
 * the least driver the tree needs; for each GPU asked for, whether every
 * file carrying kernels has code for it; then the files that limit it. */
#include "config.h"
#include "check-steps.h"
#include "requirements.h"
#include <stdio.h>
#include <string.h>

/* A Python extension module (NAME.cpython-*.so, NAME.abi3.so) that fails
 * only for a library it cannot load: Python loads it only when something
 * imports it (an optional backend, an MPI flavour), so the tree may run
 * without it.  It is a caution, not the tree's verdict. */
static int optional_module(const struct result *r)
{
	const char *base = strrchr(r->file, '/');

	base = base ? base + 1 : r->file;
	if (!r->nunfound || r->error || r->gpu.error[0])
		return 0;
	for (int by = BY_RUNTIME; by <= BY_IMPORTS; by++)
		if (r->v.blocked[by])
			return 0;
	return (strstr(base, ".cpython-") || strstr(base, ".abi3.so")) && strstr(base, ".so");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* A file's status as the environment counts it. */
int env_status(const struct result *r)
{
	return optional_module(r) ? CLI_OK : check_status(r);
}

/* Another file that cannot load for want of a library that is not CUDA's,
 * and for nothing else: a caution naming it. */
static int lacking_other(const struct result *r)
{
	return r->nunfound && !optional_module(r) && env_status(r) == CLI_OK;
}

/* How bad a file's verdict is, for choosing the one that decides: a library
 * it cannot load (one the loader stops at, a CUDA library nothing
 * provides), then the runtime, the GPU code, the imports. */
enum { WEIGHT_IMPORTS = 2, WEIGHT_LIBRARIES = 5 };
static int weight(const struct result *r)
{
	if (r->error || r->gpu.error[0] || optional_module(r))
		return 0;
	if (r->nfatal)
		return WEIGHT_LIBRARIES;
	if (r->v.blocked[BY_RUNTIME])
		return 4;
	if (r->v.blocked[BY_GPU_CODE])
		return 3;
	return r->v.blocked[BY_IMPORTS] ? WEIGHT_IMPORTS : 0;
}

void env_judge(struct env *e, const struct result *rs, size_t n, const struct opts *o)
{
	memset(e, 0, sizeof *e);
	e->decider = e->limiter = e->jit = e->optional_first = e->lacking_first = e->unloaded_first = -1;
	e->nfiles = (int)n;
	for (size_t i = 0; i < n; i++) {
		const struct result *r = &rs[i];
		int w = weight(r), st = env_status(r);
		if (optional_module(r) && !e->optional++)
			e->optional_first = (long)i;
		if (st > e->status)
			e->status = st;
		if (w > 0 && (e->decider < 0 || w > weight(&rs[e->decider])))
			e->decider = (long)i;
		if (!r->error && r->v.need > e->need)
			e->need = r->v.need, e->limiter = (long)i;
		for (size_t k = 0; k < r->nunfound; k++)
			r->unfound[k].path ? e->unloadable++ : e->unfound++;
		if (lacking_other(r) && !e->lacking++)
			e->lacking_first = (long)i;
		if (!r->error && check_first_unloaded(r) && !e->unloaded++)
			e->unloaded_first = (long)i;
		if (r->jit.need && (e->jit < 0 || r->jit.need > rs[e->jit].jit.need))
			e->jit = (long)i;
		e->failing += st == CLI_FAIL;
		e->adapted += r->nadapted;
		e->adapted_files += r->nadapted > 0;
		if (o->compat && o->compat->refused)
			e->status = CLI_FAIL; /* no program starts: cuInit fails */
		if (r->error || r->gpu.error[0] || !cli_gpucode_kernels(&r->gpu))
			continue;
		if (!e->with_kernels++)
			e->kernels_first = (long)i;
		e->unknown += check_fit_unknown(r, o);
		for (int g = 0; g < o->ngpus; g++)
			if (!r->v.fit_unknown[g] && (r->v.fits[g].how == GPU_NO_CODE || r->v.fits[g].how == GPU_PTX_TOO_NEW))
				if (!e->gpu_lacking[g]++)
					e->gpu_first[g] = (long)i;
	}
}

/* The GPUs asked for that have no code of the file they can run, named:
 * "it has no GPU code that sm_90 or sm_100 can run", or for one whose PTX
 * the driver given is too old to JIT-compile, what it needs. */
static void gpu_reason(const struct result *r, const struct opts *o, char *buf, size_t size)
{
	char names[256] = "", g[16], d[64];
	int n = 0, too_new = -1;
	if (!o->ngpus) {
		check_ptx_only_words(r, o, buf, size);
		return;
	}
	for (int i = 0; i < o->ngpus; i++) {
		if (r->v.fit_unknown[i] || (r->v.fits[i].how != GPU_NO_CODE && r->v.fits[i].how != GPU_PTX_TOO_NEW))
			continue;
		if (r->v.fits[i].how == GPU_PTX_TOO_NEW) {
			too_new = too_new < 0 ? i : too_new;
			continue;
		}
		size_t len = strlen(names);
		snprintf(names + len, sizeof names - len, "%s%s", n++ ? " or " : "", check_gpu_name(o, i, g, sizeof g));
	}
	if (n)
		snprintf(buf, size, "it has no GPU code that %s can run", names);
	else
		snprintf(buf, size, "it has no SASS for %s, and its PTX needs %s to be JIT-compiled",
			 check_gpu_name(o, too_new, g, sizeof g), check_driver_name(r->v.fits[too_new].ptx_driver, d,
			 sizeof d));
}

/* "12.9", or "12" where only the major release is known. */
static const char *runtime_version(const struct cli_runtime *rt)
{
	static _Thread_local char buf[16];
	if (!rt->major_only)
		return cli_version(rt->version);
	snprintf(buf, sizeof buf, "%d", rt->version / 1000);
	return buf;
}

/* The one reason a file fails, in a few words. */
static void reason(const struct result *r, const struct opts *o, char *buf, size_t size)
{
	char d[64];
	if (r->nfatal)
		check_unfound_words(check_first_unfound(r, 1), buf, size);
	else if (r->v.blocked[BY_RUNTIME] && r->v.by_built)
		snprintf(buf, size, "it is built for CUDA %d (%s), whose runtime and libraries refuse drivers older "
			 "than %s", r->built.version / 1000, r->built.from, check_driver_name(r->v.runtime_need, d, sizeof d));
	else if (r->v.blocked[BY_RUNTIME])
		snprintf(buf, size, "its CUDA %s%s runtime (%s) refuses drivers older than %s", runtime_version(&r->rt),
			 r->rt.at_least ? " (or later)" : "", r->rt.linkage == RT_STATIC ? "linked statically" :
			 r->rt.linkage == RT_LOADED ? "loaded at run time" : "carried",
			 check_driver_name(r->v.runtime_need, d, sizeof d));
	else if (r->v.blocked[BY_GPU_CODE])
		gpu_reason(r, o, buf, size);
	else
		snprintf(buf, size, "the driver lacks %d of its driver imports (cushim run can help)", r->nmissing);
}

static void print_gpus(const struct env *e, const struct result *rs, const struct opts *o)
{
	for (int g = 0; g < o->ngpus; g++) {
		char name[16];
		printf("environment: on %s: ", check_gpu_name(o, g, name, sizeof name));
		if (!e->with_kernels)
			printf("no file carries kernels\n");
		else if (e->with_kernels == 1)
			printf("the one file carrying kernels, %s, %s code for it\n", rs[e->kernels_first].file,
			       e->gpu_lacking[g] ? "has no" : "has");
		else if (!e->gpu_lacking[g])
			printf("each of the %d files carrying kernels has code for it\n", e->with_kernels);
		else
			printf("%d of the %d file%s carrying kernels %s no code it can run, first %s\n", e->gpu_lacking[g],
			       e->with_kernels, plural(e->with_kernels), e->gpu_lacking[g] == 1 ? "has" : "have",
			       rs[e->gpu_first[g]].file);
	}
}

/* The verdict's line: the file and the reason that decide, or what it runs on. */
/* The driver given, and the forward-compatibility package it uses. */
static const char *driver_words(const struct opts *o, char *buf, size_t size)
{
	char d[64];
	const struct compat *c = o->compat;
	if (c && c->used == 1)
		snprintf(buf, size, "%s with the forward-compatibility package for CUDA %s",
			 check_driver_name(c->host, d, sizeof d), c->cuda_text);
	else
		check_driver_name(o->versus, buf, size);
	return buf;
}

static void print_verdict(const struct env *e, const struct result *rs, const struct opts *o)
{
	char d[160], why[1536];
	if (o->compat && o->compat->refused) {
		check_compat_refusal(o->compat, o, why, sizeof why);
		printf(": verdict: will not run on %s: decided by %s: %s\n", driver_words(o, d, sizeof d),
		       o->compat->path, why);
		return;
	}
	if (e->decider >= 0) {
		const struct result *r = &rs[e->decider];
		reason(r, o, why, sizeof why);
		if (weight(r) == WEIGHT_LIBRARIES)
			snprintf(d, sizeof d, "any driver");
		else if (o->versus)
			driver_words(o, d, sizeof d);
		else
			snprintf(d, sizeof d, "the driver and GPUs given");
		printf(": verdict: will not run on %s%s: decided by %s: %s", d,
		       weight(r) == WEIGHT_IMPORTS ? " without cushim" : "", r->file, why);
		if (e->failing > 1)
			printf(" (%d files fail in all)", e->failing);
		printf("\n");
	} else if (o->versus) {
		printf(": verdict: runs on %s", driver_words(o, d, sizeof d));
		if (e->adapted)
			printf(" under cushim, whose adapters serve %d import%s the driver lacks (in %d file%s)", e->adapted,
			       plural(e->adapted), e->adapted_files, plural(e->adapted_files));
		printf("%s\n", e->status == CLI_ERROR ? ", as far as the files that could be read tell" : "");
	} else {
		printf("\n");
	}
}

/* Whether the least driver the tree needs is set by imports cushim's
 * adapters serve: then it is what the tree needs without cushim. */
static int need_without_cushim(const struct env *e, const struct result *rs)
{
	return e->need && rs[e->limiter].v.decided_by == BY_IMPORTS && rs[e->limiter].nadapted;
}

static void print_cautions(const struct env *e, const struct result *rs)
{
	char d[64], why[1536];
	if (e->optional) {
		const struct unfound *u = &rs[e->optional_first].unfound[0];
		printf("environment: caution: %d Python extension module%s cannot be imported (each fails only if "
		       "something imports it): first %s needs %s%s\n", e->optional, plural(e->optional),
		       rs[e->optional_first].file, u->name, check_unfound_tail(u, why, sizeof why));
	}
	if (e->lacking) {
		const struct unfound *u = check_first_unfound(&rs[e->lacking_first], 0);
		printf("environment: caution: %d file%s cannot load here for want of a library that is not CUDA's "
		       "(the verdict does not rest on it): first %s needs %s%s\n", e->lacking, plural(e->lacking),
		       rs[e->lacking_first].file, u->name, check_unfound_tail(u, why, sizeof why));
	}
	if (e->unloaded) {
		const struct result *r = &rs[e->unloaded_first];
		check_unloaded_words(r, check_first_unloaded(r), why, sizeof why);
		printf("environment: caution: %d file%s load%s CUDA libraries at run time that this tree lacks (each "
		       "fails when it loads them): first %s %s\n", e->unloaded, plural(e->unloaded),
		       e->unloaded == 1 ? "s" : "", r->file, why);
	}
	if (e->jit >= 0 && rs[e->jit].v.jit_too_new)
		printf("environment: caution: %s carries %s %s: the PTX it emits by default needs %s; programs "
		       "that compile with it run only if they ask it for SASS\n", rs[e->jit].file,
		       cli_jit_name(rs[e->jit].jit.kind), cli_version(rs[e->jit].jit.version),
		       check_driver_name(rs[e->jit].jit.need, d, sizeof d));
}

void env_print_text(const struct env *e, const struct result *rs, size_t n, const struct opts *o)
{
	char d[64];
	if (!n) {
		printf("environment: no file to judge: any driver will do\n");
		return;
	}
	printf("environment: %zu file%s", n, plural(n));
	print_verdict(e, rs, o);
	if (e->need)
		printf("environment: %sneeds %s or newer, set by %s\n", need_without_cushim(e, rs) ? "without cushim " : "",
		       check_driver_name(e->need, d, sizeof d), rs[e->limiter].file);
	else if (e->decider >= 0 && weight(&rs[e->decider]) == WEIGHT_LIBRARIES)
		printf("environment: no file needs a particular driver: a library stops it, whatever the driver\n");
	else
		printf("environment: any driver will do\n");
	print_gpus(e, rs, o);
	if (o->compat)
		check_compat_print(o->compat, o);
	print_cautions(e, rs);
}

/* By default the files that limit the tree: those that fail, and those
 * that set the least driver it needs. */
int env_limits(const struct env *e, const struct result *r)
{
	return check_status(r) != CLI_OK || r->nunfound || (e->need && r->v.need == e->need) || r->v.jit_too_new ||
	       check_first_unloaded(r);
}

static const char *set_by(const struct result *r)
{
	switch (r->v.decided_by) {
	case BY_RUNTIME: return r->v.by_built ? "the CUDA release it was built for" : "its CUDA runtime";
	case BY_GPU_CODE: return r->v.code.ptx_only ? "its GPU code, PTX alone" : "the PTX a GPU asked for would JIT-compile";
	default: return "its driver imports";
	}
}

/* One row of the short table: the file and what it limits. */
void env_print_row(const struct result *r, const struct opts *o)
{
	char why[1536], d[64];
	if (optional_module(r)) {
		check_unfound_words(&r->unfound[0], why, sizeof why);
		printf("  %s: cannot be imported: %s\n", r->file, why);
	} else if (check_status(r) == CLI_FAIL) {
		reason(r, o, why, sizeof why);
		printf("  %s: fails: %s\n", r->file, why);
	} else if (r->nunfound) {
		check_unfound_words(check_first_unfound(r, 0), why, sizeof why);
		printf("  %s: caution: %s\n", r->file, why);
	}
	if (check_status(r) != CLI_FAIL && !optional_module(r) && r->v.need) {
		int adapted = r->v.decided_by == BY_IMPORTS && r->nadapted;
		printf("  %s: %sneeds %s, set by %s", r->file, adapted ? "without cushim " : "",
		       check_driver_name(r->v.need, d, sizeof d), set_by(r));
		if (adapted)
			printf("; under cushim its adapters serve %d import%s the driver lacks", r->nadapted,
			       plural(r->nadapted));
		printf("\n");
	}
	if (check_first_unloaded(r)) {
		check_unloaded_words(r, check_first_unloaded(r), why, sizeof why);
		printf("  %s: caution: %s\n", r->file, why);
	}
	if (r->v.jit_too_new)
		printf("  %s: caution: %s %s's default PTX needs %s\n", r->file, cli_jit_name(r->jit.kind),
		       cli_version(r->jit.version), check_driver_name(r->jit.need, d, sizeof d));
}

/* The verdict as JSON: true, false, or null where it cannot be told. */
const char *env_runs_json(const struct env *e, const struct opts *o)
{
	if (e->decider >= 0 || (o->compat && o->compat->refused))
		return "false";
	return e->status == CLI_OK && !e->unknown ? "true" : "null";
}

void env_print_json(const struct env *e, const struct result *rs, const struct opts *o, const struct tree *t)
{
	char why[512];
	printf(",\n  \"environment\": {\"runs\": %s, \"files\": %d, \"decided_by_file\": ", env_runs_json(e, o),
	       e->nfiles);
	if (e->decider >= 0) {
		cushim_json_print(stdout, rs[e->decider].file);
		reason(&rs[e->decider], o, why, sizeof why);
		printf(", \"reason\": ");
		cushim_json_print(stdout, why);
	} else {
		printf("null, \"reason\": null");
	}
	printf(", \"needs_driver_cuda_version\": ");
	printf(e->need ? "%d" : "null", e->need);
	printf(", \"needs_driver_branch\": ");
	printf(e->need && req_driver_branch(e->need) ? "%d" : "null", req_driver_branch(e->need));
	printf(", \"missing_libraries\": %d, \"unloadable_libraries\": %d, \"modules_that_cannot_load\": %d, "
	       "\"files_missing_other_libraries\": %d, \"files_loading_missing_libraries\": %d, \"gpus\": [", e->unfound,
	       e->unloadable, e->optional, e->lacking, e->unloaded);
	for (int g = 0; g < o->ngpus; g++) {
		char name[16];
		printf("%s{\"gpu\": \"%s\", \"every_file_has_code\": %s, \"files_without_code\": %d}", g ? ", " : "",
		       check_gpu_name(o, g, name, sizeof name), e->gpu_lacking[g] ? "false" : "true", e->gpu_lacking[g]);
	}
	printf("]");
	check_compat_json(o->compat, o);
	env_print_inputs_json(t);
	printf("}");
}
