/* exec: what the diagnostics hold is written before the process image is
 * replaced, and the program the exec starts is of this process's run.
 * libcushim.so defines the C library's exec functions (execve, execv,
 * execvp, execvpe, execl, execlp, execle, fexecve, execveat); each writes
 * every thread's buffered lines and events, closes the timeline and writes
 * the summary (trace.c), then calls the next definition (RTLD_NEXT: the C
 * library's or another preloaded library's), with the run's mark in the
 * environment it passes where this process names an output (runmark.c).
 * When that returns, the exec failed, and the process goes on as before.  A
 * process that does not trace pays one test and a look at its environment.
 * posix_spawn, system and popen exec in a new process through the C
 * library's internal execve, which nothing here sees.
 *
 * The next definitions are never looked up at load, but once the bootstrap
 * is published (execnext.c).  Safe in a signal handler, as execve is: no
 * lock is held across the exec, no wait is on this thread, nothing is
 * allocated; before the bootstrap, execve, execv, fexecve and execveat go
 * to their system calls, and only a first execvp or execvpe asks the
 * loader (dlsym) there. */
#include "trace.h"
#include "runmark.h"
#include "execnext.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* The result of the C library's exec, which returned: the process goes on. */
static int failed(int rc)
{
	int e = errno;
	cushim_trace_exec_failed();
	errno = e;
	return rc;
}

/* Where one was not found (it always is): the system call, or ENOSYS. */
static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

/* The functions that search no PATH, where not looked up yet (an exec in
 * a vfork child, say, where asking the loader could wait for ever): the
 * system calls they are. */
static int next_execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn f = (execve_fn)cushim_exec_known(CUSHIM_EXECVE);
	return f ? f(path, argv, envp) : (int)syscall(SYS_execve, path, argv, envp);
}

/* Each exec function below: n, the pointers of a copy of the environment
 * with the run's mark (0: none, envp is passed as it is), and that copy
 * made in its own frame, where it lives until the exec. */
EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	size_t n = cushim_run_env_size(envp);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];

	cushim_trace_exec();
	return failed(next_execve(path, argv, n ? cushim_run_env(envp, copy, n, mark) : envp));
}

/* With a mark to pass, execve with it. */
EXPORT int execv(const char *path, char *const argv[])
{
	size_t n = cushim_run_env_size(environ);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];
	execv_fn f = n ? NULL : (execv_fn)cushim_exec_known(CUSHIM_EXECV);

	cushim_trace_exec();
	if (!f)
		return failed(next_execve(path, argv, n ? cushim_run_env(environ, copy, n, mark) : environ));
	return failed(f(path, argv));
}

/* With a mark to pass, execvpe with it. */
EXPORT int execvp(const char *file, char *const argv[])
{
	size_t n = cushim_run_env_size(environ);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];
	execve_fn marked = n ? (execve_fn)cushim_exec_next(CUSHIM_EXECVPE) : NULL;
	execv_fn f = marked ? NULL : (execv_fn)cushim_exec_next(CUSHIM_EXECVP);

	cushim_trace_exec();
	if (marked)
		return failed(marked(file, argv, cushim_run_env(environ, copy, n, mark)));
	return failed(f ? f(file, argv) : missing());
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	size_t n = cushim_run_env_size(envp);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];
	execve_fn f = (execve_fn)cushim_exec_next(CUSHIM_EXECVPE);

	cushim_trace_exec();
	return failed(f ? f(file, argv, n ? cushim_run_env(envp, copy, n, mark) : envp) : missing());
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	size_t n = cushim_run_env_size(envp);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];
	char *const *env = n ? cushim_run_env(envp, copy, n, mark) : envp;
	fexecve_fn f = (fexecve_fn)cushim_exec_known(CUSHIM_FEXECVE);

	cushim_trace_exec();
	return failed(f ? f(fd, argv, env) : (int)syscall(SYS_execveat, fd, "", argv, env, AT_EMPTY_PATH));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	size_t n = cushim_run_env_size(envp);
	char *copy[n + 1], mark[CUSHIM_RUN_MARK_MAX];
	char *const *env = n ? cushim_run_env(envp, copy, n, mark) : envp;
	execveat_fn f = (execveat_fn)cushim_exec_known(CUSHIM_EXECVEAT);

	cushim_trace_exec();
	return failed(f ? f(dirfd, path, argv, env, flags) : (int)syscall(SYS_execveat, dirfd, path, argv, env, flags));
}

/* execl's arguments: how many from arg0 up to the NULL, not counting it. */
static size_t count_args(const char *arg0, va_list *ap)
{
	size_t n = 0;
	for (const char *a = arg0; a; a = va_arg(*ap, const char *))
		n++;
	return n;
}

/* argv[0..n] from arg0 and the n - 1 after it, and the NULL read past. */
static void list_args(char **argv, size_t n, const char *arg0, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (size_t k = 1; k < n; k++)
		argv[k] = va_arg(*ap, char *);
	if (n > 0)
		(void)va_arg(*ap, char *);
	argv[n] = NULL;
}

/* In an execl-style function: argv, an array on the stack, from arg up to
 * its NULL, with ap left past the NULL (execle's environment is next). */
#define LIST_ARGV(arg, argv, ap)                              \
	va_start(ap, arg);                                    \
	size_t argv##_n = count_args(arg, &ap);               \
	va_end(ap);                                           \
	char *argv[argv##_n + 1];                             \
	va_start(ap, arg);                                    \
	list_args(argv, argv##_n, arg, &ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	LIST_ARGV(arg, argv, ap);
	va_end(ap);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	LIST_ARGV(arg, argv, ap);
	va_end(ap);
	return execvp(file, argv);
}

/* The environment is the pointer after the NULL. */
EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	LIST_ARGV(arg, argv, ap);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
