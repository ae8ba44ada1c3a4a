/* Unit tests of the trace's formatting (src/common/callfmt.c, and
 * src/diag/trace.c for whole lines): every kind of argument the table gives
 * a parameter (tools/gensyms.py: ptr, handle, x32, x64, i32, u8 to u64,
 * enum, str, f32, a structure passed by value), the result, the numbers of
 * the timeline, a cut buffer, and a whole trace line as it reaches the log.
 * Each expected text is written here from the argument's value, not taken
 * from the formatter. */
#include "conf.h"
#include "log.h"
#include "stamp.h"
#include "table.h"
#include "trace.h"
#include "records.h"
#include "ticks.h"
#include <check.h>
#include "../harness/check-run.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned sym(const char *name)
{
	int i = cushim_lookup_index(name);
	ck_assert_msg(i >= 0, "%s is not in the table", name);
	return (unsigned)i;
}

/* The call's text, checked against want. */
static void expect_call(const char *name, CUresult r, const uint64_t *argv, const char *want)
{
	char buf[1024];
	size_t n = cushim_format_call(buf, sizeof buf, sym(name), r, argv, NULL);
	ck_assert_msg(n == strlen(buf), "%s: length %zu, text \"%s\"", name, n, buf);
	ck_assert_msg(strcmp(buf, want) == 0, "%s:\n  got    %s\n  wanted %s", name, buf, want);
}

START_TEST(pointers_and_sizes)
{
	/* ptr (an out-parameter: its address, not what it points to), u64 */
	uint64_t a[] = { 0x7ffd5e1cu, 1048576 };
	expect_call("cuMemAlloc_v2", CUDA_SUCCESS, a, "cuMemAlloc_v2(dptr=0x7ffd5e1c, bytesize=1048576) = CUDA_SUCCESS");
	uint64_t b[] = { 0, UINT64_MAX };
	expect_call("cuMemAlloc_v2", CUDA_ERROR_INVALID_VALUE, b,
		    "cuMemAlloc_v2(dptr=NULL, bytesize=18446744073709551615) = CUDA_ERROR_INVALID_VALUE");
}
END_TEST

START_TEST(handles_and_hex)
{
	/* handle: hexadecimal, NULL as 0x0 (a handle, not a pointer) */
	uint64_t h[] = { 0xdeadbeef00ull };
	expect_call("cuCtxSetCurrent", CUDA_SUCCESS, h, "cuCtxSetCurrent(ctx=0xdeadbeef00) = CUDA_SUCCESS");
	uint64_t z[] = { 0 };
	expect_call("cuCtxSetCurrent", CUDA_SUCCESS, z, "cuCtxSetCurrent(ctx=0x0) = CUDA_SUCCESS");
	/* x32: a 32-bit device pointer; x64, u8, u64 */
	uint64_t x32[] = { 0x1000 };
	expect_call("cuMemFree", CUDA_SUCCESS, x32, "cuMemFree(dptr=0x1000) = CUDA_SUCCESS");
	uint64_t x64[] = { 0x7f0000001000ull, CUSHIM_U64((unsigned char)255), 0 };
	expect_call("cuMemsetD8_v2", CUDA_SUCCESS, x64, "cuMemsetD8_v2(dstDevice=0x7f0000001000, uc=255, N=0) = CUDA_SUCCESS");
	/* u16 */
	uint64_t u16[] = { 0, CUSHIM_U64((unsigned short)65535), 7 };
	expect_call("cuMemsetD16_v2", CUDA_SUCCESS, u16, "cuMemsetD16_v2(dstDevice=0x0, us=65535, N=7) = CUDA_SUCCESS");
}
END_TEST

START_TEST(integers)
{
	/* i32: signed, as the wrappers widen an int */
	uint64_t neg[] = { 0x10, CUSHIM_U64((int)-1) };
	expect_call("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE, neg, "cuDeviceGet(device=0x10, ordinal=-1) = CUDA_ERROR_INVALID_DEVICE");
	uint64_t min[] = { 0x10, CUSHIM_U64((int)INT32_MIN) };
	expect_call("cuDeviceGet", CUDA_SUCCESS, min, "cuDeviceGet(device=0x10, ordinal=-2147483648) = CUDA_SUCCESS");
	/* u32: unsigned, never negative; eleven arguments */
	uint64_t l[] = { 0xabc, CUSHIM_U64(4294967295u), 1, 1, 32, 1, 1, 0, 0, 0, 0 };
	expect_call("cuLaunchKernel", CUDA_SUCCESS, l,
		    "cuLaunchKernel(f=0xabc, gridDimX=4294967295, gridDimY=1, gridDimZ=1, blockDimX=32, blockDimY=1, "
		    "blockDimZ=1, sharedMemBytes=0, hStream=0x0, kernelParams=NULL, extra=NULL) = CUDA_SUCCESS");
}
END_TEST

START_TEST(enums)
{
	/* an enum by its name (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16 in
	 * cuda.h); a value it has no name for, as a signed number */
	uint64_t a[] = { 0x20, CUSHIM_U64((int)16), 0 };
	expect_call("cuDeviceGetAttribute", CUDA_SUCCESS, a,
		    "cuDeviceGetAttribute(pi=0x20, attrib=CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev=0) = CUDA_SUCCESS");
	uint64_t b[] = { 0x20, CUSHIM_U64((int)123456), 0 };
	expect_call("cuDeviceGetAttribute", CUDA_SUCCESS, b,
		    "cuDeviceGetAttribute(pi=0x20, attrib=123456, dev=0) = CUDA_SUCCESS");
	uint64_t c[] = { 0x20, CUSHIM_U64((int)-5), 0 };
	expect_call("cuDeviceGetAttribute", CUDA_SUCCESS, c,
		    "cuDeviceGetAttribute(pi=0x20, attrib=-5, dev=0) = CUDA_SUCCESS");
}
END_TEST

START_TEST(strings)
{
	/* str: quoted; quote, backslash, newline, tab, return and other
	 * control or non-ASCII bytes escaped; NULL unquoted */
	uint64_t a[] = { 0x30, 0x40, (uint64_t)(uintptr_t) "vadd" };
	expect_call("cuModuleGetFunction", CUDA_SUCCESS, a,
		    "cuModuleGetFunction(hfunc=0x30, hmod=0x40, name=\"vadd\") = CUDA_SUCCESS");
	uint64_t b[] = { 0x30, 0x40, (uint64_t)(uintptr_t) "a\"b\\c\nd\te\rf\001g\177h\xe9" };
	expect_call("cuModuleGetFunction", CUDA_SUCCESS, b,
		    "cuModuleGetFunction(hfunc=0x30, hmod=0x40, name=\"a\\\"b\\\\c\\nd\\te\\rf\\x01g\\x7fh\\xe9\") = "
		    "CUDA_SUCCESS");
	uint64_t c[] = { 0x30, 0x40, 0 };
	expect_call("cuModuleGetFunction", CUDA_ERROR_INVALID_VALUE, c,
		    "cuModuleGetFunction(hfunc=0x30, hmod=0x40, name=NULL) = CUDA_ERROR_INVALID_VALUE");
}
END_TEST

/* A string is cut after 64 characters, and says so. */
START_TEST(long_strings)
{
	char s64[65], s65[66], want[256];
	memset(s64, 'k', 64), s64[64] = '\0';
	memset(s65, 'k', 65), s65[65] = '\0';
	uint64_t a[] = { 0, 0, (uint64_t)(uintptr_t)s64 };
	snprintf(want, sizeof want, "cuModuleGetFunction(hfunc=NULL, hmod=0x0, name=\"%s\") = CUDA_SUCCESS", s64);
	expect_call("cuModuleGetFunction", CUDA_SUCCESS, a, want);
	uint64_t b[] = { 0, 0, (uint64_t)(uintptr_t)s65 };
	snprintf(want, sizeof want, "cuModuleGetFunction(hfunc=NULL, hmod=0x0, name=\"%s\"...) = CUDA_SUCCESS", s64);
	expect_call("cuModuleGetFunction", CUDA_SUCCESS, b, want);
}
END_TEST

START_TEST(floats)
{
	uint64_t a[] = { 0x50, CUSHIM_F64(1.5f) };
	expect_call("cuTexRefSetMipmapLevelBias", CUDA_SUCCESS, a, "cuTexRefSetMipmapLevelBias(hTexRef=0x50, bias=1.5) = CUDA_SUCCESS");
	uint64_t b[] = { 0x50, CUSHIM_F64(-2.5e-8f), CUSHIM_F64(1e10f) };
	expect_call("cuTexRefSetMipmapLevelClamp", CUDA_SUCCESS, b,
		    "cuTexRefSetMipmapLevelClamp(hTexRef=0x50, minMipmapLevelClamp=-2.5e-08, maxMipmapLevelClamp=1e+10) "
		    "= CUDA_SUCCESS");
}
END_TEST

/* A structure passed by value: its bytes in hexadecimal, at most 16. */
START_TEST(structures)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 3 }; /* two little-endian ints */
	uint64_t a[] = { 0x1000, 4096, CUSHIM_U64((int)CU_MEM_ADVISE_SET_READ_MOSTLY), (uint64_t)(uintptr_t)&loc };
	expect_call("cuMemAdvise_v2", CUDA_SUCCESS, a,
		    "cuMemAdvise_v2(devPtr=0x1000, count=4096, advice=CU_MEM_ADVISE_SET_READ_MOSTLY, "
		    "location={0100000003000000}) = CUDA_SUCCESS");
	CUipcMemHandle ipc;
	for (int k = 0; k < (int)sizeof ipc.reserved; k++)
		ipc.reserved[k] = (char)(k * 17);
	uint64_t b[] = { 0x60, (uint64_t)(uintptr_t)&ipc, 1 };
	expect_call("cuIpcOpenMemHandle_v2", CUDA_SUCCESS, b,
		    "cuIpcOpenMemHandle_v2(pdptr=0x60, handle={00112233445566778899aabbccddeeff...}, Flags=1) = CUDA_SUCCESS");
}
END_TEST

START_TEST(results)
{
	expect_call("cuCtxSynchronize", CUDA_SUCCESS, NULL, "cuCtxSynchronize() = CUDA_SUCCESS");
	expect_call("cuCtxSynchronize", CUDA_ERROR_NOT_INITIALIZED, NULL, "cuCtxSynchronize() = CUDA_ERROR_NOT_INITIALIZED");
	expect_call("cuCtxSynchronize", (CUresult)987654, NULL, "cuCtxSynchronize() = 987654");
}
END_TEST

/* Every class of argument the table gives a parameter is one tested above. */
START_TEST(every_kind_tested)
{
	static const int tested[] = { CUSHIM_A_PTR, CUSHIM_A_HEX, CUSHIM_A_STR, CUSHIM_A_INT, CUSHIM_A_UINT,
				      CUSHIM_A_ENUM, CUSHIM_A_FLOAT, CUSHIM_A_STRUCT };
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		for (unsigned k = 0; k < cushim_nargs[i]; k++) {
			int cls = (int)cushim_argdescs[i][k].cls, known = 0;
			for (size_t t = 0; t < sizeof tested / sizeof *tested; t++)
				known |= cls == tested[t];
			ck_assert_msg(known, "%s's %s is of class %d, which no test formats", cushim_syms[i].name,
				      cushim_argdescs[i][k].name, cls);
		}
}
END_TEST

/* Too small a buffer: cut, terminated, the length what was written. */
START_TEST(cut)
{
	char buf[10];
	uint64_t a[] = { 0, 1 };
	size_t n = cushim_format_call(buf, sizeof buf, sym("cuMemAlloc_v2"), CUDA_SUCCESS, a, NULL);
	ck_assert_str_eq(buf, "cuMemAllo");
	ck_assert_uint_eq(n, 9);
}
END_TEST

/* The timeline's numbers: microseconds with three or six decimals. */
START_TEST(decimals)
{
	char buf[32];
	static const struct {
		uint64_t v;
		int decimals;
		const char *text;
	} cases[] = {
		{ 1234, 3, "1.234" }, { 5, 3, "0.005" }, { 1000, 3, "1.000" }, { 0, 3, "0.000" },
		{ 12345678, 6, "12.345678" }, { 7, 6, "0.000007" }, { 0, 0, "0" }, { 42, 0, "42" },
		{ UINT64_MAX, 0, "18446744073709551615" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = cushim_format_decimal(buf, sizeof buf, cases[i].v, cases[i].decimals);
		buf[n] = '\0';
		ck_assert_msg(strcmp(buf, cases[i].text) == 0, "%llu with %d decimals: %s", (unsigned long long)cases[i].v,
			      cases[i].decimals, buf);
	}
}
END_TEST

/* A whole line in the log: "cushim: SECONDS PID TID CALL = RESULT TOOK us",
 * and with CUSHIM_LOG=errors the failing calls alone. */
static char *traced(int level, CUresult r1, CUresult r2)
{
	static char text[4096];
	char path[] = "/tmp/cushim-unit-trace.XXXXXX";
	int fd = mkstemp(path);
	uint64_t argv[] = { 0, 4096 }, t0;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	cushim_conf.level = level;
	cushim_conf.log_file = path;
	cushim_log_open();
	cushim_trace_start();
	t0 = cushim_ticks();
	cushim_trace_call(sym("cuMemAlloc_v2"), cushim_rec_desc[sym("cuMemAlloc_v2")], r1, t0, t0 + 1000, argv);
	cushim_trace_call(sym("cuMemAlloc_v2"), cushim_rec_desc[sym("cuMemAlloc_v2")], r2, t0, t0 + 1000, argv);
	cushim_trace_prefork(); /* flushes every buffer */
	cushim_trace_postfork(0);
	n = read(fd, text, sizeof text - 1);
	close(fd);
	unlink(path);
	ck_assert_int_ge(n, 0);
	text[n] = '\0';
	return text;
}

static void expect_line(const char *line, const char *call)
{
	unsigned long s, us, took, took_frac;
	int pid, tid, used = 0;
	char want[256];
	ck_assert_msg(sscanf(line, "cushim: %lu.%6lu %d %d %n", &s, &us, &pid, &tid, &used) == 4 && used,
		      "not a trace line: %s", line);
	ck_assert_int_eq(pid, (int)getpid());
	ck_assert_int_eq(tid, (int)syscall(SYS_gettid));
	snprintf(want, sizeof want, "%s ", call);
	ck_assert_msg(strncmp(line + used, want, strlen(want)) == 0, "%s: the call is not %s", line, call);
	ck_assert_msg(sscanf(line + used + strlen(want), "%lu.%3lu us", &took, &took_frac) == 2, "no time: %s", line);
}

START_TEST(trace_lines)
{
	char *text = traced(CUSHIM_LOG_TRACE, CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY), *second;
	ck_assert_msg((second = strchr(text, '\n')) != NULL, "no line: %s", text);
	*second++ = '\0';
	expect_line(text, "cuMemAlloc_v2(dptr=NULL, bytesize=4096) = CUDA_SUCCESS");
	expect_line(second, "cuMemAlloc_v2(dptr=NULL, bytesize=4096) = CUDA_ERROR_OUT_OF_MEMORY");
	ck_assert_msg(strchr(second, '\n') && strchr(second, '\n')[1] == '\0', "not two lines: %s", second);
}
END_TEST

START_TEST(error_lines)
{
	char *text = traced(CUSHIM_LOG_ERRORS, CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY);
	expect_line(text, "cuMemAlloc_v2(dptr=NULL, bytesize=4096) = CUDA_ERROR_OUT_OF_MEMORY");
	ck_assert_msg(strchr(text, '\n') && strchr(text, '\n')[1] == '\0', "not one line: %s", text);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { pointers_and_sizes, handles_and_hex, integers, enums, strings, long_strings, floats, structures, results, every_kind_tested, cut, decimals, trace_lines, error_lines, NULL };

	return check_run("trace", "format", tests, NULL, NULL);
}
