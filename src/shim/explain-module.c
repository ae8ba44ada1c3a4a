/* A module the GPU cannot run.  The module, library and link loaders get a
 * wrapper (no other export does) that, when the driver refuses an image
 * with one of the codes that mean "no code this GPU and driver can run",
 * reads the image with the reader `cushim check` uses (modimage.c) and says
 * once per image what it holds, what the GPU and the driver are, and why.
 * On success the wrapper costs a call and a test (make bench). */
#include "table.h"
#include "slots.h"
#include "state.h"
#include "settings.h"
#include "errors.h"
#include "explain.h"
#include "elfbytes.h"
#include "gpufit.h"
#include "modimage.h"
#include "requirements.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define IMAGE_MAX (256u << 20) /* a larger image is not read */
#define NSEEN 64

/* ---- the image's bytes: from a file, or from memory that may be bad ---- */
/* n bytes at src into dst through a pipe, which fails (EFAULT) where src
 * cannot be read rather than crash: how many. */
static size_t copy_through_pipe(const unsigned char *src, unsigned char *dst, size_t n)
{
	int fd[2];
	size_t off = 0;
	if (pipe2(fd, O_CLOEXEC) != 0)
		return 0;
	while (off < n) {
		size_t k = n - off < 4096 ? n - off : 4096;
		ssize_t w = write(fd[1], src + off, k);
		if (w <= 0 || read(fd[0], dst + off, (size_t)w) != w)
			break;
		off += (size_t)w;
	}
	close(fd[0]);
	close(fd[1]);
	return off;
}

/* n bytes at src into dst as far as they can be read: how many. */
static size_t copy_in(const void *src, void *dst, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)src, n };
	ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (got < 0 && errno != EFAULT) /* not allowed here (a sandbox) */
		return copy_through_pipe(src, dst, n);
	return got > 0 ? (size_t)got : 0;
}

static unsigned char *from_file(const char *path, size_t *n)
{
	struct stat st;
	unsigned char *p = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > IMAGE_MAX ||
	    !(p = malloc((size_t)st.st_size)) || pread(fd, p, (size_t)st.st_size, 0) != st.st_size) {
		free(p);
		p = NULL;
	}
	*n = p ? (size_t)st.st_size : 0;
	if (fd >= 0)
		close(fd);
	return p;
}

/* How many bytes the image at src spans, by its header: a fatbin's size,
 * an ELF file's tables, or PTX text up to its NUL. */
static size_t extent(const unsigned char *src, const unsigned char head[64], size_t have)
{
	if (have >= 16 && fb_le(head, 4) == FB_MAGIC)
		return 16 + (size_t)(fb_le(head + 8, 8) < IMAGE_MAX ? fb_le(head + 8, 8) : IMAGE_MAX);
	if (have == 64 && memcmp(head, "\177ELF", 4) == 0) {
		uint64_t n = eb_extent(head);
		return n && n < IMAGE_MAX ? (size_t)n : 0;
	}
	size_t n = 0;
	char chunk[4096];
	for (size_t got; n < IMAGE_MAX && (got = copy_in(src + n, chunk, sizeof chunk)) > 0; n += got)
		if (memchr(chunk, 0, got))
			return n + (size_t)((char *)memchr(chunk, 0, got) - chunk);
	return n;
}

/* The image at `image`: size bytes, or (0) as many as its header says; a
 * fatbin wrapper (__fatBinC_Wrapper_t) is followed to its fatbin, once. */
static unsigned char *from_memory(const void *image, size_t size, size_t *n, int follow)
{
	unsigned char head[64], *p;
	size_t have = copy_in(image, head, sizeof head);
	if (follow && have >= 16 && fb_le(head, 4) == FB_WRAPPER_MAGIC)
		return from_memory((const void *)(uintptr_t)fb_le(head + 8, 8), 0, n, 0);
	*n = size ? size : extent(image, head, have);
	p = *n <= IMAGE_MAX ? malloc(*n ? *n : 1) : NULL;
	if (p && copy_in(image, p, *n) == *n)
		return p;
	free(p);
	*n = 0;
	return NULL;
}

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
static struct cli_gpu_arch current_gpu(void)
{
	struct cli_gpu_arch g = { 0, 0 };
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
static void reason_fit(const struct cli_gpu_fit *fit, struct cli_gpu_arch g, int isa, char *buf, size_t size)
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
	else
		snprintf(buf, size, "cushim finds code this GPU can run in it (%s), so the driver refused the image "
			 "itself: it may be corrupt, or compressed in a way this driver cannot read.",
			 fb_image_name(fit->image, name, sizeof name));
}

static void reason(CUresult r, const struct mi_image *im, struct cli_gpu_arch g, int isa, char *buf, size_t size)
{
	struct cli_gpu_fit fit;
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
		cli_gpu_fit(&im->list, g, cushim_state.real_driver_version, &fit);
		reason_fit(&fit, g, isa, buf, size);
	}
}

/* ---- the message ---- */
static int explained(CUresult r)
{
	return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
	       r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_INVALID_SOURCE || r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
}

/* fn refused the image at `image` (size bytes, 0: as its header says) or
 * the file `path` with r. */
static void refused(CUresult r, const char *fn, const void *image, size_t size, const char *path)
{
	char text[3000], holds[600], why[600], gpu[32], drv[16], src[1100];
	struct mi_image im;
	size_t n = 0;
	unsigned char *p;
	int isa = cli_ptx_isa_max(cushim_state.real_driver_version);

	if (!explained(r) || !first_time(image, path))
		return;
	p = path ? from_file(path, &n) : image ? from_memory(image, size, &n, 1) : NULL;
	mi_read(p ? p : (const unsigned char *)"", n, &im);
	if (!p)
		snprintf(im.error, sizeof im.error, "its bytes cannot be read");
	struct cli_gpu_arch g = current_gpu();
	snprintf(gpu, sizeof gpu, g.major ? "sm_%d%d" : "unknown", g.major, g.minor);
	if (path)
		snprintf(src, sizeof src, "%.1000s, %s", path, p ? mi_form_name(im.form) : "unreadable");
	else
		snprintf(src, sizeof src, "%s in memory at %p", p ? mi_form_name(im.form) : "an image", image);
	reason(r, &im, g, isa, why, sizeof why);
	snprintf(text, sizeof text, "%s returned %s for %s: it holds %s. This GPU is %s and the driver CUDA %s, "
		 "which compiles PTX up to ISA %d.%d. %s", fn, cushim_error_name(r), src, mi_describe(&im, holds, sizeof holds),
		 gpu, cushim_state.real_driver_version ? cushim_format_version(cushim_state.real_driver_version, drv) :
		 "of unknown version", isa / 10, isa % 10, why);
	cushim_cause("module", text);
	mi_free(&im);
	free(p);
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

void cushim_module_install(void)
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
	for (size_t k = 0; k < sizeof wrappers / sizeof *wrappers; k++)
		if (cushim_real[wrappers[k].idx] && cushim_impl[wrappers[k].idx] == cushim_real[wrappers[k].idx])
			cushim_impl[wrappers[k].idx] = wrappers[k].fn;
}
