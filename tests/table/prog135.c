/* A "CUDA 13.5 program", as a binary built with the 13.5 headers would be:
 * it imports cuLaunchHostFunc_v2 (13.1), cuGraphGetId (13.1),
 * cuFuncGetParamCount (13.2) and cuDevSmResourceSplit (13.1) beside calls
 * every driver has, and it is linked with -z now against a libcuda.so built
 * from cushim's committed table (so it loads only where every import exists).
 * The prototypes are written here, with the 13.5 ABI, since the toolkit of
 * this machine is older.
 *
 * Run on the fake driver (tests/fake), it checks that each older call reached
 * the fake with exactly its arguments; on a real driver it passes only NULL
 * handles and launches nothing.  One line per call: "<name> <result>".
 * Argument: the syncMode for cuLaunchHostFunc_v2. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUfunc_st *CUfunction;
typedef void (*CUhostFn)(void *userData);
typedef struct CUdevResource_st CUdevResource;
typedef struct CU_DEV_SM_RESOURCE_GROUP_PARAMS_st CU_DEV_SM_RESOURCE_GROUP_PARAMS;

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuCtxGetCurrent(CUcontext *pctx);
CUresult cuMemAlloc_v2(unsigned long long *dptr, size_t bytesize);
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra);
/* CUDA 13.1 to 13.5 */
CUresult cuLaunchHostFunc_v2(CUstream hStream, CUhostFn fn, void *userData, unsigned int syncMode);
CUresult cuGraphGetId(CUgraph hGraph, unsigned int *graphId);
CUresult cuFuncGetParamCount(CUfunction func, size_t *paramCount);
CUresult cuDevSmResourceSplit(CUdevResource *result, unsigned int nbGroups, const CUdevResource *input,
			      CUdevResource *remainder, unsigned int flags, CU_DEV_SM_RESOURCE_GROUP_PARAMS *groupParams);

static int failures;

static int on_fake; /* libcuda.so.1 is tests/fake's: it records every call */

/* What the fake recorded of the last call: its name and argument words (an
 * int argument is the low half of its word). */
#define INT 0x100000000ull
static void reached(const char *name, int n, const unsigned long long *words)
{
	const char *(*last_name)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "fake_last_name");
	unsigned long long (*last_word)(int) = (unsigned long long (*)(int))dlsym(RTLD_DEFAULT, "fake_last_word");

	if (!on_fake)
		return;
	if (!last_name() || strcmp(last_name(), name) != 0) {
		printf("FAIL: %s did not reach the driver's %s (last: %s)\n", name, name, last_name() ? last_name() : "-");
		failures++;
		return;
	}
	for (int k = 0; k < n; k++) {
		unsigned long long got = last_word(k), want = words[k];
		if (want >= INT && want < 2 * INT) /* an int: compare 32 bits */
			got &= 0xffffffffull, want -= INT;
		if (got != want) {
			printf("FAIL: %s argument word %d is %#llx, sent %#llx\n", name, k, got, want);
			failures++;
		}
	}
}

#define W(x) ((unsigned long long)(size_t)(x))

static void host_fn(void *data)
{
	(void)data;
}

/* A handle for the fake, NULL for a real driver. */
#define H(type, value) ((type)(on_fake ? (size_t)(value) : 0))

int main(int argc, char **argv)
{
	unsigned int sync = argc > 1 ? (unsigned int)atoi(argv[1]) : 0, id = 0;
	unsigned long long dptr = 0;
	CUcontext ctx = NULL;
	size_t count = 0;
	int version = 0;
	void *params[1] = { NULL }, *extra[1] = { NULL };
	CUresult rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	on_fake = dlsym(RTLD_DEFAULT, "fake_last_name") && dlsym(RTLD_DEFAULT, "fake_last_word");
	printf("cuInit %d\n", cuInit(0));
	rc = cuDriverGetVersion(&version);
	printf("cuDriverGetVersion %d (CUDA %d)\n", rc, version);
	for (int round = 0; round < 2; round++) { /* twice: each missing call is logged once */
		rc = cuLaunchHostFunc_v2(H(CUstream, 0x5150), host_fn, (void *)0xDA7A, sync);
		printf("cuLaunchHostFunc_v2 %d\n", rc);
		if (rc == 0) /* served by cuLaunchHostFunc: the same arguments but the mode */
			reached("cuLaunchHostFunc", 3, (unsigned long long[]){ 0x5150, W(host_fn), 0xDA7A });
		printf("cuGraphGetId %d\n", cuGraphGetId(H(CUgraph, 0x6A), &id));
		printf("cuFuncGetParamCount %d\n", cuFuncGetParamCount(H(CUfunction, 0xF0), &count));
		printf("cuDevSmResourceSplit %d\n", cuDevSmResourceSplit(NULL, 2, NULL, NULL, 0, NULL));
	}
	rc = cuCtxGetCurrent(&ctx);
	printf("cuCtxGetCurrent %d\n", rc);
	reached("cuCtxGetCurrent", 1, (unsigned long long[]){ W(&ctx) });
	if (on_fake) { /* no context on a real driver: these would fail, or launch */
		rc = cuMemAlloc_v2(&dptr, 123456789);
		printf("cuMemAlloc_v2 %d\n", rc);
		reached("cuMemAlloc_v2", 2, (unsigned long long[]){ W(&dptr), 123456789 });
		rc = cuLaunchKernel((CUfunction)0xF1, 1, 2, 3, 4, 5, 6, 7, (CUstream)0x5150, params, extra);
		printf("cuLaunchKernel %d\n", rc);
		reached("cuLaunchKernel", 11, (unsigned long long[]){ 0xF1, INT + 1, INT + 2, INT + 3, INT + 4,
								       INT + 5, INT + 6, INT + 7, 0x5150, W(params),
								       W(extra) });
	}
	printf("prog135: %d failure(s)%s\n", failures, on_fake ? "" : " (a real driver: arguments not checked)");
	return failures != 0;
}
