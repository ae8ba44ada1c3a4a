/* A program that never links libcuda.so.1: it dlopens it and finds
 * cuInit and cuMemAlloc through cuGetProcAddress_v2, as a runtime would.
 * Exit 3..6 say which step failed. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
	CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
	CUresult (*init)(unsigned int) = NULL;
	CUdriverProcAddressQueryResult st;
	CUdeviceptr p;
	if (!h)
		return 3;
	*(void **)&gpa = dlsym(h, "cuGetProcAddress_v2");
	if (!gpa)
		return 4;
	if (gpa("cuInit", (void **)&init, 2000, 0, &st) != CUDA_SUCCESS || !init ||
	    gpa("cuMemAlloc", (void **)&alloc, 3020, 0, &st) != CUDA_SUCCESS || !alloc)
		return 5;
	if (init(0) != CUDA_SUCCESS)
		return 6;
	printf("alloc %d\n", (int)alloc(&p, 4096));
	return 0;
}
