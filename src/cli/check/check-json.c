/* cushim check --json: the same report as one JSON object. */
#include "config.h"
#include "check-steps.h"
#include "requirements.h"
#include <string.h>

static const char *const by_names[] = { "null", "\"runtime\"", "\"gpu_code\"", "\"imports\"" };

/* key: "13.0", cuda_key: 13000, branch_key: 580; nulls for 0.  A NULL key is left out. */
static void json_version(const char *key, const char *cuda_key, const char *branch_key, int v)
{
	int b = v ? req_driver_branch(v) : 0;
	if (v)
		printf("\"%s\": \"%s\", \"%s\": %d", key, cli_version(v), cuda_key, v);
	else
		printf("\"%s\": null, \"%s\": null", key, cuda_key);
	if (branch_key)
		printf(b ? ", \"%s\": %d" : ", \"%s\": null", branch_key, b);
}

void check_print_json_head(const struct opts *o)
{
	char g[16];
	printf("{");
	json_version("driver_version", "driver_cuda_version", "driver_branch", o->versus);
	printf(", \"driver_from\": %s", !o->versus ? "null" : o->shim ? "\"driver\"" :
	       o->versus_branch ? "\"option (a driver branch)\"" : "\"option\"");
	printf(",\n  \"gpus\": [");
	for (int i = 0; i < o->ngpus; i++) {
		printf("%s\"%s\"", i ? ", " : "", check_gpu_name(o, i, g, sizeof g));
	}
	printf("], \"gpus_from\": %s", o->gpus_from ? (strcmp(o->gpus_from, "driver") == 0 ? "\"driver\"" :
							 "\"option\"") : "null");
	printf(",\n  \"table\": {\"exports\": %d, \"cuda_headers\": \"%s\"},\n  \"files\": [", CUSHIM_NSYMS,
	       cli_version(CUDA_VERSION));
}

static void json_import(const struct import *im, int first)
{
	printf("%s\n      {\"name\": ", first ? "" : ",");
	cushim_json_print(stdout, im->name);
	if (im->idx < 0) {
		printf(", \"known\": false}");
		return;
	}
	const struct cushim_sym *s = &cushim_syms[im->idx];
	printf(", \"known\": true, \"base\": \"%s\", \"version\": \"%s\", \"cuda_version\": %d, "
	       "\"flavour\": \"%s\", \"missing\": %s", s->base, cli_version(s->version), s->version,
	       cushim_flavour_name(s->flavour), im->missing ? "true" : "false");
	if (im->adapter) {
		printf(", \"adapted\": {\"by\": \"%s\", \"when\": ", im->adapter->older);
		cushim_json_print(stdout, im->adapter->condition);
		printf("}");
	}
	printf("}");
}

static void json_imports(const struct result *r)
{
	if (r->needs)
		printf(", \"needs\": \"%s\", \"needs_cuda_version\": %d", cli_version(r->needs), r->needs);
	else
		printf(", \"needs\": null, \"needs_cuda_version\": null");
	printf(", \"imports\": [");
	for (size_t i = 0; i < r->nimports; i++)
		json_import(&r->imports[i], i == 0);
	printf("%s], \"missing\": [", r->nimports ? "\n    " : "");
	int k = 0;
	for (size_t i = 0; i < r->nimports; i++)
		if (r->imports[i].missing) {
			printf("%s", k++ ? ", " : "");
			cushim_json_print(stdout, r->imports[i].name);
		}
	printf("]");
}

static void json_runtime(const struct cli_runtime *rt)
{
	static const char *const linkage[] = { "none", "static", "dynamic", "self", "imported", "loaded" };
	printf(",\n    \"runtime\": ");
	if (rt->linkage == RT_NONE) {
		printf("null");
		return;
	}
	printf("{\"linkage\": \"%s\", ", linkage[rt->linkage]);
	json_version("version", "cuda_version", NULL, rt->version);
	printf(", \"major_only\": %s, \"at_least\": %s, \"from\": ", rt->major_only ? "true" : "false",
	       rt->at_least ? "true" : "false");
	cushim_json_print(stdout, rt->from);
	printf(", \"library\": ");
	if (rt->library[0])
		cushim_json_print(stdout, rt->library);
	else
		printf("null");
	printf(", \"used\": %s, \"used_why\": ", rt->used == 1 ? "true" : rt->used == 0 ? "false" : "null");
	cushim_json_print(stdout, rt->used_why);
	printf(", ");
	json_version("needs_driver", "needs_driver_cuda_version", "needs_driver_branch",
		     rt->version ? req_runtime_min_driver(rt->version) : 0);
	printf(", \"minor_version_compatibility\": %s}", req_runtime_minor_compat(rt->version) ? "true" : "false");
}

static void json_image(const struct fb_image *im, int first)
{
	char name[48];
	int need = im->kind == FB_PTX ? req_ptx_isa_cuda(im->isa_major, im->isa_minor) : 0;
	printf("%s\n      {\"kind\": \"%s\", \"name\": \"%s\", \"arch\": %d, \"variant\": ", first ? "" : ",",
	       im->kind == FB_SASS ? "sass" : im->kind == FB_PTX ? "ptx" : "other",
	       fb_image_name(im, name, sizeof name), im->arch);
	printf(im->variant ? "\"%c\"" : "null", im->variant);
	if (im->kind == FB_PTX)
		printf(", \"ptx_isa\": \"%d.%d\", ", im->isa_major, im->isa_minor);
	else
		printf(", \"ptx_isa\": null, ");
	json_version("jit_needs_driver", "jit_needs_driver_cuda_version", NULL, need);
	printf(im->toolkit ? ", \"toolkit\": \"%s\"" : ", \"toolkit\": null", cli_version(im->toolkit));
	printf(", \"compressed\": %s, \"compression\": ", im->compressed ? "true" : "false");
	printf(im->compressed ? "\"%s\"" : "null", im->method == FB_LZ4 ? "lz4" : im->method == FB_ZSTD ? "zstd" :
	       "unknown");
	printf(", \"empty\": %s, \"fatbin\": %d}", im->empty ? "true" : "false", im->fatbin);
}

static void json_gpucode(const struct result *r)
{
	const struct fb_list *l = &r->gpu.list;
	printf(",\n    \"gpu_code\": {\"fatbins\": %d, \"wrappers\": %d, \"unregistered\": %s, \"ptx_only\": %s, "
	       "\"error\": ", l->nfatbins, r->gpu.wrappers, r->gpu.unregistered ? "true" : "false",
	       r->v.code.ptx_only ? "true" : "false");
	if (r->gpu.error[0])
		cushim_json_print(stdout, r->gpu.error);
	else
		printf("null");
	printf(", \"images\": [");
	for (size_t i = 0; i < l->n; i++)
		json_image(&l->img[i], i == 0);
	printf("%s]}", l->n ? "\n    " : "");
}

static void json_fits(const struct result *r, const struct opts *o)
{
	static const char *const how[] = { "\"none\"", "\"sass\"", "\"ptx\"", "\"ptx_too_new\"", "\"unknown\"" };
	int kernels = !r->gpu.error[0] && cli_gpucode_kernels(&r->gpu);
	printf(",\n    \"on_gpus\": [");
	for (int i = 0; i < o->ngpus; i++) {
		const struct gpu_fit *fit = &r->v.fits[i];
		char name[48], g[16];
		printf("%s{\"gpu\": \"%s\", ", i ? ", " : "", check_gpu_name(o, i, g, sizeof g));
		if (!kernels || (r->v.fit_unknown[i] && fit->how != GPU_UNKNOWN)) {
			printf("\"runs\": null, \"how\": null, \"image\": null}");
			continue;
		}
		printf("\"runs\": %s, \"how\": %s, \"image\": ", fit->how == GPU_SASS || fit->how == GPU_PTX ? "true" :
		       fit->how == GPU_UNKNOWN ? "null" : "false", how[fit->how]);
		printf(fit->image ? "\"%s\", " : "null, ", fit->image ? fb_image_name(fit->image, name, sizeof name) : "");
		json_version("needs_driver", "needs_driver_cuda_version", NULL, fit->ptx_driver);
		printf("}");
	}
	printf("]");
}

static void json_verdict(const struct result *r, const struct opts *o)
{
	printf(",\n    \"verdict\": {\"runs\": %s, ", check_runs_json(r, o));
	json_version("needs_driver", "needs_driver_cuda_version", "needs_driver_branch", r->v.need);
	printf(", \"decided_by\": %s, \"blocked_by\": [", r->v.need ? by_names[r->v.decided_by] : "null");
	int k = 0;
	for (int by = BY_RUNTIME; by <= BY_IMPORTS; by++)
		if (r->v.blocked[by])
			printf("%s%s", k++ ? ", " : "", by_names[by]);
	if (r->nfatal)
		printf("%s\"libraries\"", k ? ", " : "");
	printf("], \"cushim_can_help\": %s}", r->v.blocked[BY_IMPORTS] && !r->v.blocked[BY_RUNTIME] &&
	       !r->v.blocked[BY_GPU_CODE] && !r->nfatal ? "true" : "false");
}

/* The libraries nothing provides (missing_libraries, and those of them
 * that fail it), and those the loader stops at (unloadable_libraries). */
static void json_unfound(const struct result *r)
{
	const char *keys[] = { "missing_libraries", "missing_libraries_that_fail_it" };
	for (int fatal = 0; fatal < 2; fatal++) {
		int k = 0;
		printf(", \"%s\": [", keys[fatal]);
		for (size_t i = 0; i < r->nunfound; i++) {
			if (r->unfound[i].path || (fatal && !r->unfound[i].fatal))
				continue;
			printf(k++ ? ", " : "");
			cushim_json_print(stdout, r->unfound[i].name);
		}
		printf("]");
	}
	printf(", \"unloadable_libraries\": [");
	for (size_t i = 0, k = 0; i < r->nunfound; i++) {
		if (!r->unfound[i].path)
			continue;
		printf("%s{\"name\": ", k++ ? ", " : "");
		cushim_json_print(stdout, r->unfound[i].name);
		printf(", \"path\": ");
		cushim_json_print(stdout, r->unfound[i].path);
		printf(", \"why\": ");
		cushim_json_print(stdout, r->unfound[i].why);
		printf("}");
	}
	printf("]");
}

static const char *status_name(const struct result *r)
{
	if (r->error || r->gpu.error[0])
		return "error";
	if (r->v.blocked[BY_RUNTIME] || r->v.blocked[BY_GPU_CODE] || r->nfatal)
		return "fail";
	return r->nmissing ? "missing" : "pass";
}

static void json_jit(const struct result *r)
{
	const struct cli_jit *j = &r->jit;
	if (j->kind == JIT_NONE) {
		printf(",\n    \"jit_compiler\": null");
		return;
	}
	printf(",\n    \"jit_compiler\": {\"name\": \"%s\", \"cuda_version\": ", cli_jit_name(j->kind));
	printf(j->version ? "%d" : "null", j->version);
	printf(", \"major_only\": %s, \"default_ptx_needs_driver_cuda_version\": ", j->major_only ? "true" : "false");
	printf(j->need ? "%d" : "null", j->need);
	printf(", \"newer_than_driver\": %s}", r->v.jit_too_new ? "true" : "false");
}

void check_print_json_file(const struct result *r, const struct opts *o, int first)
{
	printf("%s\n    {\"file\": ", first ? "" : ",");
	cushim_json_print(stdout, r->file);
	printf(", \"needed_by\": ");
	if (r->needed_by)
		cushim_json_print(stdout, r->needed_by);
	else
		printf("null");
	printf(", \"status\": \"%s\", \"kind\": \"%s\"", status_name(r), r->raw_fatbin == RAW_PTX ? "ptx" :
	       r->raw_fatbin == RAW_CUBIN ? "cubin" : r->raw_fatbin ? "fatbin" : "elf");
	if (!r->raw_fatbin)
		printf(", \"machine\": \"%s\", \"this_machine\": %s", r->machine ? r->machine : "?",
		       r->native == 1 ? "true" : "false");
	if (r->error) {
		printf(", \"error\": ");
		cushim_json_print(stdout, r->error);
		printf("}");
		return;
	}
	json_imports(r);
	json_runtime(&r->rt);
	check_json_loads(r);
	json_jit(r);
	json_gpucode(r);
	json_fits(r, o);
	json_verdict(r, o);
	json_unfound(r);
	printf("}");
}
