/* The program of the cluster tests, built against the CUDA 13.0 headers and
 * linked -z now to libcuda.so.1, as a CUDA program on a cluster would be.
 * Not an MPI program: mpirun starts it as it starts any command.
 *
 * Rank R (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, else 0) calls cuInit,
 * cuDeviceGetCount and 10 + R times cuCtxGetCurrent, and prints
 * "rank R pid P: 12+R calls".  When cuInit fails it reports that there is no
 * GPU in its own words and exits 3, as deviceQueryDrv would. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int my_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return 0;
}

int main(void)
{
	int rank = my_rank(), count = -1;
	CUresult r = cuInit(0);
	CUresult rc = cuDeviceGetCount(&count);

	if (r != CUDA_SUCCESS) {
		printf("rank %d: no GPU: cuInit returned %d, cuDeviceGetCount %d\n", rank, (int)r, (int)rc);
		return 3;
	}
	for (int k = 0; k < 10 + rank; k++) {
		CUcontext ctx;
		cuCtxGetCurrent(&ctx);
	}
	printf("rank %d pid %ld: %d calls\n", rank, (long)getpid(), 12 + rank);
	return 0;
}
