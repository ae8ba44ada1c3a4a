/* A module the GPU cannot run.  The module, library and link loaders get a
 * wrapper (no other export does) that, when the driver refuses an image
 * with one of the codes that mean "no code this GPU and driver can run",
 * reads the image with the reader `cushim check` uses (modimage.c), from
 * the copy explain-image.c makes of what that reader looks at, and says
 * once per image what it holds (or that it cannot be read), what the GPU
 * and the driver are, and why.
 * On success the wrapper costs a call and a test (make bench). */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "settings.h"
#include "errors.h"
#include "explain.h"
#include "explain-module.h"
#include "explain-image.h"
#include "gpufit.h"
#include "modimage.h"
#include "requirements.h"
#include "peek.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NSEEN 64

/* ---- once per image: its address, or its path's hash ---- */
static uintptr_t seen[NSEEN];

static int first_time(const void *image, const char *path)
{
	uintptr_t key = (uintptr_t)image;
	if (path)
		for (key = 5381; *path; path++)
			key = key * 33 + (unsigned char)*path;
	key |= 1; /* never 0, the empty slot */
	for (int k = 0; k < NSEEN; k++) {
		uintptr_t was = 0;
		if (__atomic_compare_exchange_n(&seen[k], &was, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 1;
		if (was == key)
			return 0;
	}
	return 0; /* said for NSEEN images already */
}

/* ---- the GPU: the current context's device, else device 0 (a library
 * loads for every device) ---- */
static struct gpu_arch current_gpu(void)
{
	struct gpu_arch g = { 0, 0 };
	CUdevice dev = -1;
	cushim_fn_cuCtxGetDevice *get = (cushim_fn_cuCtxGetDevice *)cushim_real[CUSHIM_IDX_cuCtxGetDevice];
	cushim_fn_cuDeviceGet *first = (cushim_fn_cuDeviceGet *)cushim_real[CUSHIM_IDX_cuDeviceGet];
	cushim_fn_cuDeviceGetAttribute *attr =
		(cushim_fn_cuDeviceGetAttribute *)cushim_real[CUSHIM_IDX_cuDeviceGetAttribute];
	if ((!get || get(&dev) != CUDA_SUCCESS) && first && first(&dev, 0) != CUDA_SUCCESS)
		dev = -1;
	if (!attr || dev < 0 ||
	    attr(&g.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
	    attr(&g.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS || g.major <= 0)
		g.major = g.minor = 0;
	return g;
}

/* ---- why, in one sentence ---- */
static void reason_fit(const struct gpu_fit *fit, struct gpu_arch g, int isa, char *buf, size_t size)
{
	char name[64], v[16];
	if (fit->how == GPU_NO_CODE)
		snprintf(buf, size, "It has no SASS for sm_%d%d and no PTX that can be compiled for it: rebuild it "
			 "for this GPU (nvcc -gencode arch=compute_%d%d,code=sm_%d%d) or with PTX that targets it.",
			 g.major, g.minor, g.major, g.minor, g.major, g.minor);
	else if (fit->how == GPU_PTX_TOO_NEW)
		snprintf(buf, size, "Its only code for this GPU is PTX of ISA %d.%d, newer than this driver compiles "
			 "(ISA %d.%d): it needs %s%s%s; update the driver, or rebuild with SASS for sm_%d%d or with an "
			 "older toolkit.", fit->image->isa_major, fit->image->isa_minor, isa / 10, isa % 10,
			 fit->ptx_driver ? "a driver of CUDA " : "a newer driver than any cushim knows",
			 fit->ptx_driver ? cushim_format_version(fit->ptx_driver, v) : "",
			 fit->ptx_driver ? " or later" : "", g.major, g.minor);
	else if (fit->how == GPU_UNKNOWN)
		snprintf(buf, size, "Its only code for sm_%d%d is SASS %s, built for another compute capability that "
			 "NVIDIA does not promise runs there: rebuild it for this GPU (nvcc -gencode arch=compute_%d%d,"
			 "code=sm_%d%d) or with PTX that targets it.", g.major, g.minor,
			 fb_image_name(fit->image, name, sizeof name), g.major, g.minor, g.major, g.minor);
	else
		snprintf(buf, size, "cushim finds code this GPU can run in it (%s), so the driver refused the image "
			 "itself: it may be corrupt, or compressed in a way this driver cannot read.",
			 fb_image_name(fit->image, name, sizeof name));
}

static void reason(CUresult r, const struct mi_image *im, struct gpu_arch g, int isa, char *buf, size_t size)
{
	struct gpu_fit fit;
	if (r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND) {
		snprintf(buf, size, "The driver cannot load its PTX JIT compiler (libnvidia-ptxjitcompiler.so.1): "
			 "install it with the driver, or ship SASS for this GPU.");
	} else if (r == CUDA_ERROR_INVALID_PTX && !im->error[0]) {
		snprintf(buf, size, "The driver's PTX compiler rejected its PTX: it is malformed or uses what this GPU "
			 "lacks (ptxas -arch=sm_%d%d on it shows the error).", g.major, g.minor);
	} else if (im->error[0] || !im->list.n) {
		snprintf(buf, size, "cushim cannot read it either: %s.", im->error[0] ? im->error : "it holds no code");
	} else if (!g.major) {
		snprintf(buf, size, "The GPU is unknown (no device answers), so cushim cannot tell which image fits.");
	} else {
		gpu_fit(&im->list, g, cushim_state.real_driver_version, &fit);
		reason_fit(&fit, g, isa, buf, size);
	}
}

/* ---- the message ---- */
static int explained(CUresult r)
{
	return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
	       r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_INVALID_SOURCE || r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
}

/* Why the image c cannot be read (path: it is that file), into buf. */
static void unreadable(const struct cushim_image *c, const char *path, char *buf, size_t size)
{
	if (c->why)
		snprintf(buf, size, "%s%s%s", c->why, c->err ? ": " : "", c->err ? strerror(c->err) : "");
	else if (path)
		snprintf(buf, size, "reading it stopped at offset %zu: %s", c->bad,
			 c->err ? strerror(c->err) : "the file is shorter than when it was opened");
	else if (c->bad == 0)
		snprintf(buf, size, "no byte at %p is readable memory", c->at);
	else
		snprintf(buf, size, "its bytes from offset %zu on, at %p, are not readable memory", c->bad,
			 (const void *)((const char *)c->at + c->bad));
}

/* fn returned r for the image c: image (in memory) or the file path (NULL
 * where its path cannot be read: pathless then says where it is). */
static void say(CUresult r, const char *fn, const struct cushim_image *c, const void *image, const char *path,
		const char *pathless)
{
	char text[3000], holds[600], state[700], why[600], gpu[32], drv[16], src[1100];
	struct mi_image im;
	int isa = req_ptx_isa_max(cushim_state.real_driver_version), ok = cushim_image_readable(c);
	struct gpu_arch g = current_gpu();

	mi_read(ok && c->p ? c->p : (const unsigned char *)"", ok ? c->n : 0, &im);
	snprintf(gpu, sizeof gpu, g.major ? "sm_%d%d" : "unknown", g.major, g.minor);
	if (pathless)
		snprintf(src, sizeof src, "%s", pathless);
	else if (path)
		snprintf(src, sizeof src, "%.1000s%s%s", path, ok ? ", " : "", ok ? mi_form_name(im.form) : "");
	else
		snprintf(src, sizeof src, "%s in memory at %p", ok ? mi_form_name(im.form) : "an image", image);
	if (ok) {
		reason(r, &im, g, isa, why, sizeof why);
		snprintf(state, sizeof state, "it holds %s", mi_describe(&im, holds, sizeof holds));
	} else {
		unreadable(c, path, holds, sizeof holds);
		snprintf(state, sizeof state, "it cannot be read (%s), so cushim cannot say what it holds", holds);
		why[0] = '\0';
	}
	snprintf(text, sizeof text, "%s returned %s for %s: %s. This GPU is %s and the driver CUDA %s, "
		 "which compiles PTX up to ISA %d.%d.%s%s", fn, cushim_error_name(r), src, state, gpu,
		 cushim_state.real_driver_version ? cushim_format_version(cushim_state.real_driver_version, drv) :
		 "of unknown version", isa / 10, isa % 10, why[0] ? " " : "", why);
	cushim_cause("module", text);
	mi_free(&im);
}

/* fn refused the image at `image` (size bytes, 0: as its header says) or
 * the file `path` with r.  The path is the program's string: read through
 * the checked copy, as the image is. */
static void refused(CUresult r, const char *fn, const void *image, size_t size, const char *path)
{
	char *name = NULL, where[64];
	int cut = 0;
	struct cushim_image c;

	if (!explained(r) || (path && !(name = malloc(PATH_MAX + 1))))
		return;
	if (path && (cushim_peek_str(path, name, PATH_MAX + 1, &cut) < 0 || cut)) {
		if (first_time(path, NULL)) {
			memset(&c, 0, sizeof c);
			c.bad = SIZE_MAX;
			c.why = cut ? "its path is longer than PATH_MAX" : "its path is not readable memory";
			snprintf(where, sizeof where, "a path at %p", (const void *)path);
			say(r, fn, &c, NULL, NULL, where);
		}
	} else if (first_time(image, name)) {
		if (name)
			cushim_image_from_file(name, &c);
		else
			cushim_image_from_memory(image, size, &c);
		say(r, fn, &c, image, name, NULL);
		cushim_image_free(&c);
	}
	free(name);
}

/* ---- the wrappers ---- */
#define REAL(name) ((cushim_fn_##name *)cushim_real[CUSHIM_IDX_##name])
#define CHECKED(name, call, image, size, path)                                  \
	do {                                                                     \
		CUresult r_ = REAL(name) call;                                   \
		if (__builtin_expect(r_ != CUDA_SUCCESS, 0))                     \
			refused(r_, #name, image, size, path);                   \
		return r_;                                                       \
	} while (0)

static CUresult CUDAAPI w_cuModuleLoad(CUmodule *m, const char *fname)
{
	CHECKED(cuModuleLoad, (m, fname), NULL, 0, fname);
}

static CUresult CUDAAPI w_cuModuleLoadData(CUmodule *m, const void *image)
{
	CHECKED(cuModuleLoadData, (m, image), image, 0, NULL);
}

static CUresult CUDAAPI w_cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *o, void **v)
{
	CHECKED(cuModuleLoadDataEx, (m, image, n, o, v), image, 0, NULL);
}

static CUresult CUDAAPI w_cuModuleLoadFatBinary(CUmodule *m, const void *fat)
{
	CHECKED(cuModuleLoadFatBinary, (m, fat), fat, 0, NULL);
}

static CUresult CUDAAPI w_cuLinkAddData_v2(CUlinkState s, CUjitInputType t, void *data, size_t size, const char *name,
					   unsigned n, CUjit_option *o, void **v)
{
	CHECKED(cuLinkAddData_v2, (s, t, data, size, name, n, o, v), data, size, NULL);
}

static CUresult CUDAAPI w_cuLinkAddFile_v2(CUlinkState s, CUjitInputType t, const char *path, unsigned n,
					   CUjit_option *o, void **v)
{
	CHECKED(cuLinkAddFile_v2, (s, t, path, n, o, v), NULL, 0, path);
}

#if CUSHIM_TOOLKIT_VERSION >= 12000
static CUresult CUDAAPI w_cuLibraryLoadData(CUlibrary *l, const void *code, CUjit_option *jo, void **jv, unsigned jn,
					    CUlibraryOption *lo, void **lv, unsigned ln)
{
	CHECKED(cuLibraryLoadData, (l, code, jo, jv, jn, lo, lv, ln), code, 0, NULL);
}

static CUresult CUDAAPI w_cuLibraryLoadFromFile(CUlibrary *l, const char *file, CUjit_option *jo, void **jv,
						unsigned jn, CUlibraryOption *lo, void **lv, unsigned ln)
{
	CHECKED(cuLibraryLoadFromFile, (l, file, jo, jv, jn, lo, lv, ln), NULL, 0, file);
}
#endif

size_t cushim_module_claims(struct cushim_claim *c)
{
	static const struct {
		unsigned idx;
		void *fn;
	} wrappers[] = {
		{ CUSHIM_IDX_cuModuleLoad, (void *)w_cuModuleLoad },
		{ CUSHIM_IDX_cuModuleLoadData, (void *)w_cuModuleLoadData },
		{ CUSHIM_IDX_cuModuleLoadDataEx, (void *)w_cuModuleLoadDataEx },
		{ CUSHIM_IDX_cuModuleLoadFatBinary, (void *)w_cuModuleLoadFatBinary },
		{ CUSHIM_IDX_cuLinkAddData_v2, (void *)w_cuLinkAddData_v2 },
		{ CUSHIM_IDX_cuLinkAddFile_v2, (void *)w_cuLinkAddFile_v2 },
#if CUSHIM_TOOLKIT_VERSION >= 12000
		{ CUSHIM_IDX_cuLibraryLoadData, (void *)w_cuLibraryLoadData },
		{ CUSHIM_IDX_cuLibraryLoadFromFile, (void *)w_cuLibraryLoadFromFile },
#endif
	};
	size_t n = sizeof wrappers / sizeof *wrappers;
	_Static_assert(sizeof wrappers / sizeof *wrappers <= CUSHIM_MAX_CLAIMS, "the claims fit");
	for (size_t k = 0; k < n; k++)
		c[k] = (struct cushim_claim){ wrappers[k].idx, wrappers[k].fn, CUSHIM_OWNER_MODULE, CUSHIM_CLAIM_REPLACE, NULL };
	return n;
}
