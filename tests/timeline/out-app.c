/* The program of the output-file tests (tests/timeline/fifo.sh, owner.sh,
 * fulldisk.sh, exec.sh): driver calls that need no initialised driver.
 *
 *   out-app calls N   N cuDriverGetVersion on the main thread
 *   out-app exec N    N on the main thread and N on a second one, which
 *                     stays alive; then the main thread execs
 *                     "out-app calls 1".  Prints "exec PID" first.
 *   out-app execfail N  the same, but the exec fails (no such file): then
 *                     1 call more and "done".
 *
 * Each prints "done" (or the exec line) on stdout. */
#include <cuda.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long ncalls;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

static void calls(long n)
{
	int v;
	for (long k = 0; k < n; k++)
		if (cuDriverGetVersion(&v) != CUDA_SUCCESS) {
			fprintf(stderr, "out-app: cuDriverGetVersion failed\n");
			exit(2);
		}
}

/* N calls, then alive until the exec ends it. */
static void *second(void *arg)
{
	(void)arg;
	calls(ncalls);
	pthread_mutex_lock(&done_lock);
	done = 1;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&done_lock);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 3 || (strcmp(argv[1], "calls") != 0 && strcmp(argv[1], "exec") != 0 &&
			  strcmp(argv[1], "execfail") != 0)) {
		fprintf(stderr, "usage: out-app calls|exec|execfail N\n");
		return 2;
	}
	ncalls = atol(argv[2]);
	if (strcmp(argv[1], "calls") == 0) {
		calls(ncalls);
		printf("done\n");
		return 0;
	}
	if (pthread_create(&th, NULL, second, NULL) != 0)
		return 2;
	calls(ncalls);
	pthread_mutex_lock(&done_lock);
	while (!done)
		pthread_cond_wait(&done_cond, &done_lock);
	pthread_mutex_unlock(&done_lock);
	printf("exec %ld\n", (long)getpid());
	fflush(stdout);
	if (strcmp(argv[1], "execfail") == 0) {
		if (execl("/nonexistent/out-app", argv[0], "calls", "1", (char *)NULL) == -1 && errno == ENOENT) {
			calls(1);
			printf("done\n");
			return 0;
		}
		return 2;
	}
	execl("/proc/self/exe", argv[0], "calls", "1", (char *)NULL);
	perror("out-app: exec");
	return 2;
}
