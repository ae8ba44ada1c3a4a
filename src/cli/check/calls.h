/* Which calls of a file's own code reach a CUDA runtime (calls.c). */
#ifndef CUSHIM_CLI_CHECK_CALLS_H
#define CUSHIM_CLI_CHECK_CALLS_H
#include <libelf.h>
#include <stddef.h>

/* A runtime function whose call makes the runtime ask for the driver: the
 * API (cudaMalloc) and the kernel launch nvcc's stubs make
 * (__cudaLaunchKernel, __cudaPushCallConfiguration); registering GPU code at
 * start-up (__cudaRegisterFatBinary) does not. */
int cli_runtime_entry(const char *name);
/* Whether a call from the file's own code reaches one of the runtime's
 * cuda* functions (x86-64 and AArch64, from the symbol table): 1 and who
 * calls what in why, 0, or -1 when it cannot tell. */
int cli_runtime_called(Elf *elf, char *why, size_t whysize);
#endif
