/* cushim check --python[=INTERPRETER]: the folders a Python environment
 * installs packages in (sysconfig's purelib and platlib, and the user's
 * site-packages when that interpreter uses it), found by asking the
 * interpreter itself, so that a virtual environment, conda or a distribution
 * Python each answer for themselves. */
#include "config.h"
#include "check-tree.h"
#include "cli.h"
#include "check-python.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PY_OUT_MAX 16384

/* The first line names the interpreter ("#PATH (Python X.Y.Z)"), each
 * other line a folder. */
static const char ask[] =
	"import site, sys, sysconfig\n"
	"print('#%s (Python %s)' % (sys.executable, sys.version.split()[0]))\n"
	"seen = []\n"
	"for p in [sysconfig.get_paths()['purelib'], sysconfig.get_paths()['platlib']] + "
	"(list(site.getsitepackages()) if hasattr(site, 'getsitepackages') else []) + "
	"([site.getusersitepackages()] if site.ENABLE_USER_SITE else []):\n"
	"    if p not in seen:\n"
	"        seen.append(p)\n"
	"        print(p)\n";

/* The interpreter's answer on its standard output: its length, or -1. */
static ssize_t run_python(const char *python, char *out, size_t size)
{
	int fd[2], status;
	size_t got = 0;
	ssize_t n;
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return close(fd[0]), close(fd[1]), -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(python, python, "-c", ask, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got + 1 < size && ((n = read(fd[0], out + got, size - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	out[got] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? (ssize_t)got : -1;
}

int tree_python(struct tree *t, const char *interpreter)
{
	const char *python = interpreter ? interpreter : "python3";
	char out[PY_OUT_MAX], *save = NULL;
	int walked = 0;
	if (run_python(python, out, sizeof out) < 0) {
		cli_error("--python: %s could not be asked for its site-packages (is it a Python interpreter?)", python);
		return -1;
	}
	size_t py = t->ninputs; /* an index: the array grows as folders are added */
	tree_input_add(t, python, INPUT_PYTHON);
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			free(t->inputs[py].about);
			t->inputs[py].about = strdup(line + 1);
		} else if (access(line, R_OK) != 0) {
			tree_input_add(t, line, INPUT_SITE)->missing = 1; /* a user site never made */
		} else if (tree_walk(t, line, INPUT_SITE) == 0) {
			walked++;
		}
	}
	if (!walked)
		cli_error("--python: %s names no site-packages folder that exists", python);
	return walked ? walked : -1;
}
