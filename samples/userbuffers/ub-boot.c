/* Ranks and bootstrap: the launcher forks N ranks and serves allgather and
 * barrier over an abstract-namespace SOCK_SEQPACKET hub; file descriptors move
 * between ranks as SCM_RIGHTS over abstract SOCK_DGRAM sockets, as in TE's
 * ipcsocket.cc, but named with a per-job nonce so that two jobs never collide.
 * Started by mpirun and built with MPI (UB_MPI), each process is one rank and
 * allgather/barrier go through MPI instead (ub-mpi.c); the fds still travel over
 * the abstract sockets, named with a nonce that rank 0 broadcasts. */
#include "ub.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void ub_log(struct ub_boot *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int k = b ? snprintf(buf, sizeof buf, "[ub rank %d/%d] ", b->rank, b->n) : snprintf(buf, sizeof buf, "[ub] ");

	va_start(ap, fmt);
	vsnprintf(buf + k, sizeof buf - (size_t)k - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	if (write(1, buf, strlen(buf)) < 0) { /* one write: lines of several ranks do not tear */
	}
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *prefix, const char *what, int rank)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	/* sun_path[0] = 0: the Linux abstract namespace; no file, gone with the socket. */
	int k = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "%s-%s-%d", prefix, what, rank);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the rank side ---- */
static int send_all(int fd, const void *p, size_t len)
{
	ssize_t k = send(fd, p, len, MSG_NOSIGNAL);
	return k == (ssize_t)len ? 0 : -1;
}

int ub_allgather(struct ub_boot *b, const void *local, size_t lbytes, void *global)
{
#ifdef UB_MPI
	if (b->mpi)
		return ub_mpi_allgather(b, local, lbytes, global);
#endif
	size_t want = lbytes * (size_t)b->n;
	char *msg = malloc(lbytes + 8);
	ssize_t k;

	if (!msg)
		return -1;
	memcpy(msg, &lbytes, 8);
	memcpy(msg + 8, local, lbytes);
	if (send_all(b->hub, msg, lbytes + 8) != 0) {
		ub_log(b, "bootstrap: send to the launcher failed: %s", strerror(errno));
		free(msg);
		return -1;
	}
	free(msg);
	k = recv(b->hub, global, want, MSG_WAITALL);
	if (k != (ssize_t)want) {
		ub_log(b, "bootstrap: the launcher aborted the job (a rank failed or the job timed out)");
		return -1;
	}
	return 0;
}

int ub_barrier(struct ub_boot *b)
{
	char one = 1, all[UB_MAX_RANKS];
#ifdef UB_MPI
	if (b->mpi)
		return ub_mpi_barrier(b);
#endif
	return ub_allgather(b, &one, 1, all);
}

int ub_fd_socket(struct ub_boot *b)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, b->prefix, "fd", b->rank);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, len) != 0) {
		ub_log(b, "fd socket %s-fd-%d: %s", b->prefix, b->rank, strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

/* An SCM_RIGHTS message as the two sides exchange it: a one-byte payload
 * (TE sends one byte; ours names the sender) and room for UB_MAX_RANKS
 * descriptors. */
struct fd_msg {
	char payload;
	struct iovec iov;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * UB_MAX_RANKS)];
	} u;
	struct msghdr m;
};

/* Zeroes f and points its header at its payload and at controllen bytes of
 * its control room. */
static struct msghdr *fd_msg_init(struct fd_msg *f, size_t controllen)
{
	memset(f, 0, sizeof *f);
	f->iov.iov_base = &f->payload;
	f->iov.iov_len = 1;
	f->m.msg_iov = &f->iov;
	f->m.msg_iovlen = 1;
	f->m.msg_control = f->u.buf;
	f->m.msg_controllen = controllen;
	return &f->m;
}

int ub_fd_send(struct ub_boot *b, int sock, int peer, const int *fds, int nfds)
{
	struct sockaddr_un a;
	socklen_t alen = abstract_addr(&a, b->prefix, "fd", peer);
	struct fd_msg f;
	struct msghdr *m;
	struct cmsghdr *c;
	double deadline = now_s() + 30;

	if (nfds < 1 || nfds > UB_MAX_RANKS)
		return -1;
	m = fd_msg_init(&f, CMSG_SPACE(sizeof(int) * (size_t)nfds));
	f.payload = (char)b->rank;
	m->msg_name = &a;
	m->msg_namelen = alen;
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	/* Busy-retry as TE does while the peer's socket is missing or full. */
	while (sendmsg(sock, m, MSG_NOSIGNAL) != 1) {
		if ((errno != ECONNREFUSED && errno != ENOENT && errno != EAGAIN && errno != EINTR) ||
		    now_s() > deadline) {
			ub_log(b, "sendmsg(SCM_RIGHTS) to rank %d: %s", peer, strerror(errno));
			return -1;
		}
		usleep(1000);
	}
	return 0;
}

int ub_fd_recv(struct ub_boot *b, int sock, int *fds, int max, int *from, int timeout_ms)
{
	struct fd_msg f;
	struct msghdr *m = fd_msg_init(&f, sizeof f.u.buf);
	struct pollfd p = { sock, POLLIN, 0 };
	int n = 0;

	if (poll(&p, 1, timeout_ms) != 1) {
		ub_log(b, "no file descriptor arrived within %d ms", timeout_ms);
		return -1;
	}
	if (recvmsg(sock, m, MSG_CMSG_CLOEXEC) != 1) {
		ub_log(b, "recvmsg(SCM_RIGHTS): %s", strerror(errno));
		return -1;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int got[UB_MAX_RANKS];
			memcpy(got, CMSG_DATA(c), sizeof(int) * (size_t)k);
			for (int i = 0; i < k; i++) {
				if (n < max)
					fds[n++] = got[i];
				else
					close(got[i]);
			}
		}
	if (m->msg_flags & MSG_CTRUNC) {
		ub_log(b, "recvmsg: control data truncated");
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return -1;
	}
	if (from)
		*from = (unsigned char)f.payload;
	return n;
}

int ub_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", ".." and the directory's own descriptor */
}

/* ---- mpirun ---- */
const char *ub_mpirun_env(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK" };

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		if (getenv(vars[i]))
			return vars[i];
	return NULL;
}

const char *ub_mpi_built(void)
{
#ifdef UB_MPI
	return "yes";
#else
	return "no";
#endif
}

#ifdef UB_MPI
static int job_mpi; /* 1 while MPI is initialised */
static int job_n, job_rank;
#endif

int ub_boot_init(int *n, int *rank)
{
	const char *var = ub_mpirun_env();

	if (!var)
		return 0;
#ifdef UB_MPI
	if (!job_mpi) {
		if (ub_mpi_init(&job_n, &job_rank) != 0)
			return -1;
		job_mpi = 1;
	}
	*n = job_n;
	*rank = job_rank;
	return 1;
#else
	(void)n;
	(void)rank;
	fprintf(stderr,
		"[ub] started by mpirun (%s is set), but this program was built without MPI support\n"
		"[ub] (configure found no mpicc; reconfigure --with-mpi). Refusing to run as independent jobs:\n"
		"[ub] run it without mpirun (its own launcher forks the ranks: --ranks N) or rebuild with MPI.\n",
		var);
	return -1;
#endif
}

void ub_boot_fini(void)
{
#ifdef UB_MPI
	if (job_mpi) {
		ub_mpi_fini();
		job_mpi = 0;
	}
#endif
}

static unsigned long long new_nonce(void)
{
	unsigned long long nonce;

	if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce)
		nonce = (unsigned long long)getpid() << 32 ^ (unsigned long long)time(NULL);
	return nonce;
}

/* ---- the launcher ---- */
static int connect_hub(struct ub_boot *b)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, b->prefix, "hub", 0);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int r = b->rank;

	if (s < 0 || connect(s, (struct sockaddr *)&a, len) != 0 || send_all(s, &r, sizeof r) != 0) {
		ub_log(b, "cannot reach the launcher's hub: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

struct hub_rank {
	int fd, done;
	size_t len;
	char *msg; /* this round's contribution, or NULL */
};

/* The ranks the hub waits on this round (neither hung up nor holding a
 * contribution) go into p, their indices into idx; *pending counts the ranks
 * holding one. Returns how many are in p. */
static int hub_poll_set(struct hub_rank *r, int n, struct pollfd *p, int *idx, int *pending)
{
	int np = 0;

	*pending = 0;
	for (int i = 0; i < n; i++) {
		if (r[i].msg)
			(*pending)++;
		if (!r[i].done && !r[i].msg) {
			p[np].fd = r[i].fd;
			p[np].events = POLLIN;
			idx[np++] = i;
		}
	}
	return np;
}

/* Reads one message of rank h into h->msg (buf: room for it, 1 MiB): 0, 1 when
 * the rank hung up, -1 when the message is malformed. */
static int hub_recv(struct hub_rank *h, char *buf)
{
	ssize_t got = recv(h->fd, buf, 1 << 20, 0);

	if (got <= 0) {
		h->done = 1;
		return 1;
	}
	if (got < 8)
		return -1;
	memcpy(&h->len, buf, 8);
	if (h->len != (size_t)got - 8)
		return -1;
	if (!(h->msg = malloc(h->len + 1)))
		return -1;
	memcpy(h->msg, buf + 8, h->len);
	return 0;
}

/* Once every rank has contributed, sends the contributions in rank order to
 * every rank still connected and clears the round. 0 (also while the round is
 * incomplete), or -1 when the sizes disagree or a send fails. */
static int hub_round(struct hub_rank *r, int n)
{
	int ready = 0;
	size_t len;
	char *all;

	for (int i = 0; i < n; i++)
		ready += r[i].msg != NULL;
	if (ready != n)
		return 0;
	len = r[0].len;
	for (int i = 1; i < n; i++)
		if (r[i].len != len) {
			fprintf(stderr, "[ub launcher] ranks disagree on an allgather's size; aborting\n");
			return -1;
		}
	if (!(all = malloc(len * (size_t)n + 1)))
		return -1;
	for (int i = 0; i < n; i++) {
		memcpy(all + len * (size_t)i, r[i].msg, len);
		free(r[i].msg);
		r[i].msg = NULL;
	}
	for (int i = 0; i < n; i++)
		if (!r[i].done && len * (size_t)n > 0 && send_all(r[i].fd, all, len * (size_t)n) != 0) {
			free(all);
			return -1;
		}
	free(all);
	return 0;
}

/* Serve rounds until every rank has hung up. 0, or -1 when the job had to be
 * aborted (a rank left in the middle of a round, a size mismatch, the deadline). */
static int serve(struct hub_rank *r, int n, double deadline)
{
	int alive = n;
	char *buf = malloc(1 << 20);

	if (!buf)
		return -1;
	while (alive > 0) {
		struct pollfd p[UB_MAX_RANKS];
		int idx[UB_MAX_RANKS], pending, np = hub_poll_set(r, n, p, idx, &pending);

		if (pending && pending + np < n) {
			fprintf(stderr, "[ub launcher] a rank left while the others were in a collective; aborting the job\n");
			goto abort;
		}
		double left = deadline - now_s();
		if (left <= 0) {
			fprintf(stderr, "[ub launcher] the job ran past its deadline; aborting it\n");
			goto abort;
		}
		int k = poll(p, (nfds_t)np, (int)(left * 1000) + 1);
		if (k < 0 && errno != EINTR)
			goto abort;
		for (int j = 0; j < np && k > 0; j++) {
			if (!p[j].revents)
				continue;
			int got = hub_recv(&r[idx[j]], buf);
			if (got < 0)
				goto abort;
			if (got > 0)
				alive--;
		}
		if (hub_round(r, n) != 0)
			goto abort;
	}
	free(buf);
	return 0;
abort:
	free(buf);
	for (int i = 0; i < n; i++)
		if (r[i].fd >= 0) {
			shutdown(r[i].fd, SHUT_RDWR); /* every rank's next bootstrap call fails */
			close(r[i].fd);
			r[i].fd = -1;
		}
	return -1;
}

#ifdef UB_MPI
/* Under mpirun this process is one rank: no hub, no fork; the nonce is rank
 * 0's. Returns the job's status, with MPI finalised. */
static int launch_mpi(struct ub_boot *b, ub_rank_fn fn, void *arg, int job_timeout_s)
{
	int rc;

	b->mpi = 1;
	b->hub = -1;
	b->nonce = b->rank == 0 ? new_nonce() : 0;
	if (b->n < 1 || b->n > UB_MAX_RANKS || ub_mpi_bcast_nonce(&b->nonce) != 0) {
		if (b->rank == 0)
			fprintf(stderr, "[ub mpi] %d ranks (1..%d allowed) or MPI_Bcast failed\n", b->n, UB_MAX_RANKS);
		ub_boot_fini();
		return 1;
	}
	snprintf(b->prefix, sizeof b->prefix, "cushim-ub-%016llx", b->nonce);
	rc = ub_mpi_run(b, fn, arg, job_timeout_s);
	ub_boot_fini();
	return rc;
}
#endif

/* Names the job's sockets with a new nonce and opens the hub's listening
 * socket for n ranks: the socket, or -1. */
static int hub_listen(struct ub_boot *b, int n)
{
	struct sockaddr_un a;
	socklen_t alen;
	int lst;

	b->nonce = new_nonce();
	snprintf(b->prefix, sizeof b->prefix, "cushim-ub-%016llx", b->nonce);
	alen = abstract_addr(&a, b->prefix, "hub", 0);
	lst = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lst < 0 || bind(lst, (struct sockaddr *)&a, alen) != 0 || listen(lst, n) != 0) {
		perror("[ub launcher] hub socket");
		if (lst >= 0)
			close(lst);
		return -1;
	}
	return lst;
}

/* Forks the n ranks into pid[]; each connects to the hub and exits with fn's
 * status. 0, or -1 when a fork failed (the ranks forked so far are killed). */
static int fork_ranks(struct ub_boot *b, int n, int lst, pid_t *pid, ub_rank_fn fn, void *arg)
{
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("[ub launcher] fork");
			for (int j = 0; j < i; j++)
				kill(pid[j], SIGKILL);
			return -1;
		}
		if (pid[i] == 0) {
			close(lst);
			b->rank = i;
			b->hub = connect_hub(b);
			int rc = b->hub < 0 ? 1 : fn(b, arg);
			/* exit, not _exit: the shim's summary and trace are written at exit. */
			exit(rc);
		}
	}
	return 0;
}

/* Accepts the n ranks until the deadline; the first message names the rank.
 * 1 when every rank connected, else 0. */
static int accept_ranks(int lst, struct hub_rank *r, int n, double deadline)
{
	int connected = 1;

	for (int i = 0; i < n; i++)
		r[i] = (struct hub_rank){ .fd = -1 };
	for (int got = 0; got < n;) {
		struct pollfd p = { lst, POLLIN, 0 };
		int left = (int)((deadline - now_s()) * 1000);
		if (left <= 0 || poll(&p, 1, left) != 1)
			break;
		int s = accept4(lst, NULL, NULL, SOCK_CLOEXEC), rank = -1;
		if (s < 0)
			continue;
		if (recv(s, &rank, sizeof rank, 0) != sizeof rank || rank < 0 || rank >= n || r[rank].fd >= 0) {
			close(s);
			continue;
		}
		r[rank].fd = s;
		got++;
	}
	for (int i = 0; i < n; i++)
		if (r[i].fd < 0)
			connected = 0;
	return connected;
}

/* Gives the ranks of a failed job a moment (up to 5 s) to fail on their own. */
static void linger_ranks(pid_t *pid, int n)
{
	for (int t = 0; t < 50; t++) {
		int left = 0;
		for (int i = 0; i < n; i++)
			if (pid[i] > 0 && waitpid(pid[i], NULL, WNOHANG) == 0)
				left++;
			else
				pid[i] = -1; /* reaped (or gone): never signalled again */
		if (!left)
			break;
		usleep(100000);
	}
}

/* Reaps the ranks, after a failed job (served != 0) killing those still
 * running, and judges their exit statuses: the job's status, 0 when every rank
 * passed, 77 when every rank skipped, else 1. */
static int reap_ranks(pid_t *pid, int n, int served)
{
	int npass = 0, nskip = 0;

	for (int i = 0; i < n; i++) {
		int st = 0;
		if (pid[i] < 0)
			continue;
		if (served != 0)
			kill(pid[i], SIGKILL); /* our own child, by pid */
		if (waitpid(pid[i], &st, 0) != pid[i])
			st = 1 << 8;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			npass++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			nskip++;
		else if (WIFEXITED(st))
			fprintf(stderr, "[ub launcher] rank %d exited with %d\n", i, WEXITSTATUS(st));
		else if (served == 0)
			fprintf(stderr, "[ub launcher] rank %d died by signal %d\n", i, WTERMSIG(st));
	}
	if (served != 0)
		return 1;
	if (npass == n)
		return 0;
	if (nskip == n)
		return 77;
	if (npass + nskip == n)
		fprintf(stderr, "[ub launcher] some ranks skipped and others did not\n");
	return 1;
}

int ub_launch(int n, ub_rank_fn fn, void *arg, int job_timeout_s)
{
	struct ub_boot b = { .n = n };
	struct hub_rank r[UB_MAX_RANKS];
	pid_t pid[UB_MAX_RANKS];
	int lst, connected, served;
	double deadline = now_s() + job_timeout_s;

	if (ub_mpirun_env()) {
		if (ub_boot_init(&b.n, &b.rank) < 0)
			return 1;
#ifdef UB_MPI
		return launch_mpi(&b, fn, arg, job_timeout_s);
#endif
	}
	if (n < 1 || n > UB_MAX_RANKS)
		return 1;
	if ((lst = hub_listen(&b, n)) < 0)
		return 1;
	fflush(NULL);
	if (fork_ranks(&b, n, lst, pid, fn, arg) != 0) {
		close(lst);
		return 1;
	}
	connected = accept_ranks(lst, r, n, deadline);
	close(lst);
	served = connected ? serve(r, n, deadline) : -1;
	for (int i = 0; i < n; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
	if (served != 0) /* give the ranks a moment to fail on their own, then stop them */
		linger_ranks(pid, n);
	return reap_ranks(pid, n, served);
}
