/* What a CUDA runtime and PTX ask of the driver.  The numbers come from
 * NVIDIA's documentation:
 *
 * - CUDA Compatibility, "Minor Version Compatibility"
 *   (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html):
 *   from CUDA 11 on, an application built with any toolkit of a major release
 *   runs, "with limited feature-set", on a driver of that major release's
 *   first branch or later: CUDA 13.x needs >= 580, 12.x >= 525, 11.x >= 450
 *   (450.80.02 on Linux for the whole 11.x family).  Before CUDA 11 each
 *   toolkit needs the driver it shipped with (10.2 >= 440.33, 10.1 >= 418.39,
 *   10.0 >= 410.48).  What minor version compatibility does not cover, from
 *   the same guide: an API that needs a newer driver fails with
 *   cudaErrorCallRequiresNewerDriver, and PTX built by a newer toolkit than
 *   the driver cannot be JIT-compiled by it (cudaErrorUnsupportedPtxVersion):
 *   such a program needs SASS for its GPU or a newer driver.
 * - CUDA Toolkit Release Notes, "CUDA Toolkit and Corresponding Driver
 *   Versions" (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/):
 *   which branch first reported each CUDA version (12.4 GA shipped 550.54.14,
 *   12.8 GA 570.26, 13.0 GA 580.65.06, ...); branch 565 reports 12.7, a
 *   version no toolkit has.
 * - PTX ISA, "Release Notes" (https://docs.nvidia.com/cuda/parallel-thread-execution/),
 *   the table NVIDIA's cuda-python also uses
 *   (cuda.bindings.utils.get_minimal_required_cuda_ver_from_ptx_ver): the
 *   CUDA release that introduced each PTX ISA version; a driver JIT-compiles
 *   PTX of its own ISA version and older. */
#include "requirements.h"
#include <stddef.h>

static const struct {
	int cuda, branch;
} branches[] = {
	{ 10000, 410 }, { 10010, 418 }, { 10020, 440 },
	{ 11000, 450 }, { 11010, 455 }, { 11020, 460 }, { 11030, 465 }, { 11040, 470 },
	{ 11050, 495 }, { 11060, 510 }, { 11070, 515 }, { 11080, 520 },
	{ 12000, 525 }, { 12010, 530 }, { 12020, 535 }, { 12030, 545 }, { 12040, 550 },
	{ 12050, 555 }, { 12060, 560 }, { 12070, 565 }, { 12080, 570 }, { 12090, 575 },
	{ 13000, 580 },
};
#define NBRANCHES (sizeof branches / sizeof *branches)

/* PTX ISA version (major * 10 + minor) and the CUDA release that introduced it. */
static const struct {
	int isa, cuda;
} ptx_isas[] = {
	{ 40, 6000 }, { 41, 6050 }, { 42, 7000 }, { 43, 7050 }, { 50, 8000 },
	{ 60, 9000 }, { 61, 9010 }, { 62, 9020 }, { 63, 10000 }, { 64, 10010 }, { 65, 10020 },
	{ 70, 11000 }, { 71, 11010 }, { 72, 11020 }, { 73, 11030 }, { 74, 11040 },
	{ 75, 11050 }, { 76, 11060 }, { 77, 11070 }, { 78, 11080 },
	{ 80, 12000 }, { 81, 12010 }, { 82, 12020 }, { 83, 12030 }, { 84, 12040 },
	{ 85, 12050 }, { 86, 12070 }, { 87, 12080 }, { 88, 12090 },
	{ 90, 13000 },
};

int req_runtime_min_driver(int runtime)
{
	if (runtime >= 11000)
		return runtime / 1000 * 1000;
	return runtime;
}

int req_runtime_minor_compat(int runtime)
{
	return runtime >= 11000;
}

int req_driver_branch(int cuda_version)
{
	for (size_t i = 0; i < NBRANCHES; i++)
		if (branches[i].cuda == cuda_version)
			return branches[i].branch;
	return 0;
}

int req_branch_cuda(int branch)
{
	for (size_t i = 0; i < NBRANCHES; i++)
		if (branches[i].branch == branch)
			return branches[i].cuda;
	return 0;
}

int req_branch_first(void)
{
	return branches[0].branch;
}

int req_branch_last(void)
{
	return branches[NBRANCHES - 1].branch;
}

int req_ptx_isa_cuda(int isa_major, int isa_minor)
{
	if (isa_minor < 0 || isa_minor > 9)
		return 0;
	for (size_t i = 0; i < sizeof ptx_isas / sizeof *ptx_isas; i++)
		if (ptx_isas[i].isa == isa_major * 10 + isa_minor)
			return ptx_isas[i].cuda;
	return 0;
}

int req_ptx_isa_max(int driver)
{
	int isa = 0;
	for (size_t i = 0; i < sizeof ptx_isas / sizeof *ptx_isas; i++)
		if (ptx_isas[i].cuda <= driver)
			isa = ptx_isas[i].isa;
	return isa;
}

int req_jit_default_need(int toolkit)
{
	int isa = req_ptx_isa_max(toolkit);
	return isa ? req_ptx_isa_cuda(isa / 10, isa % 10) : 0;
}
