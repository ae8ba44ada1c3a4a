/* Linked against libctor.so (ctor-lib.c): prints what its constructor got,
 * then calls the driver from main and from a forked child. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cuda.h"

extern int ctor_init, ctor_version, ctor_v, ctor_device, ctor_lookups;

int main(void)
{
	CUcontext c;
	int st = -1, v = 0;
	printf("ctor init=%d version=%d v=%d device=%d lookups=%d\n", ctor_init, ctor_version, ctor_v, ctor_device,
	       ctor_lookups);
	int main_rc = cuCtxGetCurrent(&c);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(cuDriverGetVersion(&v) != CUDA_SUCCESS || v != 13000);
	waitpid(pid, &st, 0);
	printf("main ctx=%d child=%d\n", main_rc, st);
	return 0;
}
