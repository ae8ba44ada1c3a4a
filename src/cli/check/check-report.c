/* cushim check: the report of one file, as text (check-report.c) or JSON
 * (check-json.c): its driver imports, the CUDA runtime it carries, its GPU
 * code, and the verdict. */
#include "config.h"
#include "check-steps.h"
#include "requirements.h"
#include <stdlib.h>
#include <string.h>

const char *check_driver_name(int version, char *buf, size_t size)
{
	int branch = req_driver_branch(version);
	if (branch)
		snprintf(buf, size, "a CUDA %s driver (branch %d)", cli_version(version), branch);
	else
		snprintf(buf, size, "a CUDA %s driver", cli_version(version));
	return buf;
}

static void print_import_rows(const struct result *r)
{
	int w = 0;
	for (size_t i = 0; i < r->nimports; i++)
		if ((int)strlen(r->imports[i].name) > w)
			w = (int)strlen(r->imports[i].name);
	for (size_t i = 0; i < r->nimports; i++) {
		const struct import *im = &r->imports[i];
		if (im->idx < 0)
			printf("  %-*s  %5s  unknown (not in the CUDA %s headers cushim was built from)\n", w,
			       im->name, "?", cli_version(CUDA_VERSION));
		else if (im->adapter)
			printf("  %-*s  %5s  adapted: served by %s (%s)\n", w, im->name,
			       cli_version(cushim_syms[im->idx].version), im->adapter->older, im->adapter->condition);
		else
			printf("  %-*s  %5s%s\n", w, im->name, cli_version(cushim_syms[im->idx].version),
			       im->missing ? "  missing" : "");
	}
}

static void print_imports_against(const struct result *r, const struct opts *o, size_t known)
{
	char who[96];
	if (o->shim)
		snprintf(who, sizeof who, "the driver here (CUDA %s)", cli_version(o->versus));
	else
		snprintf(who, sizeof who, "a CUDA %s driver", cli_version(o->versus));
	if (r->nmissing && known == 1)
		printf("%s: %s lacks its one driver import\n", r->file, who);
	else if (r->nmissing)
		printf("%s: %s lacks %d of its %zu driver imports\n", r->file, who, r->nmissing, known);
	else if (known == 1)
		printf("%s: %s provides its one driver import\n", r->file, who);
	else
		printf("%s: %s provides all %zu driver imports\n", r->file, who, known);
	if (r->nadapted)
		printf("%s: %d import%s newer than %s %s served by cushim's adapters under the conditions above "
		       "(CUSHIM_ADAPT=0 turns them off)\n", r->file, r->nadapted, r->nadapted == 1 ? "" : "s",
		       who, r->nadapted == 1 ? "is" : "are");
}

static int cuda_free(const struct result *r)
{
	return r->rt.linkage == RT_NONE && !r->gpu.list.n && !r->gpu.error[0] && !r->loads.n && !r->built.version;
}

static void print_imports(const struct result *r, const struct opts *o)
{
	size_t known = r->nimports - (size_t)r->nunknown;
	if (r->nimports == 0) {
		printf("imports no CUDA driver function%s\n", cuda_free(r) ? "; any driver will do" :
		       r->rt.linkage == RT_STATIC || r->rt.linkage == RT_LOADED ?
		       " (its runtime opens the driver at run time)" : r->loads.n ? " (it loads CUDA at run time)" : "");
		return;
	}
	if (known)
		printf("needs a CUDA %s driver (%zu driver import%s)\n", cli_version(r->needs), known,
		       known == 1 ? "" : "s");
	else
		printf("imports only driver functions unknown to this table\n");
	print_import_rows(r);
	if (o->versus && known)
		print_imports_against(r, o, known);
}

/* "the CUDA 13.0 runtime", "the CUDA 13 runtime", "a CUDA runtime". */
static const char *runtime_name(const struct cli_runtime *rt, char *buf, size_t size)
{
	if (!rt->version)
		snprintf(buf, size, "a CUDA runtime of a version cushim cannot tell");
	else if (rt->major_only)
		snprintf(buf, size, "the CUDA %d runtime", rt->version / 1000);
	else if (rt->at_least)
		snprintf(buf, size, "a CUDA runtime of version %s or later", cli_version(rt->version));
	else
		snprintf(buf, size, "the CUDA %s runtime", cli_version(rt->version));
	return buf;
}

static void print_runtime(const struct result *r)
{
	const struct cli_runtime *rt = &r->rt;
	char name[96], d[64];
	if (rt->linkage == RT_NONE)
		return;
	if (rt->linkage == RT_IMPORTED) {
		printf("%s: calls the CUDA runtime (%s) but names no runtime library: the runtime of the program "
		       "that loads it serves those calls, and its version sets the driver needed\n", r->file,
		       rt->used_why);
		return;
	}
	runtime_name(rt, name, sizeof name);
	if (rt->linkage == RT_LOADED)
		printf("%s: loads %s at run time (%s)", r->file, name, rt->from);
	else if (rt->linkage == RT_STATIC)
		printf("%s: carries %s, linked statically (%s)", r->file, name, rt->from);
	else if (rt->linkage == RT_DYNAMIC)
		printf("%s: needs %s (%s)", r->file, name, rt->from);
	else
		printf("%s: is %s (%s)", r->file, name, rt->from);
	if (rt->version)
		printf(": it accepts %s or newer", check_driver_name(req_runtime_min_driver(rt->version), d, sizeof d));
	printf("\n");
	if (rt->linkage == RT_SELF)
		return;
	if (rt->used == 1)
		printf("%s: the runtime is used: %s\n", r->file, rt->used_why);
	else if (rt->used == 0)
		printf("%s: the runtime is never called (%s), so it never asks for a driver\n", r->file, rt->used_why);
	else
		printf("%s: whether the runtime is called cannot be told (%s): taken as called\n", r->file, rt->used_why);
}

/* One row of the GPU code listing: images alike, counted. */
static void image_detail(const struct fb_image *im, char *buf, size_t size)
{
	int need = req_ptx_isa_cuda(im->isa_major, im->isa_minor);
	size_t n = 0;
	if (im->empty)
		n = (size_t)snprintf(buf, size, "no kernels in it");
	else if (im->kind == FB_PTX && need)
		n = (size_t)snprintf(buf, size, "PTX ISA %d.%d: JIT needs a CUDA %s driver", im->isa_major,
				     im->isa_minor, cli_version(need));
	else if (im->kind == FB_PTX)
		n = (size_t)snprintf(buf, size, "PTX ISA %d.%d: not in cushim's table", im->isa_major, im->isa_minor);
	else if (im->toolkit)
		n = (size_t)snprintf(buf, size, "built by CUDA %s", cli_version(im->toolkit));
	if (im->compressed && n < size)
		snprintf(buf + n, size - n, "%scompressed (%s%s)", n ? ", " : "", fb_method_name(im->method),
			 im->method == FB_ZSTD ? "; the driver that decompresses it: unknown" : "");
}

static int same_row(const struct fb_image *a, const struct fb_image *b)
{
	return a->kind == b->kind && a->arch == b->arch && a->variant == b->variant && a->isa_major == b->isa_major &&
	       a->isa_minor == b->isa_minor && a->toolkit == b->toolkit && a->compressed == b->compressed &&
	       a->method == b->method && a->empty == b->empty;
}

static void print_gpucode(const struct result *r, const struct opts *o)
{
	const struct fb_list *l = &r->gpu.list;
	if (r->gpu.error[0] || (!l->n && !o->ngpus))
		return;
	if (!l->n) {
		printf("%s: GPU code: none\n", r->file);
		return;
	}
	printf("%s: GPU code: %d fatbin%s, %zu image%s\n", r->file, l->nfatbins, l->nfatbins == 1 ? "" : "s", l->n,
	       l->n == 1 ? "" : "s");
	for (size_t i = 0; i < l->n; i++) {
		size_t k, count = 0;
		for (k = 0; k < i && !same_row(&l->img[k], &l->img[i]); k++)
			;
		if (k < i)
			continue; /* listed with the first one like it */
		for (k = i; k < l->n; k++)
			count += same_row(&l->img[k], &l->img[i]);
		char name[48], detail[128] = "";
		image_detail(&l->img[i], detail, sizeof detail);
		printf("  %-4s  %-13s %s", l->img[i].kind == FB_SASS ? "SASS" : l->img[i].kind == FB_PTX ? "PTX" : "?",
		       fb_image_name(&l->img[i], name, sizeof name), detail);
		printf(count > 1 ? " (%zu images)\n" : "\n", count);
	}
	if (r->gpu.unregistered)
		printf("%s: no wrapper in .nvFatBinSegment registers this code, so the CUDA runtime never loads it: the "
		       "library loads its GPU code itself, from data cushim check cannot read; not judged\n", r->file);
}

/* The names of the images, for saying what there is instead: "sm_90, compute_90". */
static void image_names(const struct fb_list *l, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n && n + 40 < size; i++) {
		char name[48];
		fb_image_name(&l->img[i], name, sizeof name);
		if (l->img[i].empty || strstr(buf, name))
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", name);
	}
}

const char *check_gpu_name(const struct opts *o, int i, char *buf, size_t size)
{
	char v[2] = { o->gpu_variant[i], '\0' };
	snprintf(buf, size, "sm_%d%d%s", o->gpus[i].major, o->gpus[i].minor, v);
	return buf;
}

/* The family of GPUs named by sm_XYf, whose members differ in what they run. */
static void family_words(const struct result *r, const struct opts *o, int i, char *buf, size_t size)
{
	char name[48], g[16];
	const struct fb_image *im = r->v.fits[i].image;
	if (im && im->variant == 'a')
		snprintf(buf, size, "unknown: %s is a family of GPUs, and its %s %s runs on sm_%d%d alone; name "
			 "the GPU (--gpu=sm_%d%d, ...)", check_gpu_name(o, i, g, sizeof g),
			 im->kind == FB_SASS ? "SASS" : "PTX", fb_image_name(im, name, sizeof name), im->arch / 10,
			 im->arch % 10, o->gpus[i].major, o->gpus[i].minor);
	else
		snprintf(buf, size, "unknown: %s is a family of GPUs, and only its later GPUs have SASS here; name the "
			 "GPU (--gpu=sm_%d%d, ...)", check_gpu_name(o, i, g, sizeof g), o->gpus[i].major,
			 o->gpus[i].minor);
}

/* SASS whose running on the GPU NVIDIA's documentation does not settle. */
static void unknown_words(const struct result *r, const struct opts *o, int i, char *buf, size_t size)
{
	char name[48], g[16];
	const struct fb_image *im = r->v.fits[i].image;
	fb_image_name(im, name, sizeof name);
	check_gpu_name(o, i, g, sizeof g);
	if (im->arch == 101 || im->arch == 110)
		snprintf(buf, size, "unknown: its only code for it is SASS %s, and Jetson Thor is sm_101 to CUDA 12.8 "
			 "and 12.9, sm_110 from CUDA 13 on; NVIDIA does not say whether a driver runs code built for "
			 "one name on %s", name, g);
	else
		snprintf(buf, size, "unknown: its only code for it is SASS %s, and NVIDIA's binary compatibility "
			 "rules do not name %s", name, g);
}

/* Why SASS of the GPU's major does not run there, when a Tegra GPU is why:
 * ": SASS runs on a Tegra GPU ...", else "". */
static const char *tegra_words(const struct result *r, const struct opts *o, int i)
{
	int gpu = o->gpus[i].major * 10 + o->gpus[i].minor;
	for (size_t k = 0; k < r->gpu.list.n; k++) {
		const struct fb_image *im = &r->gpu.list.img[k];
		if (im->kind != FB_SASS || im->empty || im->arch / 10 != o->gpus[i].major || im->arch % 10 > o->gpus[i].minor ||
		    im->variant == 'a')
			continue;
		if (gpu_tegra(gpu))
			return ": a Tegra GPU runs only SASS built for its own compute capability (NVIDIA's binary "
			       "compatibility holds between desktop GPUs alone)";
		if (gpu_tegra(im->arch))
			return ": SASS built for a Tegra GPU runs on no other (NVIDIA's binary compatibility holds "
			       "between desktop GPUs alone)";
	}
	return "";
}

/* What a GPU runs of the file, in words. */
static void fit_words(const struct result *r, const struct opts *o, int i, char *buf, size_t size)
{
	const struct gpu_fit *fit = &r->v.fits[i];
	char name[48], have[256], d[64];
	if (fit->image)
		fb_image_name(fit->image, name, sizeof name);
	if (fit->how == GPU_UNKNOWN)
		unknown_words(r, o, i, buf, size);
	else if (r->v.fit_unknown[i])
		family_words(r, o, i, buf, size);
	else if (fit->how == GPU_SASS && o->versus && fit->image->toolkit / 1000 > o->versus / 1000)
		snprintf(buf, size, "runs its SASS %s (built by CUDA %s: NVIDIA does not promise that a CUDA %s "
			 "driver loads it)", name, cli_version(fit->image->toolkit), cli_version(o->versus));
	else if (fit->how == GPU_SASS)
		snprintf(buf, size, "runs its SASS %s", name);
	else if (fit->how == GPU_PTX && fit->ptx_driver)
		snprintf(buf, size, "no SASS for it; the driver JIT-compiles its PTX %s (PTX ISA %d.%d: %s "
			 "or newer)", name, fit->image->isa_major, fit->image->isa_minor,
			 check_driver_name(fit->ptx_driver, d, sizeof d));
	else if (fit->how == GPU_PTX)
		snprintf(buf, size, "no SASS for it; the driver JIT-compiles its PTX %s", name);
	else if (fit->how == GPU_PTX_TOO_NEW)
		snprintf(buf, size, "no SASS for it, and its PTX %s (PTX ISA %d.%d) needs %s to be "
			 "JIT-compiled: a CUDA %s driver cannot", name, fit->image->isa_major, fit->image->isa_minor,
			 check_driver_name(fit->ptx_driver, d, sizeof d), cli_version(o->versus));
	else {
		image_names(&r->gpu.list, have, sizeof have);
		snprintf(buf, size, "no code that runs there (it has %s: no SASS for it, no PTX it can JIT-compile)%s",
			 have, tegra_words(r, o, i));
	}
}

static void print_fits(const struct result *r, const struct opts *o)
{
	char words[512], g[16], all[256] = "";
	if (r->gpu.error[0] || !o->ngpus)
		return;
	for (int i = 0, n = 0; i < o->ngpus; i++)
		n += snprintf(all + n, sizeof all - (size_t)n, "%s%s", i ? ", " : "", check_gpu_name(o, i, g, sizeof g));
	if (!cli_gpucode_kernels(&r->gpu)) {
		printf("%s: on %s: no GPU code of its own to run (code it loads at run time, from a .fatbin file "
		       "say, is not seen here: check that file too)\n", r->file, all);
		return;
	}
	for (int i = 0; i < o->ngpus; i++) {
		fit_words(r, o, i, words, sizeof words);
		printf("%s: on %s: %s\n", r->file, check_gpu_name(o, i, g, sizeof g), words);
	}
}

static void runtime_reason(const struct result *r, const struct opts *o, char *buf, size_t size)
{
	char name[96], hint[96] = "";
	int need = r->v.runtime_need;
	if (r->v.by_built) {
		check_built_reason(r, o, buf, size);
		return;
	}
	runtime_name(&r->rt, name, sizeof name);
	if (req_runtime_minor_compat(r->rt.version) && o->versus >= 11000)
		snprintf(hint, sizeof hint, "; built with a CUDA %d.x toolkit it would start", o->versus / 1000);
	snprintf(buf, size, "%s refuses drivers older than CUDA %s (cudaErrorInsufficientDriver), and cushim "
		 "cannot change that: it needs a driver of branch %d or later%s", name, cli_version(need),
		 req_driver_branch(need), hint);
}

static void imports_reason(const struct result *r, char *buf, size_t size)
{
	snprintf(buf, size, "the driver lacks %d of its driver imports; cushim can help: under it (cushim run) the "
		 "program loads, and those calls return CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", r->nmissing);
}

/* "a CUDA 12.0 driver (branch 525)", "sm_90", or both with "with"; the GPUs
 * joined by "and".  unknown: the GPUs where whether it runs is unknown
 * instead, else those are left out. */
static void target_words(const struct result *r, const struct opts *o, int unknown, char *buf, size_t size)
{
	char d[64], g[16];
	size_t n = 0;
	int k = 0, count = 0;
	buf[0] = '\0';
	if (o->versus && !unknown)
		n = (size_t)snprintf(buf, size, "%s", check_driver_name(o->versus, d, sizeof d));
	for (int i = 0; i < o->ngpus; i++)
		count += !r->v.fit_unknown[i] == !unknown;
	for (int i = 0; i < o->ngpus && n < size; i++) {
		if (!r->v.fit_unknown[i] != !unknown)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? (k + 1 == count ? " and " : ", ") :
				      n ? " with " : "", check_gpu_name(o, i, g, sizeof g));
		k++;
	}
}

static const char *decider_words(const struct result *r)
{
	switch (r->v.decided_by) {
	case BY_RUNTIME: return r->v.by_built ? "the CUDA release it was built for" : "its CUDA runtime";
	case BY_GPU_CODE: return r->v.code.ptx_only ? "its GPU code, PTX alone, which the driver JIT-compiles" :
				 "the PTX the GPU would JIT-compile";
	default: return "its driver imports";
	}
}

/* One line a reason: the first is the verdict, the rest follow it. */
static void say_blocker(const struct result *r, const char *head, const char *why, int *said)
{
	if ((*said)++)
		printf("%s: also %s: %s\n", r->file, head, why);
	else
		printf("%s: verdict: will not run %s: %s\n", r->file, head, why);
}

void check_ptx_only_words(const struct result *r, const struct opts *o, char *buf, size_t size)
{
	const struct gpu_code_need *c = &r->v.code;
	char name[48], d[64];
	int n = snprintf(buf, size, "its GPU code is PTX alone (%s, PTX ISA %d.%d; no SASS), which every GPU must "
			 "JIT-compile", fb_image_name(c->image, name, sizeof name), c->image->isa_major, c->image->isa_minor);
	if (n < 0 || (size_t)n >= size)
		return;
	if (c->beyond)
		snprintf(buf + n, size - (size_t)n, ", and its ISA is newer than any driver cushim knows JIT-compiles");
	else if (c->need && o->versus && c->need > o->versus)
		snprintf(buf + n, size - (size_t)n, ": that needs %s, so it runs on no GPU with a CUDA %s driver",
			 check_driver_name(c->need, d, sizeof d), cli_version(o->versus));
	else if (c->need)
		snprintf(buf + n, size - (size_t)n, ": that needs %s or newer", check_driver_name(c->need, d, sizeof d));
}

static void print_gpu_blockers(const struct result *r, const struct opts *o, int *said)
{
	char why[640], head[160], d[64], g[16];
	if (!o->ngpus) {
		snprintf(head, sizeof head, "on %s", check_driver_name(o->versus, d, sizeof d));
		check_ptx_only_words(r, o, why, sizeof why - 40);
		strcat(why, "; cushim cannot change that");
		say_blocker(r, head, why, said);
		return;
	}
	for (int i = 0; i < o->ngpus; i++) {
		const struct gpu_fit *fit = &r->v.fits[i];
		if ((fit->how != GPU_NO_CODE && fit->how != GPU_PTX_TOO_NEW) || r->v.fit_unknown[i])
			continue;
		snprintf(head, sizeof head, "on %s", check_gpu_name(o, i, g, sizeof g));
		if (fit->how == GPU_PTX_TOO_NEW)
			snprintf(head + strlen(head), sizeof head - strlen(head), " with %s",
				 check_driver_name(o->versus, d, sizeof d));
		fit_words(r, o, i, why, sizeof why - 40);
		strcat(why, "; cushim cannot change that");
		say_blocker(r, head, why, said);
	}
}

static void print_blockers(const struct result *r, const struct opts *o)
{
	char why[1024], head[160], d[64];
	int said = 0;
	snprintf(head, sizeof head, "on %s", check_driver_name(o->versus, d, sizeof d));
	if (r->v.blocked[BY_RUNTIME]) {
		runtime_reason(r, o, why, sizeof why);
		say_blocker(r, head, why, &said);
	}
	if (r->v.blocked[BY_GPU_CODE])
		print_gpu_blockers(r, o, &said);
	if (r->v.blocked[BY_IMPORTS]) {
		imports_reason(r, why, sizeof why);
		strcat(head, " without cushim");
		say_blocker(r, head, why, &said);
	}
	for (size_t k = 0; k < r->nunfound; k++) {
		if (!r->unfound[k].fatal)
			continue;
		check_unfound_words(&r->unfound[k], why, sizeof why);
		say_blocker(r, "on any driver", why, &said);
	}
}

/* A library nothing provides that is not CUDA's: the program cannot load
 * here, but that says nothing of the driver. */
static void print_cautions(const struct result *r)
{
	char why[1024];
	for (size_t k = 0; k < r->nunfound; k++) {
		if (r->unfound[k].fatal)
			continue;
		check_unfound_words(&r->unfound[k], why, sizeof why);
		printf("%s: caution: %s (not its rpath or runpath, not the tree's own libraries, not the system's): "
		       "it cannot load where that library is missing; not a CUDA library, so the verdict does not "
		       "rest on it\n", r->file, why);
	}
}

static void print_verdict(const struct result *r, const struct opts *o)
{
	char target[256], unknown[256], d[64];
	print_cautions(r);
	if ((cuda_free(r) && !r->nimports && !r->nfatal) || r->gpu.error[0])
		return;
	if (check_status(r) == CLI_FAIL) {
		print_blockers(r, o);
		return;
	}
	target_words(r, o, 0, target, sizeof target);
	target_words(r, o, 1, unknown, sizeof unknown);
	printf("%s: verdict: ", r->file);
	if (target[0]) {
		printf("runs on %s", target);
		if (r->nadapted)
			printf(" under cushim, whose adapters serve %d import%s the driver lacks", r->nadapted,
			       r->nadapted == 1 ? "" : "s");
	}
	if (unknown[0])
		printf("%sunknown on %s (said above)", target[0] ? "; " : "", unknown);
	if (target[0] || unknown[0])
		printf(r->v.need ? "; " : "\n");
	if (!r->v.need) {
		if (!target[0] && !unknown[0])
			printf("any driver will do\n");
		return;
	}
	printf("%s%s %s or newer, set by %s", r->nadapted && r->v.decided_by == BY_IMPORTS ? "without cushim " : "",
	       target[0] || unknown[0] || r->nadapted ? "it needs" : "needs", check_driver_name(r->v.need, d, sizeof d),
	       decider_words(r));
	if (r->v.decided_by != BY_IMPORTS && r->needs)
		printf(" (its driver imports need CUDA %s)", cli_version(r->needs));
	printf("\n");
}

/* A JIT compiler carried: the driver the PTX it emits by default needs. */
static void print_jit(const struct result *r, const struct opts *o)
{
	char d[64];
	const struct cli_jit *j = &r->jit;
	if (j->kind == JIT_NONE)
		return;
	printf("%s: carries %s %s%s (%s): ", r->file, cli_jit_name(j->kind), j->version ? cli_version(j->version) :
	       "of unknown version", j->major_only ? ".x" : "", j->from);
	if (!j->need)
		printf("the driver the PTX it emits needs is unknown (its exact version is not recorded)\n");
	else
		printf("the PTX it emits by default needs %s or newer%s; a program that asks it for SASS "
		       "(-arch=sm_XY) needs no newer driver for that\n", check_driver_name(j->need, d, sizeof d),
		       o->versus && j->need > o->versus ? ", newer than the driver given" : "");
}

void check_print_text(const struct result *r, const struct opts *o)
{
	if (r->error)
		return; /* said on stderr */
	if (r->raw_fatbin) {
		printf("%s: a %s file\n", r->file, r->raw_fatbin == RAW_PTX ? "PTX" : r->raw_fatbin == RAW_CUBIN ?
		       "cubin" : "fatbin");
	} else {
		if (r->native == 2)
			printf("%s: a binary for %s (this cushim is built for %s)\n", r->file, r->machine,
			       cli_native_machine());
		printf(r->needed_by ? "%s (needed by %s): " : "%s: ", r->file, r->needed_by);
		print_imports(r, o);
		print_runtime(r);
		check_print_loads(r);
		print_jit(r, o);
	}
	print_gpucode(r, o);
	print_fits(r, o);
	print_verdict(r, o);
}
