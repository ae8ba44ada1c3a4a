/* libcushim.so exports exactly what the toolkit's headers declare for Linux:
 * the exports of the toolkit's stub libcuda.so plus the functions cudaGL.h,
 * cudaEGL.h and cudaVDPAU.h declare (listed at build time from the
 * preprocessed headers by declared.py), nothing else but cushim_*, and no
 * cudbg* symbol.  Read with libelf from the files themselves. */
#include <config.h>
#include <cuda.h>
#include "harness.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STUB CUDA_DIR "/lib64/stubs/libcuda.so"
#define INTEROP_LIST ABS_TOP_BUILDDIR "/tests/unit/interop-decls.txt"

static char **shim, **stub, **interop;
static int nshim, nstub, ninterop;

static void setup(void)
{
	FILE *f = fopen(INTEROP_LIST, "r");
	char line[256];

	nshim = elf_dynamic_symbols(SHIM_SO, 1, &shim);
	ck_assert_msg(nshim > 0, "cannot read %s", SHIM_SO);
	nstub = elf_dynamic_symbols(STUB, 1, &stub);
	ck_assert_msg(nstub > 500, "cannot read the toolkit's stub %s (%d symbols)", STUB, nstub);
	ck_assert_msg(f != NULL, "no %s", INTEROP_LIST);
	interop = calloc(1024, sizeof *interop);
	while (ninterop < 1023 && fscanf(f, "%255s", line) == 1)
		interop[ninterop++] = strdup(line);
	fclose(f);
}

static int declared(const char *name)
{
	return has_name(stub, nstub, name) || has_name(interop, ninterop, name);
}

START_TEST(check_every_declared_function_is_exported)
{
	setup();
	for (int i = 0; i < nstub; i++)
		ck_assert_msg(has_name(shim, nshim, stub[i]), "the stub libcuda exports %s, cushim does not", stub[i]);
	for (int i = 0; i < ninterop; i++)
		ck_assert_msg(has_name(shim, nshim, interop[i]), "the interop headers declare %s, cushim does not export it",
			      interop[i]);
}
END_TEST

START_TEST(check_exports_nothing_else)
{
	setup();
	for (int i = 0; i < nshim; i++) {
		const char *n = shim[i];
		ck_assert_msg(strncmp(n, "cudbg", 5) != 0, "cushim exports the debugger symbol %s", n);
		if (strncmp(n, "cushim_", 7) == 0)
			continue;
		ck_assert_msg(declared(n), "cushim exports %s, which no header declares for Linux", n);
	}
}
END_TEST

START_TEST(check_exports_672_for_cuda_13_0)
{
	int n = 0;
	setup();
	for (int i = 0; i < nshim; i++)
		n += strncmp(shim[i], "cushim_", 7) != 0;
	printf("cushim exports %d driver functions (stub %d + interop %d); toolkit CUDA_VERSION %d\n", n, nstub,
	       ninterop, CUDA_VERSION);
	if (CUDA_VERSION != 13000)
		return; /* the count of README.md was measured on 13.0 */
	ck_assert_int_eq(n, 672);
	ck_assert_int_eq(nstub + ninterop, 672);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("exports");
	TCase *tc = tcase_create("exports");
	tcase_add_test(tc, check_every_declared_function_is_exported);
	tcase_add_test(tc, check_exports_nothing_else);
	tcase_add_test(tc, check_exports_672_for_cuda_13_0);
	suite_add_tcase(s, tc);
	return run_suite(s, CK_VERBOSE);
}
