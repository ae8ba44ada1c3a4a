/* A JIT compiler a file carries: NVRTC, nvJitLink or the PTX compiler
 * library, as the library itself (libnvrtc.so.12) or linked in statically.
 * The PTX it emits by default needs a driver as new as the compiler. */
#ifndef CUSHIM_CLI_JITC_H
#define CUSHIM_CLI_JITC_H
#include <libelf.h>

enum { JIT_NONE, JIT_NVRTC, JIT_NVJITLINK, JIT_PTXCOMPILER };

struct cli_jit {
	int kind;      /* one of the above */
	int version;   /* its toolkit's CUDA version (12090), 0 unknown */
	int major_only;/* only its major release is known: version is X.0 */
	int need;      /* the driver its default PTX needs, 0 unknown */
	char from[160];/* how it was recognised */
};

/* soname or the file's name tell the library; otherwise its defined
 * dynamic symbols (nvrtcCompileProgram...) a static copy. */
void cli_jit_detect(Elf *elf, const char *path, const char *soname, struct cli_jit *j);
const char *cli_jit_name(int kind); /* "NVRTC" */
#endif
