/* Which image of a fatbin a GPU runs, after NVIDIA's rules:
 *
 * - CUDA C++ Programming Guide, "Binary Compatibility": "a cubin object
 *   generated for compute capability X.y will only execute on devices of
 *   compute capability X.z where z>=y", and its note: "Binary compatibility
 *   is supported only for the desktop. It is not supported for Tegra. Also,
 *   the binary compatibility between desktop and Tegra is not supported."
 *   So SASS for sm_XY runs on X.Z, Z >= Y, between desktop GPUs; a Tegra GPU
 *   (3.2, 5.3, 6.2, 7.2, 8.7, 10.1, 11.0) runs SASS of its own compute
 *   capability alone, and its SASS runs on no other GPU: sm_87 under code
 *   built for sm_80 and sm_86 has nothing to run.
 * - "PTX Compatibility": PTX for compute_XY is JIT-compiled for any GPU of
 *   compute capability X.Y or later, by a driver that knows its PTX ISA.
 * - "NVIDIA Blackwell and NVIDIA CUDA 12.9 Introduce Family-Specific
 *   Architecture Features" (NVIDIA technical blog): sm_XYa code, SASS or
 *   PTX, runs on X.Y alone and is never JIT-compiled for another GPU;
 *   sm_XYf on X.Z for Z >= Y (sm_100f on 10.0 and 10.3).
 * - CUDA 13.0's release notes and NVIDIA's libraries' notes ("Thor SM
 *   renaming from sm_101 to sm_110 starting from CUDA 13.0"): Jetson Thor is
 *   10.1 to CUDA 12.8 and 12.9 and 11.0 from CUDA 13 on.  Whether a driver
 *   runs SASS built for the other name on it is not documented: unknown.
 * - 8.8 (CUDA 13.0's sm_88) is named nowhere in NVIDIA's compatibility
 *   documentation: whether other 8.x SASS runs on it is unknown. */
#include "gpufit.h"
#include "requirements.h"
#include <limits.h>
#include <string.h>

static const int tegra_archs[] = { 32, 53, 62, 72, 87, 101, 110 };

int gpu_tegra(int arch)
{
	for (size_t i = 0; i < sizeof tegra_archs / sizeof *tegra_archs; i++)
		if (tegra_archs[i] == arch)
			return 1;
	return 0;
}

int gpu_sass_runs(const struct fb_image *im, struct gpu_arch g)
{
	int gpu = g.major * 10 + g.minor;
	if (im->arch == gpu)
		return 1;
	if ((im->arch == 101 && gpu == 110) || (im->arch == 110 && gpu == 101))
		return -1; /* one GPU, renamed by CUDA 13 */
	if (im->arch / 10 != g.major || im->variant == 'a' || im->arch % 10 > g.minor)
		return 0;
	if (gpu_tegra(gpu) || gpu_tegra(im->arch))
		return 0;
	return gpu == 88 ? -1 : 1;
}

static int ptx_targets(const struct fb_image *im, struct gpu_arch g)
{
	if (im->variant == 'a')
		return im->arch == g.major * 10 + g.minor;
	if (im->variant == 'f')
		return im->arch / 10 == g.major && im->arch % 10 <= g.minor;
	return im->arch <= g.major * 10 + g.minor;
}

/* The driver that JIT-compiles PTX of this image's ISA (0 unknown), and
 * whether the ISA is newer than every release known. */
static int ptx_need(const struct fb_image *im, int *newer)
{
	int need = req_ptx_isa_cuda(im->isa_major, im->isa_minor);
	*newer = !need && im->isa_major * 10 + im->isa_minor > req_ptx_isa_max(INT_MAX);
	return need;
}

static void fit_ptx(const struct fb_list *l, struct gpu_arch gpu, int driver, struct gpu_fit *fit)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct fb_image *im = &l->img[i];
		if (im->kind != FB_PTX || im->empty || !ptx_targets(im, gpu))
			continue;
		int newer, need = ptx_need(im, &newer);
		int ok = !driver || (!need && !newer) || (need && need <= driver);
		if (fit->how == GPU_PTX && !ok)
			continue;
		if (fit->how == GPU_PTX_TOO_NEW && !ok && need >= fit->ptx_driver)
			continue; /* keep the too-new PTX that needs the least */
		fit->how = ok ? GPU_PTX : GPU_PTX_TOO_NEW;
		fit->image = im;
		fit->ptx_driver = need;
	}
}

void gpu_fit(const struct fb_list *l, struct gpu_arch gpu, int driver, struct gpu_fit *fit)
{
	const struct fb_image *unknown = NULL;
	memset(fit, 0, sizeof *fit);
	for (size_t i = 0; i < l->n; i++) {
		const struct fb_image *im = &l->img[i];
		if (im->kind != FB_SASS || im->empty)
			continue;
		int runs = gpu_sass_runs(im, gpu);
		if (runs > 0 && (!fit->image || im->arch > fit->image->arch)) {
			fit->how = GPU_SASS; /* the driver takes the nearest: the highest that runs */
			fit->image = im;
		}
		if (runs < 0 && !unknown)
			unknown = im;
	}
	if (fit->how == GPU_SASS)
		return;
	fit_ptx(l, gpu, driver, fit);
	if (unknown && fit->how != GPU_PTX) {
		fit->how = GPU_UNKNOWN;
		fit->image = unknown;
		fit->ptx_driver = 0;
	}
}

void gpu_code_need(const struct fb_list *l, struct gpu_code_need *out)
{
	int least = INT_MAX;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < l->n; i++) {
		const struct fb_image *im = &l->img[i];
		if (im->empty)
			continue;
		if (im->kind != FB_PTX) {
			memset(out, 0, sizeof *out);
			return; /* SASS (or code of another kind) runs without a JIT */
		}
		int newer, need = ptx_need(im, &newer);
		int rank = newer ? INT_MAX : need; /* an ISA older than the table asks for nothing known */
		if (!out->image || rank < least) {
			least = rank;
			out->image = im;
		}
	}
	out->ptx_only = out->image != NULL;
	out->beyond = out->ptx_only && least == INT_MAX;
	out->need = out->ptx_only && !out->beyond ? least : 0;
}
