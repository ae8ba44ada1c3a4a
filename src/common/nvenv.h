/* What the machine says about its NVIDIA driver, beyond what the driver can
 * say when it cannot start: the user-mode library's version (its file name)
 * and the ELF note .note.cuda.fwd_compatibility it carries (the CUDA release
 * and the kernel module branches it runs on: driver 580's own libcuda carries
 * one too, measured), the kernel module's version
 * (/proc/driver/nvidia/version, else /sys/module/nvidia/version), the device
 * files and whether they can be opened for reading and writing, and
 * CUDA_VISIBLE_DEVICES.  Read when cuInit fails (the library) and by the
 * command; every file is opened without following it into a FIFO, and
 * nothing is guessed: what cannot be read is said to be unknown.
 *
 * CUSHIM_TEST_ROOT (tests only; ignored in secure execution) puts a folder
 * before every /proc, /sys and /dev path. */
#ifndef CUSHIM_NVENV_H
#define CUSHIM_NVENV_H
#include "hidden.h"
#include <stddef.h>

#define NVENV_MAXDEV 64

struct nvenv_file {
	char path[96];
	int exists; /* 1: there */
	int rw;     /* 1: this process may open it for reading and writing */
};

struct nvenv {
	char user[32];     /* the user-mode driver's version, "580.159.04"; "" unknown */
	char kernel[32];   /* the kernel module's version; "" when no module answers */
	int compat;        /* the library carries the forward-compatibility note (not only the package does) */
	char compat_cuda[16], compat_drivers[128], compat_devices[128]; /* the note's fields */
	struct nvenv_file ctl, uvm;
	int ndev, ndev_rw; /* /dev/nvidiaN files, those that can be opened */
	char devs[256];    /* "/dev/nvidia0 rw, /dev/nvidia1 no access" */
	const char *visible, *order; /* CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER; NULL unset */
};

/* e filled for the driver library at path (NULL: unknown). */
void nvenv_read(struct nvenv *e, const char *libcuda) CUSHIM_HIDDEN;
/* Only the forward-compatibility note of the library at path (cushim check
 * on a tree's libcuda.so): e->compat and the note's fields, the rest zero. */
void nvenv_read_compat(struct nvenv *e, const char *libcuda) CUSHIM_HIDDEN;
/* Whether the note lists a driver branch (535), and the note's CUDA version
 * as the driver reports it (13.1: 13010; 0 when it does not say). */
int nvenv_compat_lists(const struct nvenv *e, int branch) CUSHIM_HIDDEN;
int nvenv_compat_cuda(const struct nvenv *e) CUSHIM_HIDDEN;

/* How many devices CUDA_VISIBLE_DEVICES lets through of ndev: the list is
 * read as the driver reads it, up to its first entry that names no device
 * (an index out of range, -1, a word); a UUID (GPU-..., MIG-...) cannot be
 * checked here: -1.  ndev when it is unset. */
int nvenv_visible_count(const char *visible, int ndev) CUSHIM_HIDDEN;

/* NVIDIA's forward-compatibility package in use: a library carrying the
 * note, of a release newer than the kernel module's. */
int nvenv_forward(const struct nvenv *e) CUSHIM_HIDDEN;

/* The one cause that the evidence fits for a cuInit that returned rc, with
 * what to do, into buf; 0 when none fits (the message then says the cause
 * is unknown). */
int nvenv_cause(const struct nvenv *e, int rc, char *buf, size_t size) CUSHIM_HIDDEN;

/* What was seen, in one sentence, into buf. */
void nvenv_evidence(const struct nvenv *e, const char *libcuda, int cuda_version, char *buf,
		    size_t size) CUSHIM_HIDDEN;
#endif
