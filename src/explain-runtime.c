/* A runtime that refuses the driver.  A CUDA runtime checks the driver's
 * version itself (cudaErrorInsufficientDriver, which never reaches the
 * driver); under masquerade the version it reads is cushim's answer to
 * cuDriverGetVersion.  When that answer is below what a runtime loaded in
 * the process accepts (minor version compatibility: a runtime of CUDA X.y
 * runs on a driver of CUDA X.0 or later, requirements.c), cushim says which
 * file carries that runtime, its version, the driver it needs, and that
 * cushim cannot lift that gate. */
#include "explain.h"
#include "boot.h"
#include "requirements.h"
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

static void *answer; /* cuDriverGetVersion as it was before the gate */
static int said;

struct runtime {
	char path[1024];
	int version; /* 13000 */
};

/* The newest runtime among the loaded objects named libcudart.so.N...:
 * its version from its own cudaRuntimeGetVersion, else from the soname. */
static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	struct runtime *rt = data;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libcudart.so.", 13) != 0)
		return 0;
	int v = atoi(base + 13) * 1000;
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	int (*get)(int *) = h ? (int (*)(int *))dlsym(h, "cudaRuntimeGetVersion") : NULL;
	int exact = 0;
	if (get && get(&exact) == 0 && exact / 1000 == v / 1000)
		v = exact;
	if (h)
		dlclose(h);
	if (v > rt->version) {
		rt->version = v;
		snprintf(rt->path, sizeof rt->path, "%s", info->dlpi_name);
	}
	return 0;
}

static void judge(int answered)
{
	struct runtime rt = { "", 0 };
	char text[2048], a[16], r[16], need[16], real[16];

	dl_iterate_phdr(find_runtime, &rt);
	int min = cli_runtime_min_driver(rt.version), branch = cli_driver_branch(min);
	if (!rt.version || answered >= min || __atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
		return;
	cushim_format_version(answered, a);
	cushim_format_version(rt.version, r);
	cushim_format_version(min, need);
	int emulated = cushim_emulating && cushim_state.real_driver_version > answered;
	int liftable = emulated && cushim_state.real_driver_version >= min; /* the real driver would do */
	snprintf(text, sizeof text, "cuDriverGetVersion answers CUDA %s%s%s%s, but the CUDA runtime %s in %s needs a "
		 "driver of CUDA %s or later (branch %d or later) and refuses this one (cudaErrorInsufficientDriver). "
		 "cushim cannot lift that gate: the runtime checks the version itself. %s%s%s", a,
		 emulated ? " (emulated by CUSHIM_DRIVER_VERSION; the driver is CUDA " : "",
		 emulated ? cushim_format_version(cushim_state.real_driver_version, real) : "", emulated ? ")" : "",
		 r, rt.path, need, branch, liftable ? "Unset CUSHIM_DRIVER_VERSION or set it to " : "Update the driver to ",
		 liftable ? need : "that branch", " or later, or use a CUDA runtime this driver accepts (the program "
		 "built with a toolkit of the driver's major release).");
	cushim_cause("runtime", text);
}

static CUresult CUDAAPI gate_cuDriverGetVersion(int *version)
{
	CUresult r = ((CUresult (CUDAAPI *)(int *))answer)(version);
	if (r == CUDA_SUCCESS && version && !__atomic_load_n(&said, __ATOMIC_ACQUIRE))
		judge(*version);
	return r;
}

void cushim_runtime_gate_install(void)
{
	unsigned i = CUSHIM_IDX_cuDriverGetVersion;
	if (!cushim_impl[i] || answer)
		return;
	answer = cushim_impl[i];
	cushim_impl[i] = (void *)gate_cuDriverGetVersion;
}
