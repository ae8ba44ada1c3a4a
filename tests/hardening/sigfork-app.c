/* A fork from a signal handler while the thread it interrupted is inside a
 * traced driver call (tests/hardening/sigfork.sh).  The main thread calls
 * cuDriverGetVersion in a loop; a timer's SIGALRM, every 200 us, forks from
 * its handler and waits for the child there.  The child goes back to the
 * interrupted call, makes 3 calls more and exits.  After N forks (argv[1],
 * 200 by default) it prints "forks N calls M seconds S" and exits 0. */
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t forks, in_child, failed;
static long want = 200;

static void on_alarm(int sig)
{
	pid_t pid;
	int st;

	(void)sig;
	if (in_child || forks >= want)
		return;
	if ((pid = fork()) == 0) {
		in_child = 1;
		return; /* back into the interrupted call */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		failed = 1;
	forks++;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { 0 };
	struct timespec t0, t1;
	long calls = 0;
	sigset_t alrm;
	int v;

	if (argc > 1)
		want = atol(argv[1]);
	cuDriverGetVersion(&v); /* the bootstrap, before any signal */
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setitimer(ITIMER_REAL, &it, NULL);
	while (forks < want && !failed) {
		cuDriverGetVersion(&v);
		calls++;
		if (in_child) {
			for (int k = 0; k < 3; k++)
				cuDriverGetVersion(&v);
			exit(0);
		}
	}
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 0 } }, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("forks %ld calls %ld seconds %.2f\n", (long)forks, calls,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failed ? 1 : 0;
}
