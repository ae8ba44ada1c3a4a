/* White-box tests of the flight recorder's rings (src/diag/recorder.c):
 * records read back whole (arguments past the head cell, a string, the
 * handle a call made); a string that cannot be read; a reader that falls
 * behind skips what the ring overwrote and counts it exactly; and one
 * producer writing while another thread reads, where every record read is
 * whole and read plus lost is what was written. */
#include "table.h"
#include "recorder.h"
#include "stamp.h"
#include "sticky.h"
#include "explain.h"
#include <check.h>
#include "../harness/check-run.h"
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

/* Records export fn's call as its trace wrapper does. */
#define REC(fn, r, t0, t1, argv) cushim_record(CUSHIM_IDX_##fn, cushim_rec_desc[CUSHIM_IDX_##fn], r, t0, t1, argv)

static struct cushim_ring *only;
static int first_ring(struct cushim_ring *g, int tid, void *ctx)
{
	only = g;
	return 1;
}

static struct cushim_ring *this_threads_ring(void)
{
	only = NULL;
	cushim_rings_each(first_ring, NULL); /* newest first: the one just made */
	return only;
}

START_TEST(records_read_back_whole)
{
	uint64_t handle = 0xf00d, launch[11], one = 0x1234;
	const uint64_t get[3] = { (uintptr_t)&handle, 0x77, (uintptr_t)"saxpy_kernel" };
	struct cushim_cursor c;
	struct cushim_rec r;

	cushim_recorder_start(10, NULL);
	for (int k = 0; k < 11; k++)
		launch[k] = 1000 + (uint64_t)k;
	REC(cuCtxGetCurrent, CUDA_SUCCESS, 5, 9, &one);
	REC(cuModuleGetFunction, CUDA_SUCCESS, 10, 20, get);
	REC(cuLaunchKernel, CUDA_ERROR_LAUNCH_FAILED, 30, 40, launch);
	struct cushim_ring *g = this_threads_ring();
	ck_assert_ptr_nonnull(g);
	cushim_cursor_oldest(g, &c);
	ck_assert(cushim_ring_read(g, &c, &r));
	ck_assert_uint_eq(r.fn, CUSHIM_IDX_cuCtxGetCurrent);
	ck_assert(r.t0 == 5 && r.t1 == 9 && r.nwords == 1 && r.argv[0] == 0x1234 && r.str_arg == -1);
	ck_assert(cushim_ring_read(g, &c, &r));
	ck_assert_uint_eq(r.fn, CUSHIM_IDX_cuModuleGetFunction);
	ck_assert_int_eq(r.str_arg, 2);
	ck_assert_int_eq(r.str_state, 0);
	ck_assert_str_eq(r.str, "saxpy_kernel");
	ck_assert(r.made == 0xf00d && r.argv[1] == 0x77);
	ck_assert(cushim_ring_read(g, &c, &r));
	ck_assert_uint_eq(r.fn, CUSHIM_IDX_cuLaunchKernel);
	ck_assert_int_eq(r.result, CUDA_ERROR_LAUNCH_FAILED);
	ck_assert_uint_eq(r.nwords, 11);
	for (int k = 0; k < 11; k++)
		ck_assert(r.argv[k] == 1000 + (uint64_t)k);
	ck_assert(!cushim_ring_read(g, &c, &r));
	ck_assert(c.lost == 0);
}
END_TEST

START_TEST(an_unreadable_or_long_string_is_said_so)
{
	char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char long_name[200];
	uint64_t handle = 0;
	const uint64_t bad[3] = { (uintptr_t)&handle, 1, (uintptr_t)page };
	const uint64_t longer[3] = { (uintptr_t)&handle, 1, (uintptr_t)long_name };
	struct cushim_cursor c;
	struct cushim_rec r;

	memset(long_name, 'x', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	cushim_recorder_start(8, NULL);
	REC(cuModuleGetFunction, CUDA_ERROR_INVALID_VALUE, 1, 2, bad);
	REC(cuModuleGetFunction, CUDA_SUCCESS, 3, 4, longer);
	struct cushim_ring *g = this_threads_ring();
	cushim_cursor_oldest(g, &c);
	ck_assert(cushim_ring_read(g, &c, &r));
	ck_assert_int_eq(r.str_state, 2);
	ck_assert(r.made == 0); /* the call failed: no handle read */
	ck_assert(cushim_ring_read(g, &c, &r));
	ck_assert_int_eq(r.str_state, 1);
	ck_assert_uint_eq(strlen(r.str), CUSHIM_REC_STR - 1);
}
END_TEST

START_TEST(a_lagging_reader_counts_exactly_what_it_lost)
{
	struct cushim_cursor c;
	struct cushim_rec r;
	uint64_t read = 0, last = 0;

	cushim_recorder_start(6, NULL); /* 64 cells */
	struct cushim_ring *g = NULL;
	for (uint64_t k = 1; k <= 1000; k++) {
		REC(cuCtxGetCurrent, CUDA_SUCCESS, k, k, &k);
		if (k == 1) {
			g = this_threads_ring();
			cushim_cursor_end(g, &c);
			c.cell = 0, c.serial = 0; /* the reader's place: before the first record */
		}
	}
	while (cushim_ring_read(g, &c, &r)) {
		ck_assert_msg(r.argv[0] > last, "out of order: %llu after %llu", (unsigned long long)r.argv[0],
			      (unsigned long long)last);
		last = r.argv[0];
		read++;
	}
	ck_assert_uint_eq(last, 1000);
	ck_assert_msg(read + c.lost == 1000, "read %llu, lost %llu", (unsigned long long)read, (unsigned long long)c.lost);
	ck_assert(read <= 64);
}
END_TEST

/* A string argument shows the same from the record's copy as read live: of
 * every length around the cut, empty, NULL, unreadable, and running into
 * an unreadable page. */
START_TEST(a_recorded_string_formats_as_a_live_one)
{
	char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char *strs[90];
	int n = 0;
	struct cushim_cursor c;
	struct cushim_rec r;

	ck_assert(pages != MAP_FAILED && mprotect(pages + 4096, 4096, PROT_NONE) == 0);
	static char lens[80][80];
	for (int len = 0; len < 80; len++) {
		memset(lens[len], 'a' + len % 26, (size_t)len);
		strs[n++] = lens[len];
	}
	memcpy(pages + 4096 - 5, "ab\"\n\x01", 5); /* runs into the PROT_NONE page */
	strs[n++] = pages + 4096 - 5;
	strs[n++] = pages + 4096;
	strs[n++] = NULL;
	cushim_recorder_start(12, NULL);
	for (int k = 0; k < n; k++) {
		uint64_t h = 0;
		const uint64_t a[3] = { (uintptr_t)&h, 9, (uintptr_t)strs[k] };
		REC(cuModuleGetFunction, CUDA_ERROR_NOT_FOUND, 1, 2, a);
	}
	struct cushim_ring *g = this_threads_ring();
	cushim_cursor_oldest(g, &c);
	for (int k = 0; k < n; k++) {
		char live[512], copied[512];
		ck_assert(cushim_ring_read(g, &c, &r));
		struct cushim_strarg sa = { r.str_arg, r.str_state, r.str };
		cushim_format_call(live, sizeof live, r.fn, r.result, r.argv, NULL);
		cushim_format_call(copied, sizeof copied, r.fn, r.result, r.argv, &sa);
		ck_assert_msg(strcmp(live, copied) == 0, "string %d:\n  live   %s\n  copied %s", k, live, copied);
	}
}
END_TEST

/* A sticky error names the launches no synchronisation completed since,
 * newest first, with their grids and streams: not those a context-wide or a
 * stream synchronisation that succeeded covered. */
START_TEST(a_sticky_error_names_the_launches_in_flight)
{
	uint64_t h;
	const uint64_t wild[3] = { (uintptr_t)&h, 1, (uintptr_t)"_Z10write_wildPi" };
	const uint64_t saxpy[3] = { (uintptr_t)&h, 1, (uintptr_t)"saxpy" };
	uint64_t l1[11] = { 0xbbb, 4, 1, 1, 256, 1, 1, 0, 0x10 }, l2[11] = { 0xaaa, 1, 1, 1, 32, 1, 1, 64, 0x20 };
	uint64_t l3[11] = { 0xbbb, 8, 1, 1, 128, 1, 1, 0, 0x30 }, l4[11] = { 0xbbb, 2, 2, 1, 64, 1, 1, 0, 0x20 };
	const uint64_t s30 = 0x30, none = 0;
	char json[CUSHIM_CAUSES_JSON_MAX];

	cushim_recorder_start(10, NULL);
	h = 0xaaa, REC(cuModuleGetFunction, CUDA_SUCCESS, 1, 2, wild);
	h = 0xbbb, REC(cuModuleGetFunction, CUDA_SUCCESS, 3, 4, saxpy);
	REC(cuLaunchKernel, CUDA_SUCCESS, 10, 11, l1);
	REC(cuCtxSynchronize, CUDA_SUCCESS, 12, 13, &none);
	REC(cuLaunchKernel, CUDA_SUCCESS, 20, 21, l2);
	REC(cuLaunchKernel, CUDA_SUCCESS, 22, 23, l3);
	REC(cuStreamSynchronize, CUDA_SUCCESS, 24, 25, &s30);
	REC(cuLaunchKernel, CUDA_SUCCESS, 26, 27, l4);
	REC(cuCtxSynchronize, CUDA_ERROR_ILLEGAL_ADDRESS, 30, 31, &none);
	cushim_sticky(CUSHIM_IDX_cuCtxSynchronize, CUDA_ERROR_ILLEGAL_ADDRESS, 31, 1);
	cushim_causes_json(json, sizeof json);
	ck_assert_msg(strstr(json, "cuCtxSynchronize returned CUDA_ERROR_ILLEGAL_ADDRESS (700) in thread "), "%s", json);
	ck_assert_msg(strstr(json, "newest first: 1. saxpy grid (2,2,1) block (64,1,1) shared 0 B stream 0x20, thread "),
		      "%s", json);
	ck_assert_msg(strstr(json, "; 2. _Z10write_wildPi grid (1,1,1) block (32,1,1) shared 64 B stream 0x20, thread "),
		      "%s", json);
	ck_assert_msg(!strstr(json, "stream 0x10") && !strstr(json, "stream 0x30") && !strstr(json, " 3. "), "%s", json);
	cushim_sticky(CUSHIM_IDX_cuCtxSynchronize, CUDA_ERROR_ILLEGAL_ADDRESS, 31, 1); /* once per context */
	cushim_causes_json(json, sizeof json);
	ck_assert_msg(!strstr(strstr(json, "\"sticky\"") + 1, "\"sticky\""), "said twice: %s", json);
}
END_TEST

/* ---- one producer, one reader at once ---- */
#define TOTAL 2000000u
static struct cushim_ring *shared;
static int done, read_all; /* the producer lives until all is read: its exit would drop its ring */

static void *produce(void *p)
{
	uint64_t w[4];
	for (uint64_t k = 0; k < TOTAL; k++) {
		w[0] = k, w[1] = ~k, w[2] = k * 3, w[3] = k ^ 0x5555;
		REC(cuMemcpyHtoDAsync_v2, CUDA_SUCCESS, k, k + 1, w);
		if (k == 0)
			__atomic_store_n(&shared, this_threads_ring(), __ATOMIC_RELEASE);
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&read_all, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

START_TEST(a_concurrent_reader_reads_whole_records_and_counts_the_rest)
{
	pthread_t t;
	struct cushim_cursor c = { 0, 0, 0 };
	struct cushim_rec r;
	uint64_t read = 0;

	cushim_recorder_start(10, NULL);
	ck_assert(pthread_create(&t, NULL, produce, NULL) == 0);
	while (!__atomic_load_n(&shared, __ATOMIC_ACQUIRE))
		;
	for (int finished = 0;;) {
		while (cushim_ring_read(shared, &c, &r)) {
			uint64_t k = r.argv[0];
			ck_assert_msg(r.nwords == 4 && r.argv[1] == ~k && r.argv[2] == k * 3 && r.argv[3] == (k ^ 0x5555) &&
				      r.t0 == k, "torn record %llu", (unsigned long long)k);
			ck_assert_msg((uint32_t)(k & 0xffffff) == r.serial, "serial %u for %llu", r.serial,
				      (unsigned long long)k);
			read++;
		}
		if (finished)
			break;
		finished = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
	}
	__atomic_store_n(&read_all, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ck_assert_msg(read + c.lost == TOTAL, "read %llu + lost %llu != %u", (unsigned long long)read,
		      (unsigned long long)c.lost, TOTAL);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { records_read_back_whole, an_unreadable_or_long_string_is_said_so,
				       a_lagging_reader_counts_exactly_what_it_lost, a_recorded_string_formats_as_a_live_one,
				       a_sticky_error_names_the_launches_in_flight,
				       a_concurrent_reader_reads_whole_records_and_counts_the_rest, NULL };
	return check_run("recorder", "rings", tests, NULL, NULL);
}
