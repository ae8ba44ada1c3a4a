/* libcushim.so exports exactly what the headers declare for Linux: the
 * exports of the toolkit's stub libcuda.so, the functions cudaGL.h, cudaEGL.h
 * and cudaVDPAU.h declare (listed at build time from the preprocessed headers
 * by declared.py), and the exported names of the committed table of the
 * newest CUDA (src/table/cuda-api.tsv), nothing else but cushim_* and the C
 * library's exec functions, each of them (src/diag/exec.c: what the
 * diagnostics buffer is written before an exec), and no cudbg* symbol.  Read
 * with libelf from the files themselves. */
#include <config.h>
#include <cuda.h>
#include "../harness/harness.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STUB CUDA_DIR "/lib64/stubs/libcuda.so"
#define INTEROP_LIST ABS_TOP_BUILDDIR "/tests/blackbox/interop-decls.txt"
#define TABLE ABS_TOP_SRCDIR "/src/table/cuda-api.tsv"

static char **shim, **stub, **interop, **table;
static int nshim, nstub, ninterop, ntable;

/* The table's exported names: the second column of its "fn" lines ("-" for
 * a variant that has none). */
static void read_table(void)
{
	FILE *f = fopen(TABLE, "r");
	char line[4096], name[256];

	ck_assert_msg(f != NULL, "no %s", TABLE);
	table = calloc(4096, sizeof *table);
	while (ntable < 4095 && fgets(line, sizeof line, f))
		if (sscanf(line, "fn\t%255[^\t]", name) == 1 && strcmp(name, "-") != 0)
			table[ntable++] = strdup(name);
	fclose(f);
	ck_assert_msg(ntable > 600, "%s has %d exported names", TABLE, ntable);
}

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
	read_table();
}

/* The C library's exec functions, which src/diag/exec.c defines. */
static const char *const exec_functions[] = { "execve", "execv",   "execvp",  "execvpe", "execl",
					      "execlp", "execle", "fexecve", "execveat" };

static int exec_function(const char *name)
{
	for (size_t i = 0; i < sizeof exec_functions / sizeof *exec_functions; i++)
		if (strcmp(name, exec_functions[i]) == 0)
			return 1;
	return 0;
}

static int declared(const char *name)
{
	return has_name(stub, nstub, name) || has_name(interop, ninterop, name) || has_name(table, ntable, name);
}

START_TEST(check_every_declared_function_is_exported)
{
	setup();
	for (int i = 0; i < nstub; i++)
		ck_assert_msg(has_name(shim, nshim, stub[i]), "the stub libcuda exports %s, cushim does not", stub[i]);
	for (int i = 0; i < ninterop; i++)
		ck_assert_msg(has_name(shim, nshim, interop[i]), "the interop headers declare %s, cushim does not export it",
			      interop[i]);
	for (int i = 0; i < ntable; i++)
		ck_assert_msg(has_name(shim, nshim, table[i]), "the table exports %s, cushim does not", table[i]);
}
END_TEST

START_TEST(check_exports_nothing_else)
{
	setup();
	for (int i = 0; i < nshim; i++) {
		const char *n = shim[i];
		ck_assert_msg(strncmp(n, "cudbg", 5) != 0, "cushim exports the debugger symbol %s", n);
		if (strncmp(n, "cushim_", 7) == 0 || exec_function(n))
			continue;
		ck_assert_msg(declared(n), "cushim exports %s, which no header nor the table declares for Linux", n);
	}
}
END_TEST

/* The toolkit of this machine (13.0) declares 672 functions for Linux; the
 * table adds the 51 variants of 13.1 to 13.5 (43 functions and 8 of their
 * per-thread flavours). */
START_TEST(check_exports_723_for_cuda_13_0_and_13_5)
{
	int n = 0, table_only = 0;
	setup();
	for (int i = 0; i < nshim; i++) {
		int own = strncmp(shim[i], "cushim_", 7) == 0 || exec_function(shim[i]);
		n += !own;
		table_only += !has_name(stub, nstub, shim[i]) && !has_name(interop, ninterop, shim[i]) && !own;
	}
	printf("cushim exports %d driver functions (stub %d + interop %d + %d from the table of %d names); toolkit "
	       "CUDA_VERSION %d\n", n, nstub, ninterop, table_only, ntable, CUDA_VERSION);
	if (CUDA_VERSION != 13000 || ntable != 723)
		return; /* the counts were measured with the 13.0 toolkit and the 13.5 table */
	ck_assert_int_eq(nstub + ninterop, 672);
	ck_assert_int_eq(table_only, 51);
	ck_assert_int_eq(n, 723);
}
END_TEST

START_TEST(check_exports_each_exec_function)
{
	setup();
	for (size_t i = 0; i < sizeof exec_functions / sizeof *exec_functions; i++)
		ck_assert_msg(has_name(shim, nshim, exec_functions[i]), "cushim does not export %s", exec_functions[i]);
}
END_TEST

int main(int argc, char **argv)
{
	const TTest *const tests[] = { check_every_declared_function_is_exported, check_exports_nothing_else,
				       check_exports_723_for_cuda_13_0_and_13_5, check_exports_each_exec_function, NULL };
	const struct harness_tcase tcases[] = { { "exports", 0, tests, NULL }, { NULL } };
	return harness_main(argc, argv, NULL, "exports", tcases);
}
