/* The causes cushim names when CUDA cannot start or runs out, black box
 * against the fake 13.0 driver, with a machine view of the test's own
 * (CUSHIM_TEST_ROOT: /proc/driver/nvidia/version, /dev/nvidia*):
 *  - cuInit failing (FAKE_INIT_FAIL) with 803 on a user-mode driver of
 *    another release than the kernel module, 804 and an unlisted branch on
 *    a forward-compatibility package (a copy of the fake carrying NVIDIA's
 *    note), 999 without /dev/nvidia-uvm, 100 without device files or with
 *    CUDA_VISIBLE_DEVICES naming none, and a cause unknown; each said once;
 *  - a context refused with 46 on an exclusive-process device;
 *  - out of memory (FAKE_MEM_TOTAL) with three kinds held, under the
 *    summary (counted) and by default (free and total only), once per
 *    context, and in the summary's "causes". */
#include <cuda.h>
#include "../harness/harness.h"
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- children ---- */
static int child_init(const char *arg)
{
	int r1 = cuInit(0), r2 = cuInit(0);
	printf("init %d %d\n", r1, r2);
	return 0;
}

static int child_retain(const char *arg)
{
	CUcontext c;
	CUdevice d = 0;
	cuInit(0);
	printf("retain %d %d\n", (int)cuDevicePrimaryCtxRetain(&c, d), (int)cuDevicePrimaryCtxRetain(&c, d));
	return 0;
}

/* 100 MiB of device memory, 50 of managed, 10 host-pinned, then 2 GiB of
 * device memory twice, on a device of FAKE_MEM_TOTAL bytes. */
static int child_oom(const char *arg)
{
	CUdeviceptr d, m, big;
	void *h;
	cuInit(0);
	int a = cuMemAlloc(&d, 100u << 20), b = cuMemAllocManaged(&m, 50u << 20, CU_MEM_ATTACH_GLOBAL);
	int c = cuMemHostAlloc(&h, 10u << 20, 0);
	int o1 = cuMemAlloc(&big, 2ull << 30), o2 = cuMemAlloc(&big, 2ull << 30);
	printf("alloc %d %d %d oom %d %d\n", a, b, c, o1, o2);
	return 0;
}

/* ---- the machine view ---- */
struct view {
	char dir[64], lib[128];
};

static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s%s", dir, rel);
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	ck_assert_msg(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A root with the kernel module kmod ("" none) and the device files named
 * (a space-separated list of /dev paths), and a folder lib holding a copy of
 * the fake driver as libcuda.so.USER (libcuda.so.1 leads to it). */
static void make_view(struct view *v, const char *kmod, const char *devs, const char *user)
{
	char cmd[1024], one[64];
	snprintf(v->dir, sizeof v->dir, "/tmp/cushim-start.XXXXXX");
	ck_assert(mkdtemp(v->dir));
	if (*kmod) {
		snprintf(cmd, sizeof cmd, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Release Build\n"
			 "GCC version:  gcc version 12.2.0\n", kmod);
		put_file(v->dir, "/proc/driver/nvidia/version", cmd);
	}
	for (const char *p = devs; sscanf(p, "%63s", one) == 1; p = strstr(p, one) + strlen(one))
		put_file(v->dir, one, "");
	snprintf(v->lib, sizeof v->lib, "%s/lib", v->dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/libcuda.so.1 %s/libcuda.so.%s && ln -s libcuda.so.%s %s/libcuda.so.1",
		 v->lib, DRV("13.0"), v->lib, user, user, v->lib);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* Gives the driver copy NVIDIA's forward-compatibility note. */
static void add_compat_note(struct view *v, const char *user, const char *drivers)
{
	char json[256], note[512], path[256], cmd[1024];
	/* as 590's compat package writes it (keys capitalised); 580's own libcuda writes
	 * {"format":1,"CUDA version":"13.0","driver":[...],"device":[...]}, measured */
	if (strcmp(user, "580.159.04") == 0)
		snprintf(json, sizeof json, "{\"format\":1,\"CUDA version\":\"13.0\",\"driver\":[%s],\"device\":[7,8,9]}",
			 drivers);
	else
		snprintf(json, sizeof json, "{\"Format\": 1, \"CUDA Version\": \"13.1\", \"Driver\": [%s], \"Device\": [7, 8, 9]}",
			 drivers);
	uint32_t hdr[3] = { 19, (uint32_t)strlen(json), 1 };
	size_t n = 0;
	memset(note, 0, sizeof note);
	memcpy(note, hdr, 12), n = 12;
	memcpy(note + n, "NVIDIA Corporation", 19), n += 20;
	memcpy(note + n, json, strlen(json)), n += (strlen(json) + 3) & ~(size_t)3;
	snprintf(path, sizeof path, "%s/note.bin", v->dir);
	FILE *f = fopen(path, "wb");
	ck_assert(f && fwrite(note, 1, n, f) == n);
	fclose(f);
	/* the host's objcopy, else a cross build's (the fake driver is of the build's machine) */
	snprintf(cmd, sizeof cmd, "for o in objcopy aarch64-linux-gnu-objcopy; do $o --add-section "
		 ".note.cuda.fwd_compatibility=%s %s/libcuda.so.%s 2>/dev/null && exit 0; done; exit 1", path, v->lib, user);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void drop_view(struct view *v)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", v->dir);
	ck_assert(system(cmd) == 0);
}

static struct run in_view(const struct view *v, const char *mode, const char *e1, const char *e2, const char *e3)
{
	char root[128], ld[600];
	struct run r;
	snprintf(root, sizeof root, "CUSHIM_TEST_ROOT=%s", v->dir);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s:%s", v->lib, NO_RT);
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, ld, root, e1, e2, e3, NULL };
	run_self(&r, mode, "", env, 30);
	return r;
}

#define ALL_DEVS "/dev/nvidiactl /dev/nvidia-uvm /dev/nvidia0"

static const struct {
	const char *name, *code, *kmod, *devs, *user, *compat, *env, *cause;
} starts[] = {
	{ "mismatch", "803", "580.159.04", ALL_DEVS, "550.163.01", NULL, NULL,
	  "the user-mode driver (libcuda.so 550.163.01) and the kernel module (580.159.04) are of different releases" },
	{ "compat-hw", "804", "580.159.04", ALL_DEVS, "590.44.01", "535, 550, 580", NULL,
	  "NVIDIA's forward-compatibility package for CUDA 13.1, and this GPU does not support forward compatibility" },
	{ "compat-branch", "804", "570.86.15", ALL_DEVS, "590.44.01", "535, 550, 580", NULL,
	  "which runs only on kernel modules of branches 535,550,580, and this machine's module is 570.86.15 (branch 570)" },
	{ "uvm", "999", "580.159.04", "/dev/nvidiactl /dev/nvidia0", "580.159.04", NULL, NULL,
	  "/dev/nvidia-uvm is missing: the nvidia-uvm module is not loaded" },
	{ "nothing", "100", "", "", "580.159.04", NULL, NULL,
	  "no NVIDIA kernel module answers and there are no NVIDIA device files" },
	{ "visible", "100", "580.159.04", ALL_DEVS, "580.159.04", NULL, "CUDA_VISIBLE_DEVICES=7",
	  "CUDA_VISIBLE_DEVICES=\"7\" names none of the 1 device this machine has" },
	{ "visible-empty", "100", "580.159.04", ALL_DEVS, "580.159.04", NULL, "CUDA_VISIBLE_DEVICES=",
	  "CUDA_VISIBLE_DEVICES=\"\" names none of the 1 device this machine has" },
	{ "own-note", "100", "580.159.04", ALL_DEVS, "580.159.04", "535, 550, 580", "CUDA_VISIBLE_DEVICES=7",
	  "CUDA_VISIBLE_DEVICES=\"7\" names none of the 1 device this machine has" },
	{ "unknown", "999", "580.159.04", ALL_DEVS, "580.159.04", NULL, NULL,
	  "the cause is unknown: nothing seen below fits a cause cushim knows" },
};
#define NSTARTS (int)(sizeof starts / sizeof *starts)

START_TEST(check_each_failed_cuinit_is_explained_once)
{
	struct view v;
	char fail[64], rc[64], head[96];
	make_view(&v, starts[_i].kmod, starts[_i].devs, starts[_i].user);
	if (starts[_i].compat)
		add_compat_note(&v, starts[_i].user, starts[_i].compat);
	snprintf(fail, sizeof fail, "FAKE_INIT_FAIL=%s", starts[_i].code);
	struct run r = in_view(&v, "init", fail, starts[_i].env, NULL);
	snprintf(rc, sizeof rc, "init %s %s\n", starts[_i].code, starts[_i].code);
	snprintf(head, sizeof head, "cuInit returned %s (CUDA_ERROR_", starts[_i].code);
	ck_assert_msg(strstr(r.out, rc), "%s: %s%s", starts[_i].name, r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, head) == 1, "%s: not said once:\n%s", starts[_i].name, r.err);
	ck_assert_msg(strstr(r.err, starts[_i].cause), "%s: no cause in:\n%s", starts[_i].name, r.err);
	ck_assert_msg(strstr(r.err, "Seen: driver ") && strstr(r.err, "/dev/nvidiactl"), "%s: %s", starts[_i].name, r.err);
	ck_assert_int_eq(count_lines_with(r.err, "cushim:"), 1);
	if (starts[_i].compat && strcmp(starts[_i].user, starts[_i].kmod) == 0) /* driver 580's own note */
		ck_assert_msg(strstr(r.err, ", its forward-compatibility note: CUDA 13.0, drivers 535,550,580") &&
			      !strstr(r.err, "package"), "the module's own library taken for the package:\n%s", r.err);
	run_free(&r);
	r = in_view(&v, "init", starts[_i].env, NULL, NULL); /* the same view, cuInit succeeding: nothing said */
	ck_assert_msg(strstr(r.out, "init 0 0\n") && !strstr(r.err, "cushim:"), "%s%s", r.out, r.err);
	run_free(&r);
	drop_view(&v);
}
END_TEST

START_TEST(check_the_evidence_names_what_was_seen)
{
	struct view v;
	make_view(&v, "580.159.04", "/dev/nvidiactl /dev/nvidia0", "550.163.01");
	add_compat_note(&v, "550.163.01", "535, 550");
	struct run r = in_view(&v, "init", "FAKE_INIT_FAIL=999", "CUDA_VISIBLE_DEVICES=0", "CUDA_DEVICE_ORDER=PCI_BUS_ID");
	/* an older library than the module, though it carries the note: no package in use, a mismatch */
	ck_assert_msg(strstr(r.err, "/lib/libcuda.so.1 (user-mode 550.163.01, CUDA 13.0, its forward-compatibility note: "
			     "CUDA 13.1, drivers 535,550, devices 7,8,9); kernel module 580.159.04; "
			     "CUDA_VISIBLE_DEVICES=\"0\"; CUDA_DEVICE_ORDER PCI_BUS_ID; /dev/nvidiactl rw; "
			     "/dev/nvidia-uvm missing; /dev/nvidia0 rw."), "%s", r.err);
	ck_assert_msg(strstr(r.err, "the user-mode driver (libcuda.so 550.163.01) and the kernel module (580.159.04) are "
			     "of different releases"), "%s", r.err);
	run_free(&r);
	drop_view(&v);
}
END_TEST

START_TEST(check_an_exclusive_device_is_named)
{
	struct view v;
	make_view(&v, "580.159.04", ALL_DEVS, "580.159.04");
	struct run r = in_view(&v, "retain", "FAKE_COMPUTE_MODE=3", NULL, NULL);
	ck_assert_msg(strstr(r.out, "retain 46 46\n"), "%s%s", r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, "cuDevicePrimaryCtxRetain returned CUDA_ERROR_DEVICE_UNAVAILABLE for "
				       "device 0: its compute mode is exclusive-process") == 1, "%s", r.err);
	run_free(&r);
	r = in_view(&v, "retain", "FAKE_COMPUTE_MODE=2", NULL, NULL);
	ck_assert_msg(strstr(r.err, "its compute mode is prohibited"), "%s", r.err);
	run_free(&r);
	drop_view(&v);
}
END_TEST

/* ---- out of memory ---- */
#define OOM "cuMemAlloc_v2 returned CUDA_ERROR_OUT_OF_MEMORY asking for 2.00 GiB of device memory: the device has " \
	"864.00 MiB free of 1.00 GiB (cuMemGetInfo)."

START_TEST(check_out_of_memory_counts_what_the_process_holds)
{
	struct view v;
	char dir[] = "/tmp/cushim-oom.XXXXXX", js[128], cmd[600];
	ck_assert(mkdtemp(dir));
	snprintf(js, sizeof js, "CUSHIM_SUMMARY=%s/s.json", dir);
	make_view(&v, "580.159.04", ALL_DEVS, "580.159.04");
	struct run r = in_view(&v, "oom", "FAKE_MEM_TOTAL=1073741824", js, NULL);
	ck_assert_msg(strstr(r.out, "alloc 0 0 0 oom 2 2\n"), "%s%s", r.out, r.err);
	ck_assert_msg(count_lines_with(r.err, OOM) == 1, "not said once:\n%s", r.err);
	ck_assert_msg(strstr(r.err, "This process holds through cushim: device 100.00 MiB in 1 allocation, pools 0.00 MiB "
			     "in 0 allocations, VMM 0.00 MiB in 0 allocations, managed 50.00 MiB in 1 allocation, "
			     "host-pinned 10.00 MiB in 1 allocation."), "%s", r.err);
	run_free(&r);
	snprintf(cmd, sizeof cmd, "python3 -c \"import json,sys; c=json.load(open('%s/s.json'))['causes']; "
		 "sys.exit(not (len(c)==1 and c[0]['cause']=='out-of-memory' and 'managed 50.00 MiB' in c[0]['message']))\"",
		 dir);
	ck_assert_msg(system(cmd) == 0, "no out-of-memory cause in %s/s.json", dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert(system(cmd) == 0);
	r = in_view(&v, "oom", "FAKE_MEM_TOTAL=1073741824", NULL, NULL); /* by default: nothing counted */
	ck_assert_msg(count_lines_with(r.err, OOM) == 1, "%s", r.err);
	ck_assert_msg(strstr(r.err, "What this process holds is counted only under a diagnostic mode"), "%s", r.err);
	run_free(&r);
	drop_view(&v);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "init", child_init }, { "retain", child_retain }, { "oom", child_oom }, { NULL },
	};
	const TTest *const init[] = { check_each_failed_cuinit_is_explained_once, check_the_evidence_names_what_was_seen,
				      check_an_exclusive_device_is_named, NULL };
	const struct harness_loop each[] = { { check_each_failed_cuinit_is_explained_once, NSTARTS }, { NULL } };
	const TTest *const oom[] = { check_out_of_memory_counts_what_the_process_holds, NULL };
	const struct harness_tcase tcases[] = {
		{ "Start", 60, init, each },
		{ "OutOfMemory", 60, oom, NULL },
		{ NULL },
	};
	return harness_main(argc, argv, children, "explain-start", tcases);
}
