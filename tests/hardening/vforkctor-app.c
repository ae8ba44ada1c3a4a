/* A vfork and an exec while another thread holds the loader's lock (its
 * dlopen runs a slow constructor, 2 s: vforkctor-lib.c), in a process that
 * has made no driver call and no fork before: prints the child's exit
 * status and how long the parent was held (vfork returns to it once the
 * child has exec'd).  Exits non-zero where the child failed, where the
 * library did not load, or where the parent was held 1 s or more: the
 * child then waited for the loader's lock (natively until the constructor
 * ended; where vfork is a fork, for ever). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
__attribute__((visibility("default"))) volatile int vforkctor_inside; /* set by the constructor */

static void *load(void *path)
{
	return dlopen(path, RTLD_NOW);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	pthread_t th;
	struct timespec nap = { 0, 1000 * 1000 };
	char *av[] = { (char *)"true", NULL };
	void *handle = NULL;
	int st = -1;
	if (argc < 2 || pthread_create(&th, NULL, load, argv[1]) != 0)
		return 2;
	while (!__atomic_load_n(&vforkctor_inside, __ATOMIC_ACQUIRE))
		nanosleep(&nap, NULL); /* until the thread is inside dlopen */
	double t0 = seconds();
	pid_t pid = vfork();
	if (pid == 0) {
		execve("/bin/true", av, environ);
		_exit(127);
	}
	double held = seconds() - t0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 3;
	pthread_join(th, &handle);
	printf("child exit %d\nheld %.3f s\n", WEXITSTATUS(st), held);
	if (!handle)
		fprintf(stderr, "vforkctor-app: %s did not load\n", argv[1]);
	return WEXITSTATUS(st) != 0 || !handle || held >= 1.0;
}
