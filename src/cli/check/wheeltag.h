/* What a Python wheel declares of the CUDA it is built for, in its name
 * (cupy_cuda12x, nvidia_cuda_runtime_cu12), its version's local part
 * (torch 2.5.1+cu124) and what it requires (nvidia-cuda-runtime-cu12):
 * read from its file name and its .dist-info/METADATA. */
#ifndef CUSHIM_CLI_WHEELTAG_H
#define CUSHIM_CLI_WHEELTAG_H
#include <stddef.h>

struct wheel_tag {
	int name_major;          /* from its distribution's name, 0 none */
	char name_word[48];      /* "cuda12x" */
	int local_version;       /* from "+cu124": 12040; 0 none */
	char local_word[24];     /* "+cu124" */
	int requires_major;      /* from a requirement on NVIDIA's -cuNN wheels */
	char requires_word[96];  /* "nvidia-cuda-runtime-cu12" */
	char dist[96];           /* the wheel's name and version: "cupy_cuda12x-14.2.0" */
	char variant_label[48];  /* a variant wheel's label (PEP 817): the file name's last part */
	int variant_lower;       /* its nvidia :: cuda_version_lower_bound (12080), 0 none */
	char variant_sm[256];    /* its nvidia :: sm_arch values, comma-separated ("90_real,90_virtual") */
};

/* The wheel's file name (a path's last part is taken). */
void wheel_tag_name(const char *path, struct wheel_tag *t);
/* Its METADATA (RFC 822 headers): Requires-Dist lines. */
void wheel_tag_metadata(const char *text, size_t n, struct wheel_tag *t);
/* Its .dist-info/variant.json (PEP 817): the nvidia provider's properties;
 * the label comes from the file name (wheel_tag_name first). */
void wheel_tag_variant(const char *json, size_t n, const char *path, struct wheel_tag *t);
/* The CUDA major release it declares (its name, then its local version,
 * then its requirements), with the words saying where: 0 when none. */
int wheel_tag_major(const struct wheel_tag *t, char *why, size_t size);

#endif
