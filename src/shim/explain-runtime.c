/* A runtime that refuses the driver.  A CUDA runtime checks the driver's
 * version itself (cudaErrorInsufficientDriver, which never reaches the
 * driver); under masquerade the version it reads is cushim's answer to
 * cuDriverGetVersion.  When that answer is below what a runtime loaded in
 * the process accepts (minor version compatibility: a runtime of CUDA X.y
 * runs on a driver of CUDA X.0 or later, requirements.c), cushim says which
 * file carries that runtime, its version, the driver it needs, and that
 * cushim cannot lift that gate.  A runtime is a libcudart.so.N loaded, or one
 * linked statically into the main program or into the object that called,
 * known by the marks cushim check reads (rtmarks.c). */
#include "table.h"
#include "slots.h"
#include "settings.h"
#include "explain.h"
#include "boot.h"
#include "requirements.h"
#include "rtmarks.h"
#include <errno.h> /* program_invocation_name */
#include <limits.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *answer; /* cuDriverGetVersion as it was before the gate */
static int said;

struct runtime {
	char path[1024];
	int version; /* 13000 */
	int linked;  /* linked statically into path */
};

/* The version a runtime's file name says: libcudart.so.12.4.127 -> 12040,
 * libcudart.so.12 -> 12000; 0 for another name. */
static int version_of_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *end;
	long major, minor = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, "libcudart.so.", 13) != 0)
		return 0;
	major = strtol(base + 13, &end, 10);
	if (*end == '.')
		minor = strtol(end + 1, NULL, 10);
	return major > 0 && major < 100 && minor >= 0 && minor < 100 ? (int)(major * 1000 + minor * 10) : 0;
}

/* The newest runtime among the loaded objects named libcudart.so.N...: its
 * version from the file the name leads to (libcudart.so.12 ->
 * libcudart.so.12.4.127), else from the soname.  Never a call into the
 * runtime: it may be asking from inside its own initialisation. */
static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	struct runtime *rt = data;
	char real[PATH_MAX];
	int v = version_of_name(info->dlpi_name), exact;

	if (!v)
		return 0;
	if (realpath(info->dlpi_name, real) && (exact = version_of_name(real)) / 1000 == v / 1000)
		v = exact;
	if (v > rt->version) {
		rt->version = v;
		snprintf(rt->path, sizeof rt->path, "%s", info->dlpi_name);
	}
	return 0;
}

/* ---- runtimes linked statically (rtmarks.c, as cushim check finds them) ---- */
struct seek {
	const void *addr; /* in the object sought; NULL: the main program */
	struct runtime *rt;
};

static int holds(const struct dl_phdr_info *info, const void *addr)
{
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (uintptr_t)addr >= at && (uintptr_t)addr - at < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The runtime's marks in the object's loaded file bytes, if it is the one sought. */
static int find_static(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seek *s = data;
	int mark = 0, release = 0;
	char text[64];
	if (s->addr ? !holds(info, s->addr) : info->dlpi_name[0] != '\0')
		return 0;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		mark |= rt_has_runtime_mark(p, ph->p_filesz);
		rt_find_release(p, ph->p_filesz, &release, text, sizeof text);
	}
	if (mark && release > s->rt->version) {
		s->rt->version = release;
		s->rt->linked = 1;
		snprintf(s->rt->path, sizeof s->rt->path, "%s", info->dlpi_name[0] ? info->dlpi_name :
			 program_invocation_name);
	}
	return 1;
}

/* The runtime linked into the object that holds addr (NULL: the main
 * program), if newer than best's; each object scanned once. */
static void linked_in(const void *addr, struct runtime *best)
{
	static struct {
		const void *key;
		struct runtime rt;
	} cache[8];
	static int ncache;
	Dl_info di;
	const void *key = !addr ? (const void *)&cache : dladdr(addr, &di) ? di.dli_fbase : NULL;
	struct runtime r = { "", 0, 0 };
	int k = 0;

	while (k < ncache && cache[k].key != key)
		k++;
	if (!key)
		return;
	if (k < ncache) {
		r = cache[k].rt;
	} else {
		struct seek s = { addr, &r };
		dl_iterate_phdr(find_static, &s);
		if (ncache < 8)
			cache[ncache].key = key, cache[ncache++].rt = r;
	}
	if (r.version > best->version)
		*best = r;
}

static void say(int answered, const struct runtime *rt, int min)
{
	char text[2048], a[16], r[16], need[16], real[16];
	int emulated = cushim_emulating && cushim_state.real_driver_version > answered;
	int liftable = emulated && cushim_state.real_driver_version >= min; /* the real driver would do */

	cushim_format_version(answered, a);
	cushim_format_version(rt->version, r);
	cushim_format_version(min, need);
	snprintf(text, sizeof text, "cuDriverGetVersion answers CUDA %s%s%s%s, but the CUDA runtime %s %s %s needs a "
		 "driver of CUDA %s or later (branch %d or later) and refuses this one (cudaErrorInsufficientDriver). "
		 "cushim cannot lift that gate: the runtime checks the version itself. %s%s%s", a,
		 emulated ? " (emulated by CUSHIM_DRIVER_VERSION; the driver is CUDA " : "",
		 emulated ? cushim_format_version(cushim_state.real_driver_version, real) : "", emulated ? ")" : "",
		 r, rt->linked ? "linked statically into" : "in", rt->path, need, cli_driver_branch(min),
		 liftable ? "Unset CUSHIM_DRIVER_VERSION or set it to " : "Update the driver to ",
		 liftable ? need : "that branch", " or later, or use a CUDA runtime this driver accepts (the program "
		 "built with a toolkit of the driver's major release).");
	cushim_cause("runtime", text);
}

/* The newest runtime in the process: a libcudart loaded, or one linked into
 * the main program or into the caller's object; said once if it refuses. */
static void judge(int answered, const void *caller)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct runtime rt = { "", 0, 0 };

	pthread_mutex_lock(&lock);
	dl_iterate_phdr(find_runtime, &rt);
	linked_in(NULL, &rt);
	if (caller && !cushim_inside_self(caller))
		linked_in(caller, &rt);
	int min = cli_runtime_min_driver(rt.version);
	if (rt.version && answered < min && !__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
		say(answered, &rt, min);
	pthread_mutex_unlock(&lock);
}

static CUresult CUDAAPI gate_cuDriverGetVersion(int *version)
{
	CUresult r = ((CUresult (CUDAAPI *)(int *))answer)(version);
	if (r == CUDA_SUCCESS && version && !__atomic_load_n(&said, __ATOMIC_ACQUIRE))
		judge(*version, __builtin_return_address(0));
	return r;
}

void cushim_runtime_gate_install(void)
{
	unsigned i = CUSHIM_IDX_cuDriverGetVersion;
	if (!cushim_impl[i] || answer)
		return;
	answer = cushim_impl[i];
	cushim_set_impl(i, (void *)gate_cuDriverGetVersion);
}
