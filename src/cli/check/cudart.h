/* The CUDA runtime a program or library carries: linked statically (nvcc's
 * default), needed dynamically (libcudart.so.N), or the runtime itself. */
#ifndef CUSHIM_CLI_CUDART_H
#define CUSHIM_CLI_CUDART_H
#include <libelf.h>
#include <stddef.h>

/* RT_IMPORTED: it calls cuda* functions but names no runtime library: the
 * runtime of the program that loads it serves them.  RT_LOADED: it loads
 * the runtime itself at run time (dlopen, check-loads.c). */
enum { RT_NONE, RT_STATIC, RT_DYNAMIC, RT_SELF, RT_IMPORTED, RT_LOADED };

struct cli_runtime {
	int linkage;       /* one of the above */
	int version;       /* CUDA version (13000), 0 when unknown */
	int major_only;    /* only its major release is known (libcudart.so.13) */
	int at_least;      /* version is the least it can be */
	char from[256];    /* how the runtime and its version were recognised */
	char library[80];  /* RT_DYNAMIC: the DT_NEEDED name; RT_LOADED: the name it loads */
	int used;          /* the file calls the runtime: 1, 0, or -1 when it cannot tell */
	char used_why[256];
};

struct cli_runtime_in {
	const char *path;    /* the file, for RT_SELF's version */
	char *const *needed; /* its DT_NEEDED names */
	size_t nneeded;
	const char *soname;  /* its DT_SONAME, or NULL */
};

void cli_runtime_detect(Elf *elf, const struct cli_runtime_in *in, struct cli_runtime *rt);

/* The newest compiler release line in the heads of the file's GPU images
 * (compressed ones unpacked, where this build can): the CUDA version
 * (12090), 0 if none, with the line in text; unpacked: it came from a
 * compressed image. */
int cli_gpu_release(Elf *elf, char *text, size_t size, int *unpacked);
/* The same for fatbins laid out in p[0..n) (a .fatbin file). */
void cli_gpu_release_raw(const unsigned char *p, size_t n, int *release, char *text, size_t size, int *unpacked);
/* Calls fn on each allocated, non-executable section with contents. */
typedef void (*cli_data_fn)(const unsigned char *p, size_t n, void *arg);
void cli_each_data(Elf *elf, cli_data_fn fn, void *arg);

#endif
