/* A program newer than its driver, as a binary built against the CUDA 13.0 headers
 * would be: cuda.h maps cuCtxCreate to cuCtxCreate_v4, cuMemcpyBatchAsync to
 * cuMemcpyBatchAsync_v2 and so on, and it is linked with -z now, so every
 * driver symbol it imports must exist when it loads.  On an 11.4 driver it
 * does not load; under LD_PRELOAD=libcushim.so it runs, and what the driver
 * lacks returns CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER.
 *
 * One line per call on stdout: "<exported name> <code> <code name>".  It never
 * touches the memory the calls would return: on the fake driver they return
 * nothing real. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define ABI_(x) #x
#define ABI(x) ABI_(x) /* the exported name the headers map a call to */

static int failures;

static void report(const char *abi, CUresult rc)
{
	const char *name = NULL;
	if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
		name = "(unknown to the driver)";
	printf("%-28s %3d %s\n", abi, (int)rc, name);
	failures += rc != CUDA_SUCCESS;
}

#define CALL(fn, ...) report(ABI(fn), fn(__VA_ARGS__))

int main(void)
{
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	CUdeviceptr buf = 0;
	CUlibrary lib = NULL;
	CUstream stream = NULL;
	CUstreamCaptureStatus capture;
	int version = 0;
	static const char image[] = "not a real module";

	setvbuf(stdout, NULL, _IOLBF, 0); /* in order with cushim's lines on stderr */

	CALL(cuInit, 0);
	CALL(cuDriverGetVersion, &version);
	CALL(cuDeviceGet, &dev, 0);
	CALL(cuCtxCreate, &ctx, NULL, 0, dev);           /* _v4: CUDA 12.5 */
	CALL(cuCtxGetDevice_v2, &dev, ctx);              /* CUDA 13.0 */
	CALL(cuMemAlloc, &buf, 1 << 20);                 /* _v2: CUDA 3.2 */
	CALL(cuMemAllocAsync, &buf, 1 << 20, stream);    /* CUDA 11.2 */
	CALL(cuLibraryLoadData, &lib, image, NULL, NULL, 0, NULL, NULL, 0); /* CUDA 12.0 */
	CALL(cuStreamGetCaptureInfo, stream, &capture, NULL, NULL, NULL, NULL, NULL); /* _v3: 12.3 */
	CALL(cuMemcpyBatchAsync, NULL, NULL, NULL, 0, NULL, NULL, 0, stream); /* _v2: CUDA 13.0 */
	CALL(cuCtxCreate, &ctx, NULL, 0, dev);           /* again: logged once */
	CALL(cuLibraryLoadData, &lib, image, NULL, NULL, 0, NULL, NULL, 0);
	CALL(cuMemFree, buf);                            /* _v2: CUDA 3.2 */
	printf("newer-app: driver reports CUDA %d.%d; %d of 13 calls failed\n", version / 1000, version % 1000 / 10,
	       failures);
	return 0;
}
