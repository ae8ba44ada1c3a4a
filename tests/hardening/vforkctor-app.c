/* A vfork and an exec while another thread holds the loader's lock (its
 * dlopen runs a slow constructor: vforkctor-lib.c), in a process that has
 * made no driver call and no fork before: prints the child's exit status. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void *load(void *path)
{
	return dlopen(path, RTLD_NOW);
}

int main(int argc, char **argv)
{
	pthread_t th;
	struct timespec t = { 0, 500 * 1000 * 1000 };
	char *av[] = { (char *)"true", NULL };
	int st = -1;
	if (argc < 2 || pthread_create(&th, NULL, load, argv[1]) != 0)
		return 2;
	nanosleep(&t, NULL); /* the thread is inside dlopen now */
	pid_t pid = vfork();
	if (pid == 0) {
		execve("/bin/true", av, environ);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 3;
	pthread_join(th, NULL);
	printf("child exit %d\n", WEXITSTATUS(st));
	return WEXITSTATUS(st) != 0;
}
