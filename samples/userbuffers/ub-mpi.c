/* The MPI side of the bootstrap, built only when configure found mpicc (UB_MPI)
 * and used only when the program was started by mpirun: each process is one rank
 * of MPI_COMM_WORLD; allgather and barrier are MPI_Allgather and MPI_Barrier. MPI
 * cannot pass file descriptors, so they still travel as SCM_RIGHTS over the
 * abstract sockets (ub-boot.c), named with the nonce rank 0 broadcasts.
 *
 * What the forking launcher does for a job, done here with MPI: a job deadline
 * (alarm: the process dies, and mpirun takes the others down); a rank that fails
 * while its peers still wait in a collective aborts the job (MPI_Abort) instead
 * of hanging; every process returns the job's status (0 all passed, 77 all
 * skipped, 1 otherwise). The final status exchange runs on its own duplicate of
 * MPI_COMM_WORLD so that it can never be matched with a peer's bootstrap call. */
#include "ub.h"
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static MPI_Comm status_comm = MPI_COMM_NULL;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ub_mpi_init(int *n, int *rank)
{
	int inited = 0;

	MPI_Initialized(&inited);
	if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		fprintf(stderr, "[ub mpi] MPI_Init failed\n");
		return -1;
	}
	/* Errors come back as codes: a failed collective fails the rank, as a lost hub does. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS || MPI_Comm_size(MPI_COMM_WORLD, n) != MPI_SUCCESS ||
	    MPI_Comm_dup(MPI_COMM_WORLD, &status_comm) != MPI_SUCCESS) {
		fprintf(stderr, "[ub mpi] MPI_COMM_WORLD: no rank or size\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return -1;
	}
	return 0;
}

void ub_mpi_fini(void)
{
	int fin = 0;

	if (status_comm != MPI_COMM_NULL)
		MPI_Comm_free(&status_comm);
	MPI_Finalized(&fin);
	if (!fin)
		MPI_Finalize();
}

int ub_mpi_bcast_nonce(unsigned long long *nonce)
{
	return MPI_Bcast(nonce, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

int ub_mpi_allgather(struct ub_boot *b, const void *local, size_t lbytes, void *global)
{
	if (lbytes > (size_t)1 << 30) {
		ub_log(b, "bootstrap: allgather of %zu bytes is too large", lbytes);
		return -1;
	}
	if (MPI_Allgather(local, (int)lbytes, MPI_BYTE, global, (int)lbytes, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
		ub_log(b, "bootstrap: MPI_Allgather failed");
		return -1;
	}
	return 0;
}

int ub_mpi_barrier(struct ub_boot *b)
{
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) {
		ub_log(b, "bootstrap: MPI_Barrier failed");
		return -1;
	}
	return 0;
}

static void on_deadline(int sig)
{
	static const char msg[] = "[ub mpi] the job ran past its deadline; this rank stops and mpirun ends the job\n";

	if (write(2, msg, sizeof msg - 1) < 0) {
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int ub_mpi_run(struct ub_boot *b, ub_rank_fn fn, void *arg, int job_timeout_s)
{
	int rc, all[UB_MAX_RANKS], done = 0, npass = 0, nskip = 0, status;
	MPI_Request req;
	double deadline;

	signal(SIGALRM, on_deadline);
	alarm(job_timeout_s > 0 ? (unsigned)job_timeout_s : 1);
	rc = fn(b, arg);
	fflush(NULL);
	/* The job's status. A rank that failed may have left its peers inside a
	 * collective that will never complete: give them a while to arrive, then
	 * abort the whole job (the launcher does the same when a rank leaves). */
	if (MPI_Iallgather(&rc, 1, MPI_INT, all, 1, MPI_INT, status_comm, &req) != MPI_SUCCESS) {
		ub_log(b, "MPI_Iallgather of the job status failed; aborting the job");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	deadline = now_s() + 10;
	while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		if (rc != 0 && now_s() > deadline) {
			ub_log(b, "exited with %d while the other ranks did not finish; aborting the job", rc);
			MPI_Abort(MPI_COMM_WORLD, 1);
			return 1;
		}
		usleep(1000);
	}
	alarm(0);
	if (!done) {
		ub_log(b, "MPI_Test of the job status failed; aborting the job");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	for (int i = 0; i < b->n; i++) {
		if (all[i] == 0)
			npass++;
		else if (all[i] == 77)
			nskip++;
		else if (b->rank == 0)
			fprintf(stderr, "[ub mpi] rank %d exited with %d\n", i, all[i]);
	}
	if (npass == b->n)
		status = 0;
	else if (nskip == b->n)
		status = 77;
	else {
		if (npass + nskip == b->n && b->rank == 0)
			fprintf(stderr, "[ub mpi] some ranks skipped and others did not\n");
		status = 1;
	}
	return status;
}
