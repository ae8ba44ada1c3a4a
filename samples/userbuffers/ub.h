/* The Userbuffers sample: shared declarations. */
#ifndef UB_H
#define UB_H
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>
#include "ub-layout.h"

/* ---- bootstrap (ub-boot.c) ---- */
struct ub_boot {
	int rank, n;
	int hub;                 /* SOCK_SEQPACKET connection to the launcher's hub (-1 under MPI) */
	int mpi;                 /* 1: started by mpirun; allgather and barrier through MPI */
	unsigned long long nonce;
	char prefix[64];         /* "cushim-ub-<nonce>": the abstract socket names */
};
typedef int (*ub_rank_fn)(struct ub_boot *b, void *arg);
/* The variable that says this process was started by mpirun (OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE or PMIX_RANK), or NULL. */
const char *ub_mpirun_env(void);
/* "yes" when built with MPI (configure found mpicc), else "no". */
const char *ub_mpi_built(void);
/* Call after parsing the options, before ub_launch. Not under mpirun: 0 (ub_launch
 * forks the ranks). Under mpirun, built with MPI: MPI_Init, *n and *rank from
 * MPI_COMM_WORLD, 1 (ub_launch runs this process as that one rank). Under mpirun
 * without MPI: says so on stderr and returns -1; the caller exits non-zero rather
 * than run N independent jobs. */
int ub_boot_init(int *n, int *rank);
/* MPI_Finalize if ub_boot_init called MPI_Init and ub_launch has not finalised yet. */
void ub_boot_fini(void);
/* Fork n ranks running fn; serve allgather/barrier; return the job's status
 * (0 all passed, 77 all skipped, 1 otherwise). job_timeout_s bounds the job.
 * Under mpirun (ub_boot_init returned 1) this process is one rank: the nonce comes
 * from rank 0 by MPI_Bcast, every process returns the job's status, and MPI is
 * finalised on return. */
int ub_launch(int n, ub_rank_fn fn, void *arg, int job_timeout_s);
int ub_allgather(struct ub_boot *b, const void *local, size_t lbytes, void *global);
int ub_barrier(struct ub_boot *b);
/* Abstract-namespace SOCK_DGRAM socket for fd passing, named <prefix>-fd-<rank>. */
int ub_fd_socket(struct ub_boot *b);
int ub_fd_send(struct ub_boot *b, int sock, int peer, const int *fds, int nfds);
/* Receives up to max fds (close-on-exec); returns how many, -1 on error or timeout. */
int ub_fd_recv(struct ub_boot *b, int sock, int *fds, int max, int *from, int timeout_ms);
int ub_count_fds(void);
#ifdef UB_MPI
/* ub-mpi.c, compiled with mpicc: the MPI side of the bootstrap. */
int ub_mpi_init(int *n, int *rank);
int ub_mpi_bcast_nonce(unsigned long long *nonce);
int ub_mpi_run(struct ub_boot *b, ub_rank_fn fn, void *arg, int job_timeout_s);
int ub_mpi_allgather(struct ub_boot *b, const void *local, size_t lbytes, void *global);
int ub_mpi_barrier(struct ub_boot *b);
void ub_mpi_fini(void);
#endif
void ub_log(struct ub_boot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- driver side (ub-comm.c) ---- */
/* The VMM calls, reached by direct linking or through cuGetProcAddress. */
struct ub_vmm {
	const char *route;
	__typeof__(cuMemGetAllocationGranularity) *granularity;
	__typeof__(cuMemCreate) *create;
	__typeof__(cuMemExportToShareableHandle) *export_fd;
	__typeof__(cuMemImportFromShareableHandle) *import_fd;
	__typeof__(cuMemAddressReserve) *reserve;
	__typeof__(cuMemMap) *map;
	__typeof__(cuMemSetAccess) *set_access;
	__typeof__(cuMemUnmap) *unmap;
	__typeof__(cuMemRelease) *release;
	__typeof__(cuMemAddressFree) *addr_free;
};
int ub_vmm_init(struct ub_vmm *v, const char *route);

struct ub_reg {
	size_t size;                               /* per rank, granularity-rounded */
	CUmemGenericAllocationHandle h[UB_MAX_RANKS];
	CUdeviceptr base;                          /* one reservation of size*n */
	CUdeviceptr ptr[UB_MAX_RANKS];             /* base + i*size */
};

struct ub_dev {                                    /* per process: device, context, module */
	CUdevice dev;
	int ordinal, sms;
	CUcontext ctx;
	CUstream stream;
	CUmodule mod;
	CUfunction ag_push, rs_pullsum, sum_local, barrier, p2p_send, p2p_signal, p2p_recv, fill_i32;
	CUfunction pattern, verify, sleep;
	unsigned max_grid;                         /* cooperative launches: blocks that fit at once */
	long long timeout_cycles;
	struct ub_vmm vmm;
};

struct ub_comm {
	struct ub_boot *b;
	struct ub_dev *d;
	int me, n, nregs, multicast;
	struct ub_reg reg[UB_MAX_REGIONS];
	CUdeviceptr recv_id;                       /* int[UB_MAX_REGIONS * n] */
	CUdeviceptr scratch;                       /* copy-engine RS staging */
	size_t scratch_size;
};

extern const unsigned char ub_kernels_fatbin[];
extern const size_t ub_kernels_fatbin_size;

const char *ub_err(CUresult rc);
#define UB_CU(b, call)                                                                         \
	do {                                                                                   \
		CUresult ub_rc_ = (call);                                                      \
		if (ub_rc_ != CUDA_SUCCESS) {                                                  \
			ub_log((b), "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, ub_err(ub_rc_)); \
			return -1;                                                             \
		}                                                                              \
	} while (0)

/* Picks this rank's device (rank r on GPU r / ceil(n / ngpus)) and checks that
 * it reaches every other device of the job (cuDeviceCanAccessPeer); nothing
 * is loaded. 0, 77 (skip: too few devices, no VMM or fd handles, ...) or -1. */
int ub_dev_place(struct ub_boot *b, struct ub_dev *d, int ngpus, int *clock_khz);
/* Context and module for this rank on device `ordinal`. Returns 0, 77 (skip:
 * no device, no VMM or no fd handles, exclusive compute mode) or -1. */
int ub_dev_open(struct ub_boot *b, struct ub_dev *d, int ngpus_wanted, const char *route, double timeout_s);
void ub_dev_close(struct ub_dev *d);

int ub_comm_create(struct ub_comm *c, struct ub_boot *b, struct ub_dev *d, int multicast);
/* Register `bytes` per rank as TE does; returns the handle (region index) or -1. */
int ub_register(struct ub_comm *c, size_t bytes);
int ub_comm_destroy(struct ub_comm *c);
/* The seed's multicast decision. Built with multicast (UB_MULTICAST), the
 * sample asks for the multicast entry points and, finding them missing (hidden
 * by cushim or above an emulated driver's version), falls back to unicast and
 * says so: 1. It never calls them: when the driver offers them it refuses, -1.
 * Without UB_MULTICAST it says multicast is not built: 1. */
int ub_mc_setup(struct ub_comm *c, int requested);
/* Built with multicast: 0 when every multicast entry point is missing, else
 * says why it refuses to run and returns -1. Without multicast: 0, no lookups. */
int ub_mc_guard(struct ub_boot *b);
const char *ub_mc_built(void);
/* ub-bench's two-GPU baselines (ub-bench-peer.c), on rank 0 (its GPU and
 * GPU 1): cuMemcpyPeer and cuMemcpyPeerAsync of s bytes, `iters` each, one
 * line each, the copies verified. Buffers are made for max and freed after
 * the last size (s * 2 > max). 0, or -1 on an error or a mismatch. */
int ub_bench_peer(struct ub_boot *b, struct ub_dev *d, const char *shim, size_t s, size_t max, int iters);
/* --mc-probe: the decision alone, with no device (cuInit, then the lookups):
 * 0 when every multicast entry point is proven missing, else 1. */
int ub_mc_probe(void);

/* Collectives on region `h` (n chunks of `chunk` bytes each), queued on d->stream.
 * signal=0 withholds this rank's signals (the negative test). */
int ub_ag(struct ub_comm *c, int h, size_t chunk, int ce, int signal);
int ub_rs(struct ub_comm *c, int h, size_t chunk, int dtype, int ce, int signal);
/* Ring: send my chunk to me+1's slot `me`, receive from me-1. */
int ub_ring(struct ub_comm *c, int h, size_t chunk, int ce, int signal);
/* The copy-engine reduce-scatter's staging, allocated ahead (cuMemFree between
 * queued collectives would wait for them). */
int ub_reserve_scratch(struct ub_comm *c, size_t bytes);
/* A barrier over the collective block, queued on the comm stream. */
int ub_barrier_kernel(struct ub_comm *c, int signal);
/* Synchronise and check the error word: 0, or -1 with a message naming the timeout. */
int ub_sync_check(struct ub_comm *c, int quiet);
/* Every kernel goes by cuLaunchKernelEx with the cooperative attribute, on
 * stream s, the grid capped to what fits on the device at once. */
CUresult ub_launch_on(struct ub_dev *d, CUstream s, CUfunction f, unsigned grid, unsigned block, void **args);
int ub_launch_kernel(struct ub_dev *d, CUfunction f, unsigned grid, unsigned block, void **args);
#ifdef RTROUTE
/* Last: the declarations above keep the driver's own names. */
#include "ub-rtroute.h"
#endif
#endif
