/* Which image of a fatbin a GPU runs, after NVIDIA's rules (CUDA C++
 * Programming Guide, "Binary Compatibility" and "PTX Compatibility"; "NVIDIA
 * Blackwell and NVIDIA CUDA 12.9 Introduce Family-Specific Architecture
 * Features"): SASS for sm_XY runs on X.Z for Z >= Y, sm_XYa only on X.Y,
 * sm_XYf on X.Z for Z >= Y; PTX for compute_XY is JIT-compiled for any GPU of
 * compute capability X.Y or later, compute_XYa only for X.Y, compute_XYf for
 * X.Z with Z >= Y, by a driver that knows its PTX ISA. */
#include "gpufit.h"
#include "requirements.h"
#include <limits.h>
#include <string.h>

static int sass_runs(const struct fb_image *im, struct cli_gpu_arch g)
{
	if (im->arch / 10 != g.major)
		return 0;
	return im->variant == 'a' ? im->arch % 10 == g.minor : im->arch % 10 <= g.minor;
}

static int ptx_targets(const struct fb_image *im, struct cli_gpu_arch g)
{
	if (im->variant == 'a')
		return im->arch == g.major * 10 + g.minor;
	if (im->variant == 'f')
		return im->arch / 10 == g.major && im->arch % 10 <= g.minor;
	return im->arch <= g.major * 10 + g.minor;
}

void cli_gpu_fit(const struct fb_list *l, struct cli_gpu_arch gpu, int driver, struct cli_gpu_fit *fit)
{
	memset(fit, 0, sizeof *fit);
	for (size_t i = 0; i < l->n; i++) {
		const struct fb_image *im = &l->img[i];
		if (im->kind == FB_SASS && !im->empty && sass_runs(im, gpu)) {
			fit->how = GPU_SASS;
			fit->image = im;
			return;
		}
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct fb_image *im = &l->img[i];
		if (im->kind != FB_PTX || im->empty || !ptx_targets(im, gpu))
			continue;
		int need = cli_ptx_isa_cuda(im->isa_major, im->isa_minor);
		/* an ISA newer than every release known needs a newer driver than any */
		int newer = !need && im->isa_major * 10 + im->isa_minor > cli_ptx_isa_max(INT_MAX);
		int ok = !driver || (!need && !newer) || (need && need <= driver);
		if (fit->how == GPU_PTX && !ok)
			continue;
		if (fit->how != GPU_PTX && !ok && fit->image && need >= fit->ptx_driver)
			continue; /* keep the too-new PTX that needs the least */
		fit->how = ok ? GPU_PTX : GPU_PTX_TOO_NEW;
		fit->image = im;
		fit->ptx_driver = need;
	}
}
