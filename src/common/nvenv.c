/* What the machine says about its NVIDIA driver (nvenv.h). */
#include "config.h"
#include "nvenv.h"
#include "conf.h"
#include "elfbytes.h"
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root(void)
{
	const char *r = cushim_test_env("CUSHIM_TEST_ROOT");
	return r ? r : "";
}

/* A regular file, opened without blocking on a FIFO: the descriptor, or -1. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	if (fd >= 0)
		fcntl(fd, F_SETFL, 0);
	return fd;
}

/* The first size - 1 bytes of a small file under the root: how many. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	char full[PATH_MAX];
	ssize_t n = -1;
	snprintf(full, sizeof full, "%s%s", root(), path);
	int fd = open_regular(full);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

/* The first word of s shaped as a driver version (digits and dots, two
 * dots at most, one at least) into out. */
static void first_version(const char *s, char *out, size_t size)
{
	out[0] = '\0';
	for (; *s; s++) {
		size_t n = strspn(s, "0123456789.");
		if (n >= 3 && isdigit((unsigned char)s[0]) && memchr(s, '.', n) && (s[n] == '\0' || isspace((unsigned char)s[n]))) {
			snprintf(out, size, "%.*s", (int)n, s);
			return;
		}
		s += n ? n - 1 : 0;
	}
}

static void kernel_version(struct nvenv *e)
{
	char text[512];
	const char *at;
	if (read_small("/proc/driver/nvidia/version", text, sizeof text) && (at = strstr(text, "Kernel Module")))
		first_version(at, e->kernel, sizeof e->kernel);
	if (!e->kernel[0] && read_small("/sys/module/nvidia/version", text, sizeof text))
		first_version(text, e->kernel, sizeof e->kernel);
}

/* libcuda.so.580.159.04 (the file libcuda.so.1 leads to) -> 580.159.04 */
static void user_version(struct nvenv *e, const char *libcuda)
{
	char real[PATH_MAX];
	const char *base;
	if (!libcuda || !realpath(libcuda, real))
		return;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (strncmp(base, "libcuda.so.", 11) == 0 && strchr(base + 11, '.'))
		first_version(base + 11, e->user, sizeof e->user);
}

/* ---- the forward-compatibility note, read from the file without reading it whole ---- */
#define NOTE_MAX 4096 /* a multiple of 4 */

/* The section named name of the 64-bit ELF file fd into buf: its size, or 0. */
static size_t read_section(int fd, const char *name, unsigned char *buf, size_t size)
{
	unsigned char h[64], sh[64], strtab[4096];
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, "\177ELF\2\1", 6) != 0)
		return 0;
	uint64_t shoff = 0, stroff, strsz;
	unsigned shnum = h[60] | h[61] << 8, shstrndx = h[62] | h[63] << 8;
	memcpy(&shoff, h + 40, 8);
	if (!shnum || shstrndx >= shnum || pread(fd, sh, 64, (off_t)(shoff + 64u * shstrndx)) != 64)
		return 0;
	memcpy(&stroff, sh + 24, 8), memcpy(&strsz, sh + 32, 8);
	ssize_t got = pread(fd, strtab, sizeof strtab - 1 < strsz ? sizeof strtab - 1 : strsz, (off_t)stroff);
	if (got <= 0)
		return 0;
	strtab[got] = '\0';
	for (unsigned k = 1; k < shnum && k < 4096; k++) {
		uint32_t nameoff;
		uint64_t off, n;
		if (pread(fd, sh, 64, (off_t)(shoff + 64u * k)) != 64)
			return 0;
		memcpy(&nameoff, sh, 4), memcpy(&off, sh + 24, 8), memcpy(&n, sh + 32, 8);
		if (nameoff < (uint32_t)got && strcmp((char *)strtab + nameoff, name) == 0)
			return n <= size && pread(fd, buf, n, (off_t)off) == (ssize_t)n ? (size_t)n : 0;
	}
	return 0;
}

/* The text after "key": in json, up to its end (a string's, or an array's
 * without its brackets and spaces), into out. */
static void json_field(const char *json, const char *key, char *out, size_t size)
{
	const char *at = strcasestr(json, key), *end; /* 580's keys are "driver", 590's "Driver" */
	size_t o = 0;
	out[0] = '\0';
	if (!at || !(at = strchr(at + strlen(key), ':')))
		return;
	at += strspn(at + 1, " \t\n") + 1;
	char close = *at == '"' ? '"' : *at == '[' ? ']' : 0;
	if (!close || !(end = strchr(at + 1, close)))
		return;
	for (at++; at < end && o + 1 < size; at++)
		if (!isspace((unsigned char)*at))
			out[o++] = *at;
	out[o] = '\0';
}

static void compat_note(struct nvenv *e, const char *libcuda)
{
	unsigned char sec[NOTE_MAX + 4];
	char json[NOTE_MAX + 1];
	int fd = libcuda ? open_regular(libcuda) : -1;
	size_t n = fd >= 0 ? read_section(fd, ".note.cuda.fwd_compatibility", sec, sizeof sec) : 0;
	struct eb_section s = { ".note.cuda.fwd_compatibility", 7, 0, sec, (n + 3) & ~(size_t)3 };
	const unsigned char *desc;
	size_t descsz;
	uint32_t type;

	if (fd >= 0)
		close(fd);
	memset(sec + n, 0, s.n - n); /* a description need not fill its last word */
	if (!n || !eb_note(&s, 0, &type, &desc, &descsz))
		return;
	snprintf(json, sizeof json, "%.*s", (int)descsz, (const char *)desc);
	e->compat = 1;
	json_field(json, "\"CUDA version\"", e->compat_cuda, sizeof e->compat_cuda);
	json_field(json, "\"Driver\"", e->compat_drivers, sizeof e->compat_drivers);
	json_field(json, "\"Device\"", e->compat_devices, sizeof e->compat_devices);
}

/* ---- the device files ---- */
static void look(struct nvenv_file *f, const char *name)
{
	char full[PATH_MAX];
	struct stat st;
	snprintf(f->path, sizeof f->path, "/dev/%s", name);
	snprintf(full, sizeof full, "%s%s", root(), f->path);
	f->exists = stat(full, &st) == 0;
	f->rw = f->exists && faccessat(AT_FDCWD, full, R_OK | W_OK, AT_EACCESS) == 0;
}

static int is_gpu_file(const char *name)
{
	return strncmp(name, "nvidia", 6) == 0 && name[6] && strspn(name + 6, "0123456789") == strlen(name + 6);
}

static void devices(struct nvenv *e)
{
	char dir[PATH_MAX];
	struct dirent *d;
	size_t o = 0;
	snprintf(dir, sizeof dir, "%s/dev", root());
	DIR *dp = opendir(dir);
	while (dp && (d = readdir(dp)) && e->ndev < NVENV_MAXDEV) {
		struct nvenv_file f;
		if (!is_gpu_file(d->d_name))
			continue;
		look(&f, d->d_name);
		e->ndev++;
		e->ndev_rw += f.rw;
		if (o < sizeof e->devs)
			o += (size_t)snprintf(e->devs + o, sizeof e->devs - o, "%s%s %s", o ? ", " : "", f.path,
					      f.rw ? "rw" : "not rw");
	}
	if (dp)
		closedir(dp);
}

void nvenv_read(struct nvenv *e, const char *libcuda)
{
	memset(e, 0, sizeof *e);
	kernel_version(e);
	user_version(e, libcuda);
	compat_note(e, libcuda);
	look(&e->ctl, "nvidiactl");
	look(&e->uvm, "nvidia-uvm");
	devices(e);
	e->visible = getenv("CUDA_VISIBLE_DEVICES");
	e->order = getenv("CUDA_DEVICE_ORDER");
}

void nvenv_read_compat(struct nvenv *e, const char *libcuda)
{
	memset(e, 0, sizeof *e);
	compat_note(e, libcuda);
}

int nvenv_compat_cuda(const struct nvenv *e)
{
	int major, minor;
	if (!e->compat || sscanf(e->compat_cuda, "%d.%d", &major, &minor) != 2 || major <= 0 || minor < 0 || minor > 9)
		return 0;
	return major * 1000 + minor * 10;
}

int nvenv_visible_count(const char *visible, int ndev)
{
	int n = 0;
	if (!visible)
		return ndev;
	for (const char *p = visible; *p;) {
		char *end;
		p += strspn(p, " ");
		if (strncmp(p, "GPU-", 4) == 0 || strncmp(p, "MIG-", 4) == 0)
			return -1;
		long k = strtol(p, &end, 10);
		if (end == p || k < 0 || k >= ndev)
			break;
		n++;
		p = end + strspn(end, " ");
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

/* ---- the cause ---- */
static int branch(const char *version)
{
	return atoi(version);
}

/* a's release against b's ("580.159.04" < "590.44.01"): <0, 0, >0. */
static int release_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea, b = *eb == '.' ? eb + 1 : eb;
		if (ea == a && eb == b)
			break;
	}
	return 0;
}

int nvenv_forward(const struct nvenv *e)
{
	return e->compat && e->user[0] && e->kernel[0] && release_cmp(e->user, e->kernel) > 0;
}

int nvenv_compat_lists(const struct nvenv *e, int driver_branch)
{
	char list[sizeof e->compat_drivers + 2];
	char want[16];
	snprintf(list, sizeof list, ",%s,", e->compat_drivers);
	snprintf(want, sizeof want, ",%d,", driver_branch);
	return strstr(list, want) != NULL;
}

/* Is the kernel module's branch among the note's drivers ("535,550,580")? */
static int compat_accepts(const struct nvenv *e)
{
	return nvenv_compat_lists(e, branch(e->kernel));
}

static int compat_cause(const struct nvenv *e, int rc, char *buf, size_t size)
{
	if (e->kernel[0] && e->compat_drivers[0] && !compat_accepts(e))
		return snprintf(buf, size, "the driver library is NVIDIA's forward-compatibility package for CUDA %s, "
				"which runs only on kernel modules of branches %s, and this machine's module is %s (branch "
				"%d): remove the package's folder from the library path (LD_LIBRARY_PATH, ld.so.conf) so "
				"that the libcuda.so.1 installed with the kernel module is used, or install a module of a "
				"branch it lists", e->compat_cuda, e->compat_drivers, e->kernel, branch(e->kernel)), 1;
	if (rc == 804)
		return snprintf(buf, size, "the driver library is NVIDIA's forward-compatibility package for CUDA %s, and "
				"this GPU does not support forward compatibility (data-centre GPUs do; the note lists device "
				"classes %s): remove the package's folder from the library path (LD_LIBRARY_PATH, "
				"ld.so.conf) so that the libcuda.so.1 installed with the kernel module is used, and build "
				"for the CUDA that driver supports", e->compat_cuda, e->compat_devices[0] ?
				e->compat_devices : "none"), 1;
	return 0;
}

static int files_cause(const struct nvenv *e, int rc, char *buf, size_t size)
{
	if (rc != 100 && rc != 999)
		return 0;
	if (!e->kernel[0] && !e->ctl.exists && !e->ndev)
		return snprintf(buf, size, "no NVIDIA kernel module answers and there are no NVIDIA device files: this "
				"machine or container has no GPU made visible to it (in a container: run it with the "
				"GPUs given, e.g. docker run --gpus all)"), 1;
	if (!e->ctl.exists || !e->ndev)
		return snprintf(buf, size, "%s is missing: without it no GPU can be opened (in a container: run it "
				"with the GPUs given; on a host: nvidia-modprobe, or reload the driver)",
				!e->ctl.exists ? e->ctl.path : "every /dev/nvidiaN file"), 1;
	if (!e->ctl.rw || !e->ndev_rw)
		return snprintf(buf, size, "%s cannot be opened for reading and writing by this process: give it "
				"access (the group the files belong to, or the container's device rules)",
				!e->ctl.rw ? e->ctl.path : "no /dev/nvidiaN file"), 1;
	if (rc == 999 && (!e->uvm.exists || !e->uvm.rw))
		return snprintf(buf, size, "%s %s: the nvidia-uvm module is not loaded or its device is not given "
				"(common after a driver update, a suspend, or in a container): load it (sudo "
				"nvidia-modprobe -u -c=0, or modprobe nvidia-uvm) or give the device", e->uvm.path,
				e->uvm.exists ? "cannot be opened for reading and writing" : "is missing"), 1;
	return 0;
}

int nvenv_cause(const struct nvenv *e, int rc, char *buf, size_t size)
{
	if (nvenv_forward(e) && compat_cause(e, rc, buf, size))
		return 1;
	if (!nvenv_forward(e) && e->user[0] && e->kernel[0] && strcmp(e->user, e->kernel) != 0)
		return snprintf(buf, size, "the user-mode driver (libcuda.so %s) and the kernel module (%s) are of "
				"different releases, and they must be the same: the libcuda.so.1 loaded is not the one "
				"installed with the module (a container's, or one on LD_LIBRARY_PATH); load the one of the "
				"module's release, or reboot after a driver update", e->user, e->kernel), 1;
	if (files_cause(e, rc, buf, size))
		return 1;
	if (rc == 100 && e->visible && nvenv_visible_count(e->visible, e->ndev) == 0)
		return snprintf(buf, size, "CUDA_VISIBLE_DEVICES=\"%s\" names none of the %d device%s this machine has "
				"(/dev/nvidia0 to /dev/nvidia%d; the list ends at its first entry that names none): unset "
				"it, or name devices that exist", e->visible, e->ndev, e->ndev == 1 ? "" : "s",
				e->ndev - 1), 1;
	return 0;
}

void nvenv_evidence(const struct nvenv *e, const char *libcuda, int cuda_version, char *buf, size_t size)
{
	char drv[400] = "", mod[96];
	if (e->compat)
		snprintf(drv, sizeof drv, "%s: CUDA %s, drivers %s, devices %s", nvenv_forward(e) ?
			 ", NVIDIA's forward-compatibility package (newer than the kernel module), its note" :
			 ", its forward-compatibility note", e->compat_cuda, e->compat_drivers, e->compat_devices);
	if (e->kernel[0])
		snprintf(mod, sizeof mod, "kernel module %s", e->kernel);
	else
		snprintf(mod, sizeof mod, "no NVIDIA kernel module (/proc/driver/nvidia/version absent)");
	snprintf(buf, size, "Seen: driver %s (user-mode %s, CUDA %d.%d%s); %s; CUDA_VISIBLE_DEVICES%s%s%s; "
		 "CUDA_DEVICE_ORDER %s; %s %s; %s %s; %s.", libcuda ? libcuda : "unknown", e->user[0] ? e->user : "unknown",
		 cuda_version / 1000, cuda_version % 1000 / 10, drv, mod, e->visible ? "=\"" : " unset",
		 e->visible ? e->visible : "", e->visible ? "\"" : "", e->order ? e->order : "unset", e->ctl.path,
		 !e->ctl.exists ? "missing" : e->ctl.rw ? "rw" : "not rw", e->uvm.path,
		 !e->uvm.exists ? "missing" : e->uvm.rw ? "rw" : "not rw", e->ndev ? e->devs : "no /dev/nvidiaN file");
}
