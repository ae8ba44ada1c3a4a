/* cushim check: the libraries a file needs (DT_NEEDED), as the loader sees
 * them.  Their names are expanded as the loader expands them ($ORIGIN, $LIB,
 * $PLATFORM: a bundled Python needs "$ORIGIN/../lib/libpython3.12.so.1.0");
 * one that cannot be loaded is kept with why.  The loader stopping at a file
 * (empty, cut short, a FIFO) fails the file that needs it, and so does a
 * missing CUDA library; another missing library is a caution naming it:
 * it says nothing of the driver, and the program may be meant to find it
 * elsewhere. */
#include "config.h"
#include "check-steps.h"
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

/* The libraries of NVIDIA's CUDA toolkit, its math libraries and the driver's
 * own (libnvidia-*), by their sonames' stems. */
static const char *const cuda_stems[] = {
	"libcuda.", "libcudart.", "libcublas.", "libcublasLt.", "libcufft.", "libcufftw.", "libcurand.",
	"libcusparse.", "libcusparseLt.", "libcusolver.", "libcusolverMg.", "libcudnn", "libcupti.", "libcufile",
	"libcutensor", "libcudla.", "libnvrtc", "libnvJitLink.", "libnvjpeg.", "libnpp", "libnvToolsExt.",
	"libnccl.", "libnvidia-", "libnvblas.", "libnvfatbin.", "libnvptxcompiler", "libnvjitlink", "libcuobjclient",
};

int check_cuda_library(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (size_t i = 0; i < sizeof cuda_stems / sizeof *cuda_stems; i++)
		if (strncmp(base, cuda_stems[i], strlen(cuda_stems[i])) == 0)
			return 1;
	return 0;
}

void check_origin(const char *path, char *out, size_t size)
{
	const char *colon = strstr(path, ".whl:");
	if (colon) { /* WHEEL:MEMBER: the member's folder inside the wheel */
		const char *slash = strrchr(colon + 5, '/');
		size_t len = slash ? (size_t)(slash - path) : (size_t)(colon + 5 - path);
		snprintf(out, size, "%.*s", (int)len, path);
		return;
	}
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", path);
	snprintf(out, size, "%s", dirname(copy));
}

void check_add_unfound(struct result *r, const char *name, const char *path, const char *why)
{
	struct unfound *u = realloc(r->unfound, (r->nunfound + 1) * sizeof *u);
	if (!u)
		abort();
	r->unfound = u;
	u += r->nunfound++;
	u->name = strdup(name);
	u->path = path ? strdup(path) : NULL;
	u->why = path ? strdup(why) : NULL;
	u->fatal = path != NULL || check_cuda_library(name);
	if (!u->name || (path && (!u->path || !u->why)))
		abort();
	r->nfatal += u->fatal;
}

const struct unfound *check_first_unfound(const struct result *r, int fatal)
{
	for (size_t k = 0; k < r->nunfound; k++)
		if (r->unfound[k].fatal == fatal)
			return &r->unfound[k];
	return NULL;
}

void check_unfound_words(const struct unfound *u, char *buf, size_t size)
{
	char tail[1024];
	snprintf(buf, size, "it needs %s%s", u->name, check_unfound_tail(u, tail, sizeof tail));
}

const char *check_unfound_tail(const struct unfound *u, char *buf, size_t size)
{
	if (u->path)
		snprintf(buf, size, ", and the loader stops at %s: %s", u->path, u->why);
	else
		snprintf(buf, size, ", which nothing in the tree or the system provides");
	return buf;
}

void check_free_unfound(struct result *r)
{
	for (size_t i = 0; i < r->nunfound; i++) {
		free(r->unfound[i].name);
		free(r->unfound[i].path);
		free(r->unfound[i].why);
	}
	free(r->unfound);
}
