/* make bench: the cost cushim adds to a driver call.
 *
 * In one process: a call by name (cuCtxGetCurrent(...), through the PLT: under
 * LD_PRELOAD=libcushim.so that is cushim's stub) against a call through the
 * driver's own pointer (dlsym on the driver's handle: never cushim). Best of
 * several interleaved rounds; prints the added nanoseconds per call. Run
 * without the shim, the same difference is the noise floor.  Works on the fake
 * driver (no GPU) and on a real one (then it also measures cuStreamQuery and
 * cuLaunchKernel of an empty kernel).  cuModuleLoadData with cuModuleUnload,
 * a load that succeeds, is measured on both: cushim wraps the loaders to
 * explain a refused image.
 *
 * With CUSHIM_BENCH_NEXT=1 under LD_PRELOAD="libcushim.so X", where X is a
 * library that hooks the driver (HAMi-core's libvgpu.so), "direct" is what
 * cushim forwards to (cushim_real_pointer): X's own function where X has one,
 * so the difference is what cushim adds on top of X; cuLaunchKernel is then
 * measured on the fake driver too (no kernel: the call alone).
 *
 * With CUSHIM_BENCH_VERSION=1 it also measures cuDriverGetVersion (in
 * masquerade, the runtime gate's cost once it has judged), after loading
 * the libraries CUSHIM_BENCH_LOAD names (paths, separated by spaces: CUDA
 * runtimes, so that the gate has some to judge).  CUSHIM_BENCH_LAUNCHES=1
 * measures the launches alone. */
#define _GNU_SOURCE
#include <cuda.h>
#include "cushim.h"
#include "ticks.h" /* cushim_ticks: the clock the diagnostics read */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const unsigned char gpu_kernels_fatbin[] __attribute__((weak));

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef CUresult (*ctxget_fn)(CUcontext *);
typedef CUresult (*query_fn)(CUstream);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			      CUstream, void **, void **);

typedef CUresult (*version_fn)(int *);
typedef CUresult (*modload_fn)(CUmodule *, const void *);
typedef CUresult (*modunload_fn)(CUmodule);

static long iters = 20000000;
static modload_fn d_modload;
static modunload_fn d_modunload;
static const void *image = "";
static ctxget_fn d_ctxget;
static version_fn d_version;
static query_fn d_query;
static launch_fn d_launch;
static CUfunction nop;

/* The floor of any recorder that keeps a call's start and end ticks and its
 * argument words: an ideal record, inline, laid out as the recorder lays
 * it out (records.h: a head cell, one more per seven words past the
 * third) in a ring of 1 MiB, and nothing else: no ring of the thread to
 * find, no table, no flag. */
#define IDEAL_CELLS 16384
static struct {
	uint64_t tag, w[7]; /* records.h's cell */
} ideal_ring[IDEAL_CELLS] __attribute__((aligned(64)));
static uint64_t ideal_pos;

static inline void ideal_cell(const uint64_t w[7])
{
	__typeof__(&ideal_ring[0]) c = &ideal_ring[ideal_pos & (IDEAL_CELLS - 1)];
	c->tag = 0;
	__asm__ volatile("" : : : "memory");
	for (unsigned k = 0; k < 7; k++)
		c->w[k] = w[k];
	__asm__ volatile("" : : : "memory");
	c->tag = ++ideal_pos << 1;
}

static inline void ideal_record(uint64_t t0, uint64_t t1, const uint64_t *w, unsigned n)
{
	uint64_t h[7] = { ideal_pos, 0, t0, t1, n > 0 ? w[0] : 0, n > 1 ? w[1] : 0, n > 2 ? w[2] : 0 };
	ideal_cell(h);
	for (unsigned k = 3; k < n; k += 7) {
		uint64_t m[7];
		for (unsigned j = 0; j < 7; j++)
			m[j] = k + j < n ? w[k + j] : 0;
		ideal_cell(m);
	}
}

/* side 0: the driver's cuCtxGetCurrent; 1: the same with an ideal record */
static double loop_ctxget_ideal(int side)
{
	CUcontext c;
	ctxget_fn direct = d_ctxget;
	__asm__("" : "+r"(direct));
	double t = now();
	for (long i = 0; i < iters; i++) {
		uint64_t t0 = side ? cushim_ticks() : 0;
		direct(&c);
		if (side) {
			uint64_t w = (uint64_t)(uintptr_t)&c;
			ideal_record(t0, cushim_ticks(), &w, 1);
		}
	}
	return (now() - t) / (double)iters;
}

static double loop_ctxget(int shim)
{
	CUcontext c;
	ctxget_fn direct = d_ctxget;
	__asm__("" : "+r"(direct)); /* an opaque pointer, held in a register */
	double t = now();
	if (shim)
		for (long i = 0; i < iters; i++)
			cuCtxGetCurrent(&c);
	else
		for (long i = 0; i < iters; i++)
			direct(&c);
	return (now() - t) / (double)iters;
}

static double loop_version(int shim)
{
	int v;
	version_fn direct = d_version;
	__asm__("" : "+r"(direct));
	double t = now();
	if (shim)
		for (long i = 0; i < iters; i++)
			cuDriverGetVersion(&v);
	else
		for (long i = 0; i < iters; i++)
			direct(&v);
	return (now() - t) / (double)iters;
}

/* The libraries CUSHIM_BENCH_LOAD names, loaded: 0 if one does not load. */
static int load_named(void)
{
	char list[4096], *save = NULL;
	const char *names = getenv("CUSHIM_BENCH_LOAD");

	if (!names)
		return 1;
	snprintf(list, sizeof list, "%s", names);
	for (char *p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (!dlopen(p, RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "bench-calls: %s\n", dlerror());
			return 0;
		}
		printf("loaded             %s\n", p);
	}
	return 1;
}

static double loop_query(int shim)
{
	query_fn direct = d_query;
	__asm__("" : "+r"(direct));
	long n = iters / 20;
	double t = now();
	if (shim)
		for (long i = 0; i < n; i++)
			cuStreamQuery(NULL);
	else
		for (long i = 0; i < n; i++)
			direct(NULL);
	return (now() - t) / (double)n;
}

/* A wrapper's frame and nothing more: the call through one more frame,
 * its arguments kept across it as a wrapper that records them keeps them
 * (noipa: not specialised for the constants the caller passes). */
#if defined(__clang__)
#define NOT_SPECIALISED __attribute__((noinline))
#else
#define NOT_SPECIALISED __attribute__((noipa))
#endif
static NOT_SPECIALISED CUresult framed(launch_fn f, CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
						  unsigned bx, unsigned by, unsigned bz, unsigned shm, CUstream st,
						  void **params, void **extra)
{
	CUresult r = f(fn, gx, gy, gz, bx, by, bz, shm, st, params, extra);
	__asm__ volatile("" : "+r"(r) : "g"(fn), "g"(gx), "g"(gy), "g"(gz), "g"(bx), "g"(by), "g"(bz), "g"(shm),
			 "g"(st), "g"(params), "g"(extra));
	return r;
}

/* Launches of the empty kernel, timed in batches short enough that the
 * launch queue never fills: a launch that waited for the GPU to drain the
 * queue would time the GPU, not the call.  Side 0 launches direct; side 1
 * as how says: by name, or direct with an ideal record of its eleven
 * words, with the two clock reads alone, or through a frame alone (what
 * a recorder's parts cost around a real launch).  The sides take turns
 * batch by batch (each going first in every other), so that what drifts
 * while the GPU works falls on both alike; the synchronisations between
 * batches are not timed.  out: ns per call. */
enum { BY_NAME, IDEAL, CLOCKS, FRAME };
static void launch_sides(double out[2], int how)
{
	launch_fn direct = d_launch;
	__asm__("" : "+r"(direct));
	const long batch = 200, n = 20000;
	double spent[2] = { 0, 0 };
	for (long b = 0; b < 2 * n / batch; b++) {
		int side = (int)((b ^ b >> 1) & 1), h = side ? how : -1;
		double t = now();
		for (long i = 0; i < batch; i++) {
			if (h == BY_NAME) {
				cuLaunchKernel(nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
				continue;
			}
			if (h == FRAME) {
				framed(direct, nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
				continue;
			}
			uint64_t t0 = h > 0 ? cushim_ticks() : 0;
			direct(nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
			if (h == CLOCKS) {
				uint64_t t1 = cushim_ticks();
				__asm__ volatile("" : : "r"(t0), "r"(t1));
			} else if (h == IDEAL) {
				const uint64_t w[11] = { (uint64_t)(uintptr_t)nop, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0 };
				ideal_record(t0, cushim_ticks(), w, 11);
			}
		}
		spent[side] += now() - t;
		cuCtxSynchronize();
	}
	out[0] = spent[0] / (double)n, out[1] = spent[1] / (double)n;
}

static void launch_pair(double out[2])
{
	launch_sides(out, BY_NAME);
}

static void launch_ideal_pair(double out[2])
{
	launch_sides(out, IDEAL);
}

static void launch_clocks_pair(double out[2])
{
	launch_sides(out, CLOCKS);
}

static void launch_frame_pair(double out[2])
{
	launch_sides(out, FRAME);
}

/* What a program's own work, or a real launch's work in the driver, leaves
 * between two driver calls: the first-level data cache emptied by 256 KiB
 * of other memory traffic and, with code, the first-level code cache by
 * 48 KiB of other instructions.  Neither reaches past the second level, so
 * a real launch may cost more. */
static unsigned char junk[256 << 10];

static void chill(int code)
{
	for (size_t k = 0; k < sizeof junk; k += 64)
		junk[k]++;
	__asm__ volatile("" : : "r"(junk) : "memory");
#if defined(__x86_64__)
	if (code) /* 16384 instructions of three bytes, in a row */
		__asm__ volatile(".rept 16384\n\taddl $1, %%eax\n\t.endr" : : : "eax", "cc");
#endif
	(void)code;
}

/* cuCtxGetCurrent (launch 0) or cuLaunchKernel on the fake (1), each call
 * after chill (untimed), timed alone, so both sides carry two clock reads
 * and the ratio is below the others'; the added figure is the one to read.
 * By name and direct take turns call by call. */
static void cold_sides(double out[2], int launch)
{
	ctxget_fn ctxget = d_ctxget;
	launch_fn launcher = d_launch;
	__asm__("" : "+r"(ctxget), "+r"(launcher));
	const long n = launch ? 5000 : 20000;
	double spent[2] = { 0, 0 };
	CUcontext c;
	for (long i = 0; i < 2 * n; i++) {
		int shim = (int)((i ^ i >> 1) & 1);
		chill(launch);
		double t = now();
		if (launch && shim)
			cuLaunchKernel(nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
		else if (launch)
			launcher(nop, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
		else if (shim)
			cuCtxGetCurrent(&c);
		else
			ctxget(&c);
		spent[shim] += now() - t;
	}
	out[0] = spent[0] / (double)n, out[1] = spent[1] / (double)n;
}

static void cold_pair(double out[2])
{
	cold_sides(out, 0);
}

static void cold_launch_pair(double out[2])
{
	cold_sides(out, 1);
}

/* What one read of the clock the diagnostics use costs on this CPU: summary
 * and trace read it twice a call, so their added cost cannot be below it. */
static void clock_cost(void)
{
#if defined(CUSHIM_COUNTER)
	uint64_t sum = 0;
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t = now();
		for (long i = 0; i < 2000000; i++)
			sum += cushim_ticks();
		t = (now() - t) / 2e6;
		if (t < best)
			best = t;
	}
	__asm__("" : : "r"(sum));
	printf("clock              one %s read %.2f ns (the summary and the trace read it twice a call)\n", CUSHIM_COUNTER,
	       best);
#endif
}

/* A successful load and its unload: by name (cushim's wrapper) or direct. */
static double loop_modload(int shim)
{
	CUmodule m;
	modload_fn load = d_modload;
	modunload_fn unload = d_modunload;
	__asm__("" : "+r"(load), "+r"(unload));
	long n = iters / 100 > 0 ? iters / 100 : 1;
	double t = now();
	if (shim)
		for (long i = 0; i < n; i++)
			cuModuleLoadData(&m, image), cuModuleUnload(m);
	else
		for (long i = 0; i < n; i++)
			load(&m, image), unload(m);
	return (now() - t) / (double)n;
}

static void report(const char *name, const double best[2])
{
	printf("%-18s by name %9.2f ns   direct %9.2f ns   added %+7.2f ns per call   ratio %.3f\n", name, best[1],
	       best[0], best[1] - best[0], best[0] > 0 ? best[1] / best[0] : 0.0);
}

static void measure(const char *name, double (*loop)(int), int rounds)
{
	double best[2] = { 1e30, 1e30 };
	loop(0), loop(1); /* warm up (and the first call's bootstrap) */
	for (int r = 0; r < rounds; r++)
		for (int s = 0; s < 2; s++) {
			double x = loop(s);
			if (x < best[s])
				best[s] = x;
		}
	report(name, best);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* For a loop that times both sides itself, turn about: the median of the
 * rounds' differences (drift between rounds falls on both sides of each),
 * with the rounds' spread. */
static void measure_pair(const char *name, void (*pair)(double[2]), int rounds)
{
	double x[2], side[2][32], diff[32], mid[2];
	if (rounds > 32)
		rounds = 32;
	pair(x); /* warm up */
	for (int r = 0; r < rounds; r++) {
		pair(x);
		side[0][r] = x[0], side[1][r] = x[1], diff[r] = x[1] - x[0];
	}
	qsort(diff, (size_t)rounds, sizeof *diff, by_value);
	for (int s = 0; s < 2; s++) {
		qsort(side[s], (size_t)rounds, sizeof side[s][0], by_value);
		mid[s] = side[s][rounds / 2];
	}
	printf("%-18s by name %9.2f ns   direct %9.2f ns   added %+7.2f ns per call   ratio %.3f   (median of %d "
	       "rounds; added %+.2f to %+.2f)\n", name, mid[1], mid[0], diff[rounds / 2],
	       mid[0] > 0 ? (mid[0] + diff[rounds / 2]) / mid[0] : 0.0, rounds, diff[0], diff[rounds - 1]);
}

static const char *object_name(void *p)
{
	Dl_info info;
	const char *s;

	if (!dladdr(p, &info) || !info.dli_fname)
		return "?";
	return (s = strrchr(info.dli_fname, '/')) ? s + 1 : info.dli_fname;
}

/* "direct" is what cushim forwards each call to; 0 where cushim is not loaded. */
static int use_next_pointers(void)
{
	__typeof__(&cushim_real_pointer) real = CUSHIM_FN(RTLD_DEFAULT, cushim_real_pointer);
	modload_fn load;
	modunload_fn unload;

	if (!getenv("CUSHIM_BENCH_NEXT") || !real)
		return 0;
	d_ctxget = (ctxget_fn)real("cuCtxGetCurrent");
	d_version = (version_fn)real("cuDriverGetVersion");
	if ((load = (modload_fn)real("cuModuleLoadData")) && (unload = (modunload_fn)real("cuModuleUnload")))
		d_modload = load, d_modunload = unload;
	d_query = (query_fn)real("cuStreamQuery");
	d_launch = (launch_fn)real("cuLaunchKernel");
	return d_ctxget && d_launch;
}

int main(int argc, char **argv)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	__typeof__(&cushim_bootstrap_times) boot_times = CUSHIM_FN(RTLD_DEFAULT, cushim_bootstrap_times);
	const char *mode = getenv("CUSHIM_BENCH_MODE");
	int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
	int launches_only = getenv("CUSHIM_BENCH_LAUNCHES") != NULL; /* the launches alone: a quicker run */
	CUdevice dev;
	CUcontext ctx = NULL;
	double t0;
	int next;

	if (getenv("CUSHIM_BENCH_ITERS"))
		iters = atol(getenv("CUSHIM_BENCH_ITERS"));
	if (!drv) {
		fprintf(stderr, "bench-calls: no libcuda.so.1: %s\n", dlerror());
		return 77;
	}
	d_ctxget = (ctxget_fn)dlsym(drv, "cuCtxGetCurrent");
	d_version = (version_fn)dlsym(drv, "cuDriverGetVersion");
	d_query = (query_fn)dlsym(drv, "cuStreamQuery");
	d_launch = (launch_fn)dlsym(drv, "cuLaunchKernel");
	d_modload = (modload_fn)dlsym(drv, "cuModuleLoadData");
	d_modunload = (modunload_fn)dlsym(drv, "cuModuleUnload");
	t0 = now();
	CUresult r = cuInit(0); /* the first call: under the shim, the bootstrap */
	double first = now() - t0;
	printf("== %s, %s ==\n", boot_times ? "under cushim" : "without cushim", mode ? mode : "plain");
	if (boot_times) {
		uint64_t f = 0, rs = 0;
		int n = boot_times(&f, &rs);
		printf("bootstrap          first call %.3f ms: finding entry points %.3f ms, resolving %d exports "
		       "%.1f us\n", first / 1e6, (double)f / 1e6, n, (double)rs / 1e3);
	}
	if (!boot_times) {
		clock_cost();
		if (!launches_only)
			measure("ideal record", loop_ctxget_ideal, 7);
	}
	if ((next = use_next_pointers()))
		printf("direct             what cushim forwards to: cuLaunchKernel in %s\n", object_name(d_launch));
	if (!launches_only) {
		measure("cuCtxGetCurrent", loop_ctxget, 7);
		measure_pair("cuCtxGetCurrent, cold", cold_pair, 9);
	}
	if (getenv("CUSHIM_BENCH_VERSION") && d_version) {
		if (!load_named())
			return 1;
		measure("cuDriverGetVersion", loop_version, 7);
	}
	if (next && !gpu) {
		measure_pair("cuLaunchKernel", launch_pair, 9);
		measure_pair("cuLaunchKernel, cold", cold_launch_pair, 9);
	}
	if (gpu && r == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
	    cuCtxCreate(&ctx, NULL, 0, dev) == CUDA_SUCCESS) {
		CUmodule mod;
		if (!launches_only)
			measure("cuStreamQuery", loop_query, 5);
		if (&gpu_kernels_fatbin && cuModuleLoadData(&mod, gpu_kernels_fatbin) == CUDA_SUCCESS &&
		    cuModuleGetFunction(&nop, mod, "nop") == CUDA_SUCCESS) {
			measure_pair("cuLaunchKernel", launch_pair, 15);
			if (!boot_times) { /* the parts of a recorder's cost, around a real launch */
				measure_pair("launch+ideal rec", launch_ideal_pair, 15);
				measure_pair("launch+2 clocks", launch_clocks_pair, 15);
				measure_pair("launch+frame", launch_frame_pair, 15);
			}
			image = gpu_kernels_fatbin;
		}
	}
	if (!launches_only && (!gpu || image != (const void *)""))
		measure("cuModuleLoad+Un", loop_modload, 5);
	return 0;
}
