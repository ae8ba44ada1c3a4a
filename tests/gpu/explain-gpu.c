/* The causes cushim names, on a real driver (tests/gpu/explain.sh):
 *   fork          cuInit and a context, then a forked child's cuInit;
 *   fork-runtime  the same, the driver initialised by the runtime (cudaFree(0));
 *   module FILE   cuModuleLoad of FILE in a context on device 0;
 *   runtime       cudaGetDeviceCount through the CUDA runtime it links. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int context(void)
{
	CUdevice dev;
	CUcontext ctx;
	return cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, NULL, 0, dev);
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "fork") == 0 || strcmp(argv[1], "fork-runtime") == 0)) {
		if (strcmp(argv[1], "fork") == 0 ? context() : cudaFree(0) != cudaSuccess)
			return 77;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			printf("child cuInit %d\n", (int)cuInit(0));
			return 0;
		}
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "module") == 0) {
		CUmodule m;
		if (context())
			return 77;
		printf("cuModuleLoad %d\n", (int)cuModuleLoad(&m, argv[2]));
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "runtime") == 0) {
		int n = -1;
		printf("cudaGetDeviceCount %d\n", (int)cudaGetDeviceCount(&n));
		return 0;
	}
	fprintf(stderr, "usage: explain-gpu fork | fork-runtime | module FILE | runtime\n");
	return 2;
}
