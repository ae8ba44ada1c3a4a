/* A program that hands the driver what cannot be read, for
 * tests/hardening/bad-pointers.sh and sandbox.sh, on the fake 13.0 driver:
 *   bad-memory-app [none|eperm|kill] MODE [PATH]
 * first puts itself under a seccomp filter that answers process_vm_readv
 * with EPERM (eperm) or kills the process for it (kill), then:
 *   strings   cuModuleGetFunction (before cuInit: it fails) with a name in a
 *             PROT_NONE page, and one that runs into such a page
 *   paths     cuInit, then cuModuleLoad with the same two paths
 *   images    cuInit, then cuModuleLoadData with: an image in a PROT_NONE
 *             page; a fatbin whose header lies before such a page and whose
 *             entries would lie in it; PTX text that runs into it; PTX text
 *             whose NUL is the page's last byte (it can be read whole)
 *   fifo      cuInit, then cuModuleLoad(PATH)
 *   huge      cuInit, then cuModuleLoadData with a fatbin whose header
 *             claims 200 MB, at the start of 201 MB of readable zeros; prints
 *             how much the peak resident size (VmHWM) grew, in KiB
 *   vmreadv   calls process_vm_readv on itself (the filter's own check)
 * Each call's result is printed: "NAME CODE ADDRESS" (the address of what
 * was passed), and "guard ADDRESS", the PROT_NONE page.  Exit 0, or 77
 * where no seccomp filter can be had. */
#define _GNU_SOURCE /* process_vm_readv */
#include <cuda.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

static int sandbox(const char *how)
{
	if (strcmp(how, "none") == 0)
		return 0;
#ifdef ARCH
	unsigned action = strcmp(how, "kill") == 0 ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | EPERM;
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof code / sizeof *code, code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
		return 0;
	printf("no seccomp filter: %s\n", strerror(errno));
#else
	printf("no seccomp filter for this architecture\n");
#endif
	return -1;
}

/* Two pages: the first readable, the second PROT_NONE. */
static char *guarded(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE) != 0) {
		perror("mmap");
		exit(2);
	}
	memset(p, 'x', (size_t)page);
	printf("guard %p\n", (void *)(p + page));
	return p + page; /* the guard page: what lies just before it is readable */
}

static void strings(int load)
{
	char *guard = guarded();
	const char *partial = guard - 3; /* "xxx" and then the guard page */
	CUfunction f;
	CUmodule m;
	if (load) {
		cuInit(0);
		printf("unreadable %d %p\n", (int)cuModuleLoad(&m, guard), (void *)guard);
		printf("partial %d %p\n", (int)cuModuleLoad(&m, partial), (const void *)partial);
	} else {
		printf("unreadable %d %p\n", (int)cuModuleGetFunction(&f, NULL, guard), (void *)guard);
		printf("partial %d %p\n", (int)cuModuleGetFunction(&f, NULL, partial), (const void *)partial);
	}
}

static const char ptx[] = ".version 8.0\n.target sm_100\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";

static void images(void)
{
	char *guard = guarded(), *fatbin = guard - 16, *text = guard - 40, *whole = guard - sizeof ptx;
	CUmodule m;
	/* a fatbin's header: magic, version 1, header size 16, 80 bytes of
	 * entries, which would lie in the guard page */
	memcpy(fatbin, "\x50\xed\x55\xba\x01\x00\x10\x00\x50\x00\x00\x00\x00\x00\x00\x00", 16);
	cuInit(0);
	printf("unreadable %d %p\n", (int)cuModuleLoadData(&m, guard), (void *)guard);
	printf("fatbin %d %p\n", (int)cuModuleLoadData(&m, fatbin), (void *)fatbin);
	memcpy(text, ptx, 40); /* no NUL before the guard page */
	printf("text %d %p\n", (int)cuModuleLoadData(&m, text), (void *)text);
	memcpy(whole, ptx, sizeof ptx);
	printf("whole %d %p\n", (int)cuModuleLoadData(&m, whole), (void *)whole);
}

static long hwm_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A fatbin of one SASS image for sm_100 (16 bytes of payload) whose header
 * claims 200 MB, in a region of 201 MB that reads as zeros after it. */
static void huge(void)
{
	size_t claim = 200u << 20, span = claim + (1u << 20);
	unsigned char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CUmodule m;
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memcpy(p, "\x50\xed\x55\xba\x01\x00\x10\x00", 8);
	memcpy(p + 8, &claim, 8);
	p[16] = 2;       /* SASS */
	p[16 + 4] = 64;  /* header size */
	p[16 + 8] = 16;  /* payload size */
	p[16 + 28] = 100; /* sm_100 */
	cuInit(0);
	long before = hwm_kib();
	printf("huge %d\n", (int)cuModuleLoadData(&m, p));
	printf("grew %ld\n", hwm_kib() - before);
}

int main(int argc, char **argv)
{
	CUmodule m;
	setvbuf(stdout, NULL, _IONBF, 0); /* each line out before whatever comes next */
	if (argc < 3)
		return 2;
	if (sandbox(argv[1]) != 0)
		return 77;
	if (strcmp(argv[2], "strings") == 0 || strcmp(argv[2], "paths") == 0) {
		strings(strcmp(argv[2], "paths") == 0);
	} else if (strcmp(argv[2], "images") == 0) {
		images();
	} else if (strcmp(argv[2], "fifo") == 0 && argc > 3) {
		cuInit(0);
		printf("fifo %d\n", (int)cuModuleLoad(&m, argv[3]));
	} else if (strcmp(argv[2], "huge") == 0) {
		huge();
	} else if (strcmp(argv[2], "vmreadv") == 0) {
		char a[8] = "abcdefg", b[8];
		struct iovec l = { b, sizeof b }, r = { a, sizeof a };
		long got = (long)process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		printf("vmreadv %ld %d\n", got, got < 0 ? errno : 0);
	} else {
		return 2;
	}
	return 0;
}
