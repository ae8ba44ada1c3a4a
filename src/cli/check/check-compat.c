/* cushim check: NVIDIA's forward-compatibility package in a tree.  Its
 * libcuda.so (the cuda-compat-X-Y package, /usr/local/cuda/compat in
 * NVIDIA's images) carries the ELF note .note.cuda.fwd_compatibility, read
 * by nvenv.c: the CUDA version it provides, and the driver branches it runs
 * on.  Which library programs see, and which GPUs take it, after:
 *
 * - NVIDIA's CUDA Compatibility guide, "Forward Compatibility": the package
 *   lets programs of a newer CUDA run on an older driver's kernel module;
 *   it is applicable only to NVIDIA Data Center GPUs, select NGC Server
 *   Ready SKUs of RTX cards and Jetson boards; on any other GPU cuInit fails
 *   with 804, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE ("forward
 *   compatibility was attempted on non supported HW").
 * - The NVIDIA Container Toolkit's enable-cuda-compat hook
 *   (cmd/nvidia-cdi-hook/cudacompat): the package is put ahead of the host's
 *   library when the host driver's branch is among the note's "Driver"
 *   list; cushim check takes it as used then, where it provides a newer
 *   CUDA than the driver does.
 *
 * A GPU's class is told by its name where the driver gives it (--gpu=auto:
 * GeForce and TITAN boards refuse it), else by its compute capability where
 * every GPU of it is a data-centre GPU (3.7, 8.0, 9.0, 10.0, 10.3) or a
 * Jetson board (Tegra); others are made as both (8.6: A10 and GeForce RTX
 * 3090): unknown. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "nvenv.h"
#include "requirements.h"
#include <string.h>

static const int datacentre[] = { 37, 80, 90, 100, 103 };

static int gpu_class(const struct opts *o, int i)
{
	int cc = o->gpus[i].major * 10 + o->gpus[i].minor;
	const char *name = o->gpu_names[i];
	if (strstr(name, "GeForce") || strstr(name, "TITAN"))
		return COMPAT_REFUSED;
	if (strstr(name, "Tesla") || gpu_tegra(cc))
		return COMPAT_ACCEPTED;
	for (size_t k = 0; k < sizeof datacentre / sizeof *datacentre; k++)
		if (datacentre[k] == cc)
			return COMPAT_ACCEPTED;
	return COMPAT_UNKNOWN;
}

/* The tree's first libcuda.so* (on disk, not a wheel's member) with the note. */
static int find(const struct tree *t, struct compat *c, struct nvenv *e)
{
	for (size_t i = 0; i < t->nlibs; i++) {
		const struct tree_lib *l = &t->libs[i];
		if (l->member || strncmp(l->name, "libcuda.so", 10) != 0)
			continue;
		nvenv_read_compat(e, l->path);
		if (e->compat) {
			snprintf(c->path, sizeof c->path, "%s", l->path);
			return 1;
		}
	}
	return 0;
}

/* A list of the note's numbers ("535,550"), whatever else the file holds. */
static void numbers(char *out, size_t size, const char *list)
{
	size_t n = 0;
	for (; *list && n + 1 < size; list++)
		if ((*list >= '0' && *list <= '9') || (*list == ',' && n && out[n - 1] != ','))
			out[n++] = *list;
	if (n && out[n - 1] == ',')
		n--;
	out[n] = '\0';
}

int check_compat(const struct tree *t, struct opts *o, struct compat *c)
{
	struct nvenv e;
	memset(c, 0, sizeof *c);
	if (!find(t, c, &e))
		return 0;
	snprintf(c->cuda_text, sizeof c->cuda_text, "%s", e.compat_cuda);
	numbers(c->drivers, sizeof c->drivers, e.compat_drivers);
	numbers(c->devices, sizeof c->devices, e.compat_devices);
	c->cuda = nvenv_compat_cuda(&e);
	c->host = o->versus;
	c->branch = o->versus_branch ? o->versus_branch : req_driver_branch(o->versus);
	c->used = !o->versus || !c->branch ? -1 : nvenv_compat_lists(&e, c->branch) && c->cuda > o->versus;
	o->compat = c;
	if (c->used != 1)
		return 1;
	for (int i = 0; i < o->ngpus; i++)
		c->refused |= (c->gpu[i] = gpu_class(o, i)) == COMPAT_REFUSED;
	if (!c->refused) { /* programs see the package's CUDA, not the host driver's */
		o->versus = c->cuda;
		o->versus_branch = 0;
		o->shim = NULL;
	}
	return 1;
}

static const char *gpu_words(const struct compat *c, const struct opts *o, int i, char *buf, size_t size)
{
	char g[16];
	const char *name = o->gpu_names[i];
	int n = snprintf(buf, size, "%s%s%s%s", check_gpu_name(o, i, g, sizeof g), *name ? " (" : "", name,
			 *name ? ")" : "");
	if (n < 0 || (size_t)n >= size)
		return buf;
	if (c->gpu[i] == COMPAT_ACCEPTED)
		snprintf(buf + n, size - (size_t)n, ": accepted (%s)", gpu_tegra(o->gpus[i].major * 10 +
			 o->gpus[i].minor) ? "a Jetson board" : "a data-centre GPU");
	else if (c->gpu[i] == COMPAT_REFUSED)
		snprintf(buf + n, size - (size_t)n, ": refused: cuInit fails with error 804 "
			 "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, \"forward compatibility was attempted on non "
			 "supported HW\"); only data-centre GPUs, NGC Server Ready RTX boards and Jetson boards take "
			 "it: remove its folder from the library path");
	else
		snprintf(buf + n, size - (size_t)n, ": unknown: data-centre boards of this compute capability "
			 "accept it, GeForce boards refuse it with error 804 (--gpu=auto on the machine names the board)");
	return buf;
}

void check_compat_refusal(const struct compat *c, const struct opts *o, char *buf, size_t size)
{
	char g[512];
	for (int i = 0; i < o->ngpus; i++)
		if (c->gpu[i] == COMPAT_REFUSED) {
			snprintf(buf, size, "NVIDIA's forward-compatibility package for CUDA %s is used with this "
				 "driver, and on %s", c->cuda_text, gpu_words(c, o, i, g, sizeof g));
			return;
		}
	buf[0] = '\0';
}

/* Whether the package is used, in words. */
static void use_words(const struct compat *c, char *buf, size_t size)
{
	char d[64];
	if (!c->host)
		snprintf(buf, size, "whether it is used depends on the driver (branches %s): name it with "
			 "--driver-version", c->drivers);
	else if (!c->branch)
		snprintf(buf, size, "whether a CUDA %s driver uses it cannot be told: its branch is not in cushim's "
			 "table", cli_version(c->host));
	else if (c->used == 1)
		snprintf(buf, size, "with %s it is used (its branch is among those the note lists)%s%s%s",
			 check_driver_name(c->host, d, sizeof d), c->refused ? "" : ": programs see CUDA ",
			 c->refused ? "" : c->cuda_text, c->refused ? "" : ", and are judged against it");
	else if (c->cuda <= c->host)
		snprintf(buf, size, "with %s it is not used: the driver is as new", check_driver_name(c->host, d,
			 sizeof d));
	else
		snprintf(buf, size, "with %s it is not used: branch %d is not among those the note lists, so "
			 "programs see the driver's own CUDA %s", check_driver_name(c->host, d, sizeof d), c->branch,
			 cli_version(c->host));
}

void check_compat_print(const struct compat *c, const struct opts *o)
{
	char words[512];
	use_words(c, words, sizeof words);
	printf("environment: forward compatibility: %s is NVIDIA's forward-compatibility package for CUDA %s "
	       "(driver branches %s; devices %s); %s\n", c->path, c->cuda_text, c->drivers, c->devices, words);
	for (int i = 0; c->used == 1 && i < o->ngpus; i++)
		printf("environment: forward compatibility on %s\n", gpu_words(c, o, i, words, sizeof words));
}

void check_compat_json(const struct compat *c, const struct opts *o)
{
	static const char *const class[] = { "\"unknown\"", "\"accepted\"", "\"refused\"" };
	char g[16];
	printf(", \"forward_compatibility\": ");
	if (!c) {
		printf("null");
		return;
	}
	printf("{\"library\": ");
	cushim_json_print(stdout, c->path);
	printf(", \"cuda_version\": ");
	cushim_json_print(stdout, c->cuda_text);
	printf(", \"drivers\": [%s], \"devices\": [%s], \"used\": %s, \"gpus\": [", c->drivers, c->devices,
	       c->used == 1 ? "true" : c->used == 0 ? "false" : "null");
	for (int i = 0; c->used == 1 && i < o->ngpus; i++)
		printf("%s{\"gpu\": \"%s\", \"accepts\": %s}", i ? ", " : "", check_gpu_name(o, i, g, sizeof g),
		       class[c->gpu[i]]);
	printf("], \"error_804\": %s}", c->refused ? "true" : "false");
}
