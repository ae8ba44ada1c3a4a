/* What a CUDA runtime and PTX ask of the driver, from NVIDIA's documentation
 * (the sources are named in requirements.c).  Versions are in the
 * CUDA_VERSION form the driver reports (cuDriverGetVersion: 12.0 is 12000);
 * a driver branch is the first number of the driver's release (525 for
 * 525.60.13). */
#ifndef CUSHIM_REQUIREMENTS_H
#define CUSHIM_REQUIREMENTS_H

/* The oldest driver a CUDA runtime of this version accepts: for 11.x and
 * later the first driver of its major release (minor version
 * compatibility), for older runtimes the driver of the runtime's own version. */
int req_runtime_min_driver(int runtime);
/* Whether that runtime runs on older drivers of its major release at all
 * (minor version compatibility, CUDA 11.0 and later). */
int req_runtime_minor_compat(int runtime);
/* The driver branch whose drivers report this CUDA version (12000 -> 525), 0 if unknown. */
int req_driver_branch(int cuda_version);
/* The CUDA version the drivers of a branch report (525 -> 12000), 0 if unknown. */
int req_branch_cuda(int branch);
/* The first and last branch the table knows. */
int req_branch_first(void);
int req_branch_last(void);
/* The oldest driver that JIT-compiles PTX of this ISA version (9.0 -> 13000), 0 if unknown. */
int req_ptx_isa_cuda(int isa_major, int isa_minor);
/* The newest PTX ISA version a driver of this CUDA version JIT-compiles, as
 * major * 10 + minor (13000 -> 90); 0 if unknown. */
int req_ptx_isa_max(int driver);

/* The oldest driver that loads the PTX a JIT compiler of this toolkit
 * version (NVRTC, nvJitLink, the PTX compiler library) emits when the
 * program does not ask it for SASS: it writes PTX of its own toolkit's ISA
 * (NVRTC's documentation: "-arch" defaults to compute_52 and the PTX ISA is
 * the compiler's; CUDA Compatibility guide, "Minor Version Compatibility":
 * PTX from a newer toolkit needs a driver that knows its ISA, and
 * applications using NVRTC should ask it for SASS, i.e. a cubin, to run
 * on older drivers of the same major release).  0 when unknown. */
int req_jit_default_need(int toolkit);

#endif
