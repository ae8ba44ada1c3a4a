/* A program that starts other processes every way there is, for the test of
 * one timeline, summary and log per process (tests/timeline/procs.sh, and
 * tests/gpu/procs.sh on a GPU).  Eight processes, four levels below the first:
 *
 *   root       fork (no exec): "fork";  fork + exec: "forkexec";
 *              vfork + exec: "vfork";   posix_spawn: "spawn"
 *   forkexec   fork + exec: "forkexec2"
 *   forkexec2  posix_spawn: "spawn3"
 *   spawn3     vfork + exec: "vfork4"
 *
 * Each makes 2 + k driver calls that need no initialised driver (k: its
 * role's number, so that every process makes a different count; one of them
 * fails), starts its children, waits until all eight are up (files in
 * PROCS_DIR), makes its other calls, waits for its children and appends
 * "PID ROLE CALLS ERRORS" to PROCS_DIR/records: what it called, counted here
 * and not by cushim.  With PROCS_GPU=1 (tests/gpu's build) the other calls
 * do GPU work, memMapIPCDrv's kind in every process: a shareable allocation
 * of the virtual memory API, exported, mapped, set and copied back, checked;
 * else cuInit and 3 + k cuDriverGetVersion. */
#include <cuda.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static const char *const roles[] = { "root", "fork", "forkexec", "vfork", "spawn", "forkexec2", "spawn3", "vfork4" };
enum { NPROCS = 8 };
static const char *self, *dir;
static int calls, errors, wrong; /* wrong: a copy back that differs */

#define CALL(x) (calls++, (x) == CUDA_SUCCESS ? 0 : (errors++, 1))

static int role_number(const char *role)
{
	for (int k = 0; k < NPROCS; k++)
		if (strcmp(roles[k], role) == 0)
			return k;
	fprintf(stderr, "procs-app: no role %s\n", role);
	exit(2);
}

static void run_role(const char *role);

/* One child, started the way its role says; its pid. */
static pid_t start(const char *role)
{
	char *argv[] = { (char *)self, (char *)role, NULL };
	pid_t pid;

	fflush(NULL);
	if (strcmp(role, "fork") == 0) {
		if ((pid = fork()) == 0) {
			calls = errors = 0; /* the parent's are its own */
			run_role(role);     /* exits */
		}
	} else if (strncmp(role, "vfork", 5) == 0) {
		if ((pid = vfork()) == 0) {
			execv(self, argv);
			_exit(127);
		}
	} else if (strncmp(role, "spawn", 5) == 0) {
		if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
			pid = -1;
	} else if ((pid = fork()) == 0) {
		execv(self, argv);
		_exit(127);
	}
	if (pid < 0) {
		perror("procs-app: start");
		exit(2);
	}
	return pid;
}

/* Until all eight are up, or 30 s. */
static void barrier(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/up.%ld", dir, (long)getpid());
	close(open(path, O_WRONLY | O_CREAT, 0600));
	for (int tries = 0; tries < 3000; tries++) {
		DIR *d = opendir(dir);
		struct dirent *e;
		int up = 0;
		while (d && (e = readdir(d)))
			up += strncmp(e->d_name, "up.", 3) == 0;
		if (d)
			closedir(d);
		if (up >= NPROCS)
			return;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	fprintf(stderr, "procs-app: %d: not all %d processes came up\n", (int)getpid(), NPROCS);
}

#ifdef PROCS_GPU_WORK
/* memMapIPCDrv's allocation, in each process: a shareable allocation made
 * with the virtual memory API, exported as a file descriptor, mapped, set
 * and copied back, checked, and released. */
static void vmm_work(CUdevice dev, int k)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	CUmemAccessDesc access = { 0 };
	CUdeviceptr p;
	unsigned back[256];
	size_t gran, n = sizeof back / sizeof *back;
	int fd = -1;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	if (CALL(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)) ||
	    CALL(cuMemCreate(&h, gran, &prop, 0)))
		return;
	if (!CALL(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)))
		close(fd);
	if (!CALL(cuMemAddressReserve(&p, gran, 0, 0, 0))) {
		access.location = prop.location;
		access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		if (!CALL(cuMemMap(p, gran, 0, h, 0)) && !CALL(cuMemSetAccess(p, gran, &access, 1))) {
			CALL(cuMemsetD32(p, 0x1000u + (unsigned)k, n));
			CALL(cuMemcpyDtoH(back, p, sizeof back));
			CALL(cuCtxSynchronize());
			for (size_t i = 0; i < n; i++)
				if (back[i] != 0x1000u + (unsigned)k) {
					fprintf(stderr, "procs-app: %d: word %zu is %#x\n", (int)getpid(), i, back[i]);
					wrong = 1;
					break;
				}
			CALL(cuMemUnmap(p, gran));
		}
		CALL(cuMemAddressFree(p, gran));
	}
	CALL(cuMemRelease(h));
}

static void gpu_work(int k)
{
	CUdevice dev;
	CUcontext ctx;

	if (CALL(cuInit(0)) || CALL(cuDeviceGet(&dev, 0)) || CALL(cuDevicePrimaryCtxRetain(&ctx, dev)) ||
	    CALL(cuCtxSetCurrent(ctx)))
		return;
	vmm_work(dev, k);
	CALL(cuDevicePrimaryCtxRelease(dev));
}
#else
static void gpu_work(int k)
{
	(void)k;
	fprintf(stderr, "procs-app: PROCS_GPU=1, but this build has no GPU work (tests/gpu/procs-app has)\n");
	exit(2);
}
#endif

static void run_role(const char *role)
{
	int k = role_number(role), version, st, failed = 0, nkids = 0;
	const char *name, *gpu = getenv("PROCS_GPU");
	pid_t kids[4];
	char line[128];

	for (int c = 0; c < 1 + k; c++)
		CALL(cuDriverGetVersion(&version));
	CALL(cuGetErrorName((CUresult)99999, &name)); /* fails: not an error code */
	for (int c = 0; c < NPROCS; c++) /* the roles this one starts */
		if ((k == 0 && c >= 1 && c <= 4) || (k == 2 && c == 5) || (k == 5 && c == 6) || (k == 6 && c == 7))
			kids[nkids++] = start(roles[c]);
	barrier();
	if (gpu && strcmp(gpu, "1") == 0) {
		gpu_work(k);
	} else {
		CALL(cuInit(0));
		for (int c = 0; c < 3 + k; c++)
			CALL(cuDriverGetVersion(&version));
	}
	for (int c = 0; c < nkids; c++)
		failed |= waitpid(kids[c], &st, 0) != kids[c] || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	snprintf(line, sizeof line, "%s/records", dir);
	int fd = open(line, O_WRONLY | O_APPEND | O_CREAT, 0600);
	int n = snprintf(line, sizeof line, "%ld %s %d %d\n", (long)getpid(), role, calls, errors);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		failed = 1;
	close(fd);
	exit(failed || wrong ? 1 : 0);
}

int main(int argc, char **argv)
{
	self = argv[0];
	dir = getenv("PROCS_DIR");
	if (!dir || self[0] != '/') {
		fprintf(stderr, "usage: PROCS_DIR=DIR /abs/path/procs-app [ROLE]\n");
		return 2;
	}
	run_role(argc > 1 ? argv[1] : "root");
}
