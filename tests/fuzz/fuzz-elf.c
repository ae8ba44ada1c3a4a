/* libFuzzer target for what `cushim check` reads
 * (src/cli/check/check-read.c, cli_check_read): the input is written to a
 * memfd and read by path, as the command reads a file: an ELF program or
 * library (its imports, its CUDA runtime, the fatbins of its .nv_fatbin and
 * .nvFatBinSegment) or a .fatbin file.  The same bytes are also given to the
 * fatbin reader directly (src/cli/check/gpucode.c over
 * src/common/gpucode/fatbin.c), with and without the fatbin magic in front,
 * and what it reads is judged against a few GPUs; and to the library's
 * reader of module images (src/common/gpucode/modimage.c: fatbin, cubin,
 * host ELF or PTX, as the driver's loaders take them); and as a Python wheel
 * (a zip archive read through libzip, src/cli/check/check-wheel.c), every
 * member it judges read in place; and as the compressed payload of a GPU
 * image whose head is unpacked (LZ4 and Zstandard, src/cli/check/unpack.c),
 * alone and inside fatbins.  Any input must give either a result or a
 * reason. */
#include "config.h"
#include "cli.h"
#include "gpucode.h"
#include "modimage.h"
#include "cudart.h"
#include "unpack.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void read_as_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64], why[4096];
	size_t nimports = 0;
	if (fd < 0 && (fd = memfd_create("fuzz-elf", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	why[0] = 'x', why[1] = '\0';
	if (cli_check_read(path, &nimports, why, sizeof why) && why[0] == '\0')
		abort(); /* an error always says why */
}

static void read_as_wheel(const uint8_t *data, size_t size)
{
	static char path[4096];
	FILE *f;
	if (!path[0])
		snprintf(path, sizeof path, "%s/fuzz-elf-%d.whl", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 (int)getpid());
	if (size < 4 || memcmp(data, "PK", 2) != 0)
		return; /* not a zip: libzip refuses it at once */
	if (!(f = fopen(path, "wb")) || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	cli_check_wheel(path);
	unlink(path);
}

static void read_as_fatbin(const uint8_t *data, size_t size)
{
	static const struct gpu_arch gpus[] = { { 8, 0 }, { 9, 0 }, { 10, 0 }, { 10, 3 }, { 12, 0 } };
	struct cli_gpucode g;
	struct gpu_fit fit;
	char name[64];
	cli_gpucode_read_raw(data, size, &g);
	for (size_t i = 0; i < g.list.n; i++) {
		const struct fb_image *im = &g.list.img[i];
		if (im->arch <= 0 || im->arch > 1000 || im->fatbin < 1 || im->fatbin > g.list.nfatbins)
			abort(); /* the reader refuses what it cannot name */
		fb_image_name(im, name, sizeof name);
	}
	for (size_t k = 0; k < sizeof gpus / sizeof *gpus; k++) {
		gpu_fit(&g.list, gpus[k], 12000, &fit);
		if ((fit.how == GPU_NO_CODE) != (fit.image == NULL))
			abort();
	}
	cli_gpucode_free(&g);
}

static void read_as_module(const uint8_t *data, size_t size)
{
	struct mi_image im;
	char holds[600];
	mi_read(data, size, &im);
	if (!im.error[0] && im.list.n == 0)
		abort(); /* its images, or why there are none (or why it stopped) */
	for (size_t i = 0; i < im.list.n; i++)
		if (im.list.img[i].arch < 0 || im.list.img[i].arch > 1000)
			abort();
	mi_describe(&im, holds, sizeof holds);
	mi_free(&im);
}

/* A head is never more than asked for, whatever the payload claims. */
static void read_as_packed(const uint8_t *data, size_t size)
{
	unsigned char head[4096];
	char text[64];
	int release, unpacked;
	for (int method = FB_LZ4; method <= FB_ZSTD; method++) {
		long n = cli_unpack_head(method, data, size, head, sizeof head);
		if (n > (long)sizeof head || n < -1)
			abort();
	}
	cli_gpu_release_raw(data, size, &release, text, sizeof text, &unpacked);
	if (release < 0 || memchr(text, '\0', sizeof text) == NULL)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *framed;
	elf_version(EV_CURRENT);
	read_as_file(data, size);
	read_as_fatbin(data, size);
	read_as_module(data, size);
	read_as_wheel(data, size);
	read_as_packed(data, size);
	/* The same bytes as the entries of one fatbin, so that the fuzzer
	 * reaches the image headers without finding the container first. */
	if (!(framed = realloc(framed, size + 16)))
		abort();
	memcpy(framed, "\x50\xed\x55\xba\x01\x00\x10\x00", 8);
	for (int i = 0; i < 8; i++)
		framed[8 + i] = (uint8_t)((uint64_t)size >> (8 * i));
	if (size)
		memcpy(framed + 16, data, size);
	read_as_fatbin(framed, size + 16);
	read_as_packed(framed, size + 16);
	return 0;
}
