/* The CUDA libraries a file loads at run time, which its ELF imports do not
 * show: frameworks' lazy stubs dlopen the runtime ("libcudart.so.12"), the
 * driver, cuBLAS, NVRTC..., by names kept in their read-only data, and find
 * them through a run path into the nvidia/<component>/lib folders of
 * NVIDIA's wheels. */
#ifndef CUSHIM_CLI_LOADS_H
#define CUSHIM_CLI_LOADS_H
#include <libelf.h>
#include <stddef.h>

enum { LOAD_NAMED = 1, LOAD_FOLDER };
enum { LOAD_UNRESOLVED, LOAD_FOUND, LOAD_STOPS, LOAD_NONE };

struct cli_load {
	char name[80];  /* "libcudart.so.12"; "libcudart.so." where its version is appended at run
			 * time; LOAD_FOLDER: the run path's folder ("nvidia/cuda_runtime/lib") */
	char stem[24];  /* "libcudart" */
	int how;        /* LOAD_NAMED, LOAD_FOLDER */
	int major;      /* the CUDA major release its name says (libcudart.so.12: 12), 0 unknown */
	int several;    /* the file names this library for several major releases: it takes
			 * whichever is there, so the names say nothing of its own */
	int state;      /* LOAD_*: found where the loader looks, stopped at (path, why), none, or not looked for */
	char *path, *why;
};

struct cli_loads {
	struct cli_load *v;
	size_t n;
};

/* The CUDA libraries named in the file's read-only data, less those it
 * needs (DT_NEEDED) and its own soname; then the folders of NVIDIA's wheels
 * its run path (rpath, runpath: as written, $ORIGIN unexpanded) points into
 * for a library not named. */
void cli_loads_read(Elf *elf, const char *soname, char *const *needed, size_t nneeded, struct cli_loads *out);
void cli_loads_read_paths(const char *rpath, const char *runpath, struct cli_loads *out);
void cli_loads_free(struct cli_loads *l);
/* The driver (libcuda.so.1): what cushim check compares with, never resolved. */
int cli_load_driver(const struct cli_load *l);
/* libcudart, libnvrtc, libnvJitLink, libcublas, libcublasLt: their soname's
 * number is the CUDA major release. */
int cli_load_tells_major(const char *stem);
/* The file name a library of this stem has for a CUDA major release
 * ("libcudart.so.12"), 0 where its number is not the CUDA major. */
int cli_load_name(const char *stem, int major, char *buf, size_t size);
/* The wheel of NVIDIA's that provides a library of this stem for a CUDA
 * major release ("nvidia-cuda-runtime-cu12"; CUDA 13: "nvidia-cuda-runtime
 * 13.x"), or NULL. */
const char *cli_load_wheel(const char *stem, int major, char *buf, size_t size);
/* The stem of NVIDIA's wheel folder nvidia/<component>/lib, or NULL;
 * *major set for nvidia/cuNN/lib (CUDA 13's wheels share one). */
const char *cli_load_folder_stem(const char *component, int *major);

#endif
