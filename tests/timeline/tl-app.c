/* The known program of the timeline test (tests/timeline/timeline.sh checks
 * its events one by one): built against the CUDA 13.0 headers with -z now, and
 * run on the fake 11.4 driver under cushim with CUSHIM_HIDE='cuMemGetInfo*'.
 *
 *   main thread  cuInit, cuDriverGetVersion, cuDeviceGet(ordinal 3),
 *                cuGetErrorName(99999) (fails: INVALID_VALUE),
 *                cuModuleGetFunction with a name holding a quote and a
 *                backslash, cuLibraryLoadData twice (missing on 11.4: 36),
 *                cuMemGetInfo (hidden: 36)
 *   8 threads    thread t: 10 + t cuCtxGetCurrent, then cuCtxSetCurrent(NULL)
 *   a child      forked after the threads end: 3 cuCtxGetCurrent, exit(0)
 *   another      forked and exec'ing true(1): no driver call, so no file
 *
 * "tl-app kill" instead makes 5000 calls on each of 8 threads and kills
 * itself with SIGKILL: a timeline cut short.  The children's pids go to stdout. */
#include <cuda.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS 8

static int kill_mode;

static void *worker(void *arg)
{
	long t = (long)(intptr_t)arg;
	CUcontext ctx;
	for (long k = 0; k < (kill_mode ? 5000 : 10 + t); k++)
		cuCtxGetCurrent(&ctx);
	cuCtxSetCurrent(NULL);
	return NULL;
}

static void threads(void)
{
	pthread_t th[NTHREADS];
	for (long t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0)
			exit(2);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUfunction fn;
	CUlibrary lib;
	CUcontext ctx;
	size_t mfree, mtotal;
	const char *name;
	int version, st;

	kill_mode = argc > 1 && strcmp(argv[1], "kill") == 0;
	cuInit(0);
	cuDriverGetVersion(&version);
	cuDeviceGet(&dev, 3);
	cuGetErrorName((CUresult)99999, &name);
	cuModuleGetFunction(&fn, (CUmodule)(uintptr_t)0x1234, "kern\"el\\x");
	for (int k = 0; k < 2; k++)
		cuLibraryLoadData(&lib, "not a module", NULL, NULL, 0, NULL, NULL, 0);
	cuMemGetInfo(&mfree, &mtotal);
	threads();
	if (kill_mode)
		raise(SIGKILL);

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int k = 0; k < 3; k++)
			cuCtxGetCurrent(&ctx);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 2;
	printf("child %ld\n", (long)pid);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 2;
	printf("exec child %ld\n", (long)pid);
	return 0;
}
