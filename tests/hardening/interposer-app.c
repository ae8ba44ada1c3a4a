/* A driver-API program for tests/hardening/interposer.sh, run with an
 * interposer that hooks the driver (tests/fake/fake-vgpu.c) preloaded beside
 * cushim.  It makes its calls the three ways a program reaches the driver (by
 * name, through its own cuGetProcAddress, and as a runtime does: dlopen and
 * dlsym of cuGetProcAddress_v2) and prints one key=value a line: each
 * result, and what the interposer and the driver counted.
 *   interposer-app run     the calls; the interposer's limit must be exceeded
 *   interposer-app fork    then 4 threads fork 8 times each while the main
 *                          thread keeps calling: each child allocates above
 *                          the limit and exits 0 when refused
 *   interposer-app where   also, for a few exports, the file behind cushim's
 *                          forwarding pointer (dladdr), its symbol name and
 *                          whether the interposer hooks that name
 *   interposer-app runtime first, as a runtime program does, a CUDA runtime
 *                          (libcudart.so.13) asked for an entry point: it
 *                          loads and initialises the driver, and cushim's
 *                          first call comes from inside its initialisation */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG ((size_t)1 << 30) /* above the limit the tests set */
#define LAUNCHES 10
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef long (*count_fn)(const char *);

/* The driver APP_DRIVER names (the real one in masquerade, where
 * libcuda.so.1 is cushim), through the C library's own dlopen: an
 * interposer's dlopen may answer any "libcuda.so.N" with itself. */
static void *driver(void)
{
	typedef void *(*dlopen_fn)(const char *, int);
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	const char *path = getenv("APP_DRIVER");
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	dlopen_fn f = NULL;

	for (size_t i = 0; libc && !f && i < sizeof versions / sizeof *versions; i++)
		f = (dlopen_fn)dlvsym(libc, "dlopen", versions[i]);
	if (libc)
		dlclose(libc);
	return path ? (f ? f : dlopen)(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
}

/* A counter of the interposer or of the driver; -2 where none is found. */
static long count(const char *lib_fn, const char *name)
{
	count_fn f = (count_fn)dlsym(RTLD_DEFAULT, lib_fn);
	void *drv;

	if (!f && (drv = driver()))
		f = (count_fn)dlsym(drv, lib_fn);
	return f ? f(name) : -2;
}

/* The runtime's way: its own dlopen of the driver and dlsym of the lookup. */
static int runtime_route_alloc(size_t size)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *p = NULL;
	gpa2_fn gpa = h ? (gpa2_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
	CUdeviceptr d;

	if (!gpa || gpa("cuMemAlloc", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS || !p)
		return -1;
	return ((alloc_fn)p)(&d, size);
}

/* cuGetExportTable goes to the driver untouched: its answer as the driver
 * gave it, and the driver saw the program's own two arguments. */
static void export_table(void)
{
	typedef unsigned long long (*word_fn)(int);
	word_fn word = (word_fn)dlsym(RTLD_DEFAULT, "fake_last_word");
	const void *table = &table;
	CUuuid id = { { 7 } };
	void *drv;
	int rc = cuGetExportTable(&table, &id);

	if (!word && (drv = driver()))
		word = (word_fn)dlsym(drv, "fake_last_word");
	printf("export_table=%d table=%s args=%s\n", rc, table ? "set" : "NULL",
	       word && word(0) == (uintptr_t)&table && word(1) == (uintptr_t)&id ? "the program's" : "changed");
}

static void calls(void)
{
	CUdeviceptr d;
	void *p = NULL;
	size_t free_b = 0, total = 0;
	int v = 0, rc = 0, launch = 0;

	printf("init=%d\n", cuInit(0));
	rc = cuDriverGetVersion(&v);
	printf("version_rc=%d version=%d\n", rc, v);
	printf("meminfo=%d\n", cuMemGetInfo(&free_b, &total));
	printf("alloc_small=%d\n", cuMemAlloc(&d, 4096));
	printf("alloc_over=%d\n", cuMemAlloc(&d, BIG));
	rc = -1;
	if (cuGetProcAddress("cuMemAlloc", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) == CUDA_SUCCESS && p)
		rc = ((alloc_fn)p)(&d, BIG);
	printf("gpa_over=%d\n", rc);
	printf("runtime_over=%d\n", runtime_route_alloc(BIG));
	for (int i = 0; i < LAUNCHES; i++)
		launch |= cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
	printf("launch=%d\n", launch);
	printf("vgpu_alloc=%ld vgpu_launch=%ld\n", count("fakevgpu_calls", "cuMemAlloc_v2"),
	       count("fakevgpu_calls", "cuLaunchKernel"));
	printf("driver_launch=%ld\n", count("fake_calls", "cuLaunchKernel"));
	export_table();
}

static void *forker(void *arg)
{
	long bad = 0;
	for (int i = 0; i < 8; i++) {
		int st;
		pid_t pid = fork();
		if (pid == 0) {
			CUdeviceptr d;
			_exit(cuMemAlloc(&d, BIG) == CUDA_ERROR_OUT_OF_MEMORY ? 0 : 1);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	return (void *)bad;
}

static void storm(void)
{
	pthread_t t[4];
	long bad = 0;
	CUcontext c;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, forker, NULL);
	for (int i = 0; i < 2000; i++)
		cuCtxGetCurrent(&c);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("fork_children_failed=%ld\n", bad);
}

/* The runtime's first call, made before any of the program's own. */
static void runtime_first(void)
{
	typedef int (*entry_fn)(const char *, void **, unsigned long long, int *);
	void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL), *p = NULL;
	entry_fn entry = h ? (entry_fn)dlsym(h, "cudaGetDriverEntryPoint") : NULL;
	int status = -1, rc = entry ? entry("cuMemAlloc", &p, 0, &status) : -1;

	printf("runtime_entry=%d status=%d found=%s\n", rc, status, p ? "yes" : "no");
}

/* The file and symbol behind cushim's pointer for an export. */
static void where(const char *name)
{
	void *(*real)(const char *) = (void *(*)(const char *))dlsym(RTLD_DEFAULT, "cushim_real_pointer");
	void *p = real ? real(name) : NULL;
	Dl_info info;
	const char *file = "none", *sym = "none";

	if (p && dladdr(p, &info)) {
		file = info.dli_fname ? strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname : "?";
		sym = info.dli_sname ? info.dli_sname : "?";
	}
	printf("where %s=%s:%s:%s\n", name, file, sym, count("fakevgpu_calls", name) >= 0 ? "hooked" : "not-hooked");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";
	static const char *const names[] = { "cuInit", "cuMemAlloc_v2", "cuLaunchKernel", "cuMemGetInfo_v2",
					     "cuGetProcAddress_v2", "cuMemcpyHtoD_v2", "cuCtxGetCurrent",
					     "cuMemFree_v2" };

	if (strcmp(mode, "runtime") == 0)
		runtime_first();
	calls();
	if (strcmp(mode, "fork") == 0)
		storm();
	if (strcmp(mode, "where") == 0)
		for (size_t i = 0; i < sizeof names / sizeof *names; i++)
			where(names[i]);
	return 0;
}
