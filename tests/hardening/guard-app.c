/* A program that makes one page of its read-only data PROT_NONE, as a
 * program may to catch stray reads, and that carries a CUDA 13.0 runtime
 * linked statically as far as its marks go (the runtime's error text and
 * nvcc's release line, as tests/blackbox/static-rt-app).  The marks lie
 * after the page, the release line across a 4 KiB boundary inside its
 * version.  It asks libcuda.so.1 for the driver's version, as that runtime
 * does, and prints it:
 *   guard-app before   the page before the marks is made PROT_NONE
 *   guard-app marks    the page that holds the marks' start is */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_PAGE 65536 /* the largest page size: the layout holds for every one */
#define MARKS "Cuda compilation tools, release 13.0, V13.0.48\0" \
	"CUDA driver version is insufficient for CUDA runtime version"
/* "release 1|3.0": the boundary 2 * MAX_PAGE + 4096 falls inside the version */
#define CUT 33

__attribute__((used, aligned(MAX_PAGE))) static const struct {
	char before[2 * MAX_PAGE + 4096 - CUT];
	char marks[sizeof MARKS];
	char after[4096];
} data = { .marks = MARKS };

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *what = argc > 1 ? argv[1] : "before";
	const char *at = strcmp(what, "marks") == 0 ? data.marks : data.before + MAX_PAGE;
	void *start = (void *)((unsigned long)at & ~(unsigned long)(page - 1));

	if (page <= 0 || page > MAX_PAGE || mprotect(start, (size_t)page, PROT_NONE) != 0) {
		printf("guard-app: cannot make a page PROT_NONE here\n");
		return 77;
	}
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	int (*version)(int *) = drv ? (int (*)(int *))dlsym(drv, "cuDriverGetVersion") : NULL;
	int v = 0;
	if (!version || version(&v) != 0)
		return 1;
	printf("driver %d\n", v);
	return 0;
}
