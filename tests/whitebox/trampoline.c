/* The generated stubs and first-call trampoline (cushim-stubs.S) alone,
 * with src/shim/stubs.c but without the rest of the library: this program defines
 * cushim_resolve(),
 * which overwrites every argument register (it makes a call with eight
 * floating-point and six integer arguments) and hands back a target that
 * checks what it received.  Through the first call (trampoline) and the
 * second (slot): the eleven arguments of cuLaunchKernel, five of them on the
 * stack; the float arguments of cuTexRefSetMipmapLevelClamp and cuParamSetf;
 * the stack alignment the target finds; and that the resolver ran once per
 * export. */
#include "table.h"
#include "slots.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures, resolved[CUSHIM_NSYMS];

#define EXPECT(cond, ...)                                                                                  \
	do {                                                                                               \
		if (!(cond)) {                                                                             \
			printf("FAIL: " __VA_ARGS__);                                                      \
			printf("\n");                                                                      \
			failures++;                                                                        \
		}                                                                                          \
	} while (0)

/* The stack the target finds: 16-byte aligned below its return address. */
__attribute__((noinline)) static void check_alignment(const char *who)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	EXPECT(fp % 16 == 0, "%s: frame at %#lx is not 16-byte aligned", who, (unsigned long)fp);
}

static CUresult CUDAAPI launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			       unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **kp, void **extra)
{
	EXPECT(f == (CUfunction)0xF1 && gx == 11 && gy == 12 && gz == 13 && bx == 14 && by == 15 && bz == 16 &&
		       shared == 17 && s == (CUstream)0x5150 && kp == (void **)0x4B50 && extra == (void **)0xE7A,
	       "cuLaunchKernel's target got %p %u %u %u %u %u %u %u %p %p %p", (void *)f, gx, gy, gz, bx, by, bz,
	       shared, (void *)s, (void *)kp, (void *)extra);
	check_alignment("cuLaunchKernel");
	return (CUresult)42;
}

static CUresult CUDAAPI clamp(CUtexref t, float lo, float hi)
{
	EXPECT(t == (CUtexref)0x7E && lo == 1.25f && hi == -3.5f, "cuTexRefSetMipmapLevelClamp's target got %p %g %g",
	       (void *)t, lo, hi);
	check_alignment("cuTexRefSetMipmapLevelClamp");
	return (CUresult)43;
}

static CUresult CUDAAPI param_setf(CUfunction f, int offset, float value)
{
	EXPECT(f == (CUfunction)0xF2 && offset == -7 && value == 0.75f, "cuParamSetf's target got %p %d %g",
	       (void *)f, offset, value);
	return (CUresult)44;
}

__attribute__((noinline)) double scramble(double a, double b, double c, double d, double e, double f, double g,
					  double h, long i, long j, long k, long l, long m, long n);
__attribute__((noinline)) double scramble(double a, double b, double c, double d, double e, double f, double g,
					  double h, long i, long j, long k, long l, long m, long n)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h + (double)(i + j + k + l + m + n);
}

void *cushim_resolve(unsigned i)
{
	void *target = NULL;

	resolved[i]++;
	EXPECT(scramble(9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9) == 126, "scramble");
	if (i == CUSHIM_IDX_cuLaunchKernel)
		target = (void *)launch;
	else if (i == CUSHIM_IDX_cuTexRefSetMipmapLevelClamp)
		target = (void *)clamp;
	else if (i == CUSHIM_IDX_cuParamSetf)
		target = (void *)param_setf;
	__atomic_store_n(&cushim_slot[i], target, __ATOMIC_RELEASE);
	return target;
}

#define STUB(name) ((cushim_fn_##name *)cushim_stub[CUSHIM_IDX_##name])

int main(void)
{
	for (int round = 0; round < 2; round++) {
		CUresult a = STUB(cuLaunchKernel)((CUfunction)0xF1, 11, 12, 13, 14, 15, 16, 17, (CUstream)0x5150,
						  (void **)0x4B50, (void **)0xE7A);
		CUresult b = STUB(cuTexRefSetMipmapLevelClamp)((CUtexref)0x7E, 1.25f, -3.5f);
		CUresult c = STUB(cuParamSetf)((CUfunction)0xF2, -7, 0.75f);
		EXPECT(a == 42 && b == 43 && c == 44, "round %d: the targets' results came back as %d %d %d", round,
		       (int)a, (int)b, (int)c);
	}
	EXPECT(resolved[CUSHIM_IDX_cuLaunchKernel] == 1 && resolved[CUSHIM_IDX_cuTexRefSetMipmapLevelClamp] == 1 &&
		       resolved[CUSHIM_IDX_cuParamSetf] == 1,
	       "the resolver ran %d, %d, %d times, not once each", resolved[CUSHIM_IDX_cuLaunchKernel],
	       resolved[CUSHIM_IDX_cuTexRefSetMipmapLevelClamp], resolved[CUSHIM_IDX_cuParamSetf]);
	EXPECT(cushim_stub[CUSHIM_IDX_cuLaunchKernel] == (void *)cuLaunchKernel, "cushim_stub[] is not the export");
	printf("trampoline: %d failure(s)\n", failures);
	return failures != 0;
}
