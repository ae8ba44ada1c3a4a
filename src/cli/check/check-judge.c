/* cushim check: the verdict for one file.  Three things must hold for it to
 * run: the driver provides its driver imports (where cushim can help: under
 * it a missing import returns an error instead of stopping the program at
 * load time, and some are served by an older variant), the driver is one
 * its CUDA runtime accepts (which no shim changes: the runtime asks the
 * driver its version and refuses an older one), and the GPU runs its code
 * (SASS for it, or PTX the driver can JIT-compile). */
#include "config.h"
#include "check-steps.h"
#include "requirements.h"
#include <stdlib.h>
#include <string.h>

static int cmp_import(const void *a, const void *b)
{
	const struct import *x = a, *y = b;
	int vx = x->idx >= 0 ? cushim_syms[x->idx].version : 0, vy = y->idx >= 0 ? cushim_syms[y->idx].version : 0;
	if ((x->idx < 0) != (y->idx < 0))
		return x->idx < 0 ? -1 : 1; /* unknown first */
	if (vx != vy)
		return vy > vx ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void judge_imports(struct result *r, const struct opts *o)
{
	for (size_t i = 0; i < r->nimports; i++) {
		struct import *im = &r->imports[i];
		if (im->idx < 0) {
			r->nunknown++;
			continue;
		}
		const struct cushim_sym *s = &cushim_syms[im->idx];
		if (s->version > r->needs)
			r->needs = s->version;
		if (!o->versus)
			continue;
		if (o->shim && o->shim->have_missing)
			im->missing = o->shim->lacks[im->idx] != 0;
		else
			im->missing = s->version > o->versus;
		if (im->missing && (!o->shim || !o->shim->have_missing || o->shim->lacks[im->idx] == 2) &&
		    (im->adapter = cli_adapter_for(im->idx, o->versus)) != NULL) {
			im->missing = 0;
			r->nadapted++;
		}
		r->nmissing += im->missing;
	}
	if (r->nimports) /* imports is NULL then: qsort's pointer must not be */
		qsort(r->imports, r->nimports, sizeof *r->imports, cmp_import);
}

/* The runtime counts unless the file is known not to call it; the release
 * the file was built for counts as its runtime would (check-loads.c), where
 * it asks more. */
static void judge_runtime(struct result *r, const struct opts *o)
{
	struct verdict *v = &r->v;
	if (r->rt.linkage != RT_NONE && r->rt.version && r->rt.used != 0)
		v->runtime_need = req_runtime_min_driver(r->rt.version);
	int built = r->built.version ? req_runtime_min_driver(r->built.version) : 0;
	if (built > v->runtime_need)
		v->runtime_need = built, v->by_built = 1;
	if (o->versus && o->versus < v->runtime_need)
		v->blocked[BY_RUNTIME] = 1;
}

/* A family named (sm_100f: any GPU of major 10 from 10.0 up) is judged as its
 * first GPU where that answer holds for all of them: code that is not
 * arch-specific for X.Y runs on X.Z, Z >= Y, too.  It does not hold when the
 * code found is arch-specific (sm_100a runs on 10.0 alone), or when a later
 * GPU of the family has SASS of its own and the first has none. */
static int family_differs(const struct fb_list *l, struct gpu_arch g, const struct gpu_fit *fit)
{
	if (fit->image && fit->image->variant == 'a')
		return 1;
	if (fit->how == GPU_SASS)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->img[i].kind == FB_SASS && !l->img[i].empty && l->img[i].arch / 10 == g.major &&
		    l->img[i].arch % 10 > g.minor)
			return 1;
	return 0;
}

static void judge_gpus(struct result *r, const struct opts *o)
{
	struct verdict *v = &r->v;
	if (r->gpu.error[0] || !cli_gpucode_kernels(&r->gpu))
		return;
	for (int i = 0; i < o->ngpus; i++) {
		struct gpu_fit *fit = &v->fits[i];
		gpu_fit(&r->gpu.list, o->gpus[i], o->versus, fit);
		if (fit->how == GPU_UNKNOWN)
			v->fit_unknown[i] = 1;
		else if (o->gpu_variant[i] == 'f' && family_differs(&r->gpu.list, o->gpus[i], fit))
			v->fit_unknown[i] = 1;
		else if (fit->how == GPU_NO_CODE || fit->how == GPU_PTX_TOO_NEW)
			v->blocked[BY_GPU_CODE] = 1;
	}
}

/* No GPU named: code that is PTX alone runs on no GPU where the driver
 * cannot JIT-compile it; SASS runs on the GPUs it was built for, whatever
 * the driver. */
static void judge_code(struct result *r, const struct opts *o)
{
	struct verdict *v = &r->v;
	if (o->ngpus || r->gpu.error[0] || !cli_gpucode_kernels(&r->gpu))
		return;
	gpu_code_need(&r->gpu.list, &v->code);
	if (v->code.ptx_only && o->versus && (v->code.beyond || v->code.need > o->versus))
		v->blocked[BY_GPU_CODE] = 1;
}

/* The driver the file needs overall, and which requirement sets it. */
static void judge_need(struct result *r, const struct opts *o)
{
	struct verdict *v = &r->v;
	v->need = r->needs;
	v->decided_by = r->needs ? BY_IMPORTS : BY_NONE;
	for (int i = 0; i < o->ngpus; i++)
		if (!v->fit_unknown[i] && (v->fits[i].how == GPU_PTX || v->fits[i].how == GPU_PTX_TOO_NEW))
			if (v->fits[i].ptx_driver > v->need)
				v->need = v->fits[i].ptx_driver, v->decided_by = BY_GPU_CODE;
	if (v->code.need > v->need)
		v->need = v->code.need, v->decided_by = BY_GPU_CODE;
	if (v->runtime_need && v->runtime_need >= v->need)
		v->need = v->runtime_need, v->decided_by = BY_RUNTIME;
}

void check_judge(struct result *r, const struct opts *o)
{
	if (r->error)
		return;
	judge_imports(r, o);
	judge_runtime(r, o);
	judge_gpus(r, o);
	judge_code(r, o);
	judge_need(r, o);
	r->v.blocked[BY_IMPORTS] = r->nmissing > 0;
	r->v.jit_too_new = o->versus && r->jit.need > o->versus;
}

int check_fit_unknown(const struct result *r, const struct opts *o)
{
	if (r->error || r->gpu.error[0] || !cli_gpucode_kernels(&r->gpu))
		return 0;
	for (int i = 0; i < o->ngpus; i++)
		if (r->v.fit_unknown[i])
			return 1;
	return 0;
}

const char *check_runs_json(const struct result *r, const struct opts *o)
{
	int status = check_status(r);
	return status == CLI_FAIL ? "false" : status == CLI_ERROR || check_fit_unknown(r, o) ? "null" : "true";
}

int check_status(const struct result *r)
{
	if (r->error || r->gpu.error[0])
		return CLI_ERROR;
	if (r->nfatal)
		return CLI_FAIL;
	for (int by = BY_RUNTIME; by <= BY_IMPORTS; by++)
		if (r->v.blocked[by])
			return CLI_FAIL;
	return CLI_OK;
}
