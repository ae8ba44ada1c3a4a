/* cushim doctor: what the shim would do on this machine, and why. */
#include "config.h"
#include "cli.h"
#include "table.h"
#include "owners.h"
#include "realdriver.h"
#include "enums.h"
#include "settings.h"
#include "ldsearch.h"
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;


/* "671 from the driver's cuGetProcAddress" and the like, by origin. */
static void print_origins(const int origins[4])
{
	static const char *const what[4] = { "", "by the driver's cuGetProcAddress", "by the driver's symbols",
					     "by the runtime" };
	const char *sep = " (";
	for (int k = 1; k < 4; k++)
		if (origins[k]) {
			printf("%s%d %s", sep, origins[k], what[k]);
			sep = ", ";
		}
	printf("%s\n", *sep == ',' ? ")" : "");
}

/* Where entry points come from before the program's cuInit, and after it
 * (the probe ran cuInit as a program would). */
static void report_sources(const struct cli_shim *shim)
{
	printf("bootstrap:   before cuInit: %s through %s", shim->path[0] ? shim->path : "?",
	       shim->via[0] ? shim->via : "?");
	print_origins(shim->origins);
	if (shim->init_rc < 0)
		return;
	if (shim->init_rc != 0) {
		const char *name = cushim_enum_name(CUSHIM_ENUM_ID_CUresult, shim->init_rc);
		printf("             after cuInit: cuInit returned %d here (%s), so the driver's path stays\n",
		       shim->init_rc, name ? name : "?");
		return;
	}
	printf("             after cuInit: %s through %s", shim->init_path[0] ? shim->init_path : "?",
	       shim->init_via[0] ? shim->init_via : "?");
	print_origins(shim->init_origins);
}

/* The GPUs the driver sees, with their architecture (what cushim check
 * --gpu=auto compares with). */
static void print_gpus(const struct cli_lib *lib)
{
	struct cli_gpu g[CLI_MAX_GPUS];
	char why[512];
	int n = cli_gpus(lib, g, CLI_MAX_GPUS, why, sizeof why);
	if (n < 0)
		printf("gpus:        none usable: %s\n", why);
	else if (n == 0)
		printf("gpus:        none: the driver sees no GPU\n");
	for (int i = 0; i < n; i++)
		printf("%-12s %d: %s, compute capability %d.%d (sm_%d%d)\n", i ? "" : "gpus:", g[i].ordinal, g[i].name,
		       g[i].major, g[i].minor, g[i].major, g[i].minor);
}

/* The environment's CUSHIM_* variables, read before loading the shim
 * changes them in the probe: each setting's value and verdict, and the
 * names that are no setting. */
struct environment {
	const char *value[32];
	char verdict[32][256];
	char *unknown[64];
	int nunknown;
	char *preload;
};

static void read_environment(struct environment *env)
{
	const char *pre = getenv("LD_PRELOAD");

	for (int i = 0; i < cushim_nsettings && i < 32; i++)
		if ((env->value[i] = getenv(cushim_settings[i].name)) &&
		    !cushim_setting_verdict(&cushim_settings[i], env->value[i], env->verdict[i], sizeof env->verdict[i]))
			env->verdict[i][0] = '\0';
	for (char **e = environ; *e && env->nunknown < 64; e++) {
		int n = (int)strcspn(*e, "=");
		if (strncmp(*e, "CUSHIM_", 7) == 0 && !cushim_setting_named(*e, n) && !cushim_harness_variable(*e, n))
			env->unknown[env->nunknown++] = strndup(*e, (size_t)n);
	}
	env->preload = pre ? strdup(pre) : NULL;
}

/* 0, or CLI_FAIL when a setting is bad. */
static int report_settings(const struct environment *env)
{
	int status = CLI_OK;
	for (int i = 0; i < cushim_nsettings && i < 32; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		const char *label = i ? "" : "settings:";
		if (!env->value[i])
			printf("%-12s %s unset (%s)\n", label, s->name, cushim_setting_unset(s));
		else if (env->verdict[i][0])
			printf("%-12s %s=%s: %s\n", label, s->name, env->value[i], env->verdict[i]);
		else
			printf("%-12s %s=%s\n", label, s->name, env->value[i]);
		if (env->value[i] && env->verdict[i][0])
			status = CLI_FAIL;
	}
	for (int i = 0; i < env->nunknown; i++)
		printf("             %s is not a cushim variable (a typo?): ignored\n", env->unknown[i]);
	return status;
}

/* What the bootstrap would look at, found the way dlopen finds it. */
static void report_loader(void)
{
	char path[PATH_MAX + 64];
	const char *bad;

	for (int i = 0; i < CUSHIM_NRUNTIMES; i++) {
		int found = cli_ld_search(cushim_runtime_sonames[i], NULL, NULL, NULL, path, sizeof path) == 0;
		printf("%-12s %s: %s\n", i ? "" : "runtimes:", cushim_runtime_sonames[i], found ? path : "not found");
	}
	int have_cuda = cli_ld_search("libcuda.so.1", NULL, NULL, NULL, path, sizeof path) == 0;
	printf("driver:      libcuda.so.1: %s%s\n", have_cuda ? path : "not found",
	       have_cuda && cli_is_cushim(path) ? " (that is cushim itself: a masquerade folder is on the path)" : "");
	int from = cli_real_driver(path, sizeof path, &bad);
	if (bad)
		printf("masquerade:  CUSHIM_DRIVER=%s " CUSHIM_DRIVER_UNUSABLE ": the usual places are searched\n", bad);
	if (from < 0)
		printf("masquerade:  would find no real driver: every call would return CUDA_ERROR_NO_DEVICE\n");
	else if (from == 0)
		printf("masquerade:  would use the real driver %s\n", path);
	else
		printf("masquerade:  would use CUSHIM_DRIVER=%s\n", path);
}

static void report_exports(const struct cli_shim *shim)
{
	int n = 0;
	if (shim->resolved >= 0)
		printf("exports:     %d of %d resolved, %d served by adapters, %d missing\n", shim->resolved,
		       CUSHIM_NSYMS, shim->adapted, shim->missing);
	if (!shim->have_missing)
		return;
	for (int i = 0; i < CUSHIM_NSYMS; i++)
		if (shim->lacks[i] == 1)
			printf("%-12s %s (CUDA %s)\n", n++ ? "" : "missing:", cushim_syms[i].name,
			       cli_version(cushim_syms[i].version));
	n = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_adapter *a;
		char how[256];
		if (shim->lacks[i] == 2 && (a = cli_adapter_for(i, shim->driver_version)))
			printf("%-12s %s (CUDA %s) by %s\n", n++ ? "" : "adapted:", cushim_syms[i].name,
			       cli_version(cushim_syms[i].version), cushim_adapter_how(a, how, sizeof how));
	}
}

/* The shim's own bootstrap, in a child: CLI_OK, CLI_FAIL or CLI_ERROR. */
static int report_bootstrap(const struct cli_lib *lib)
{
	static struct cli_shim shim;
	char err[4200];

	if (cli_load_shim_init(lib, &shim, err, sizeof err) != 0) {
		printf("bootstrap:   %s\n", err);
		return CLI_ERROR;
	}
	if (shim.driver_version <= 0 && !shim.path[0]) {
		printf("bootstrap:   no CUDA runtime and no driver usable: every driver call would return "
		       "CUDA_ERROR_NO_DEVICE\n");
		return CLI_FAIL;
	}
	report_sources(&shim);
	if (shim.real_driver_version > 0)
		printf("             driver CUDA %s", cli_version(shim.real_driver_version));
	else
		printf("             driver version unknown");
	if (shim.driver_version > 0 && shim.driver_version != shim.real_driver_version)
		printf(", seen as CUDA %s (CUSHIM_DRIVER_VERSION)", cli_version(shim.driver_version));
	printf("\n");
	report_exports(&shim);
	return CLI_OK;
}

/* --exports: each export, where its driver function came from and who
 * implements it, then how many each owner has. */
static int report_owners(const struct cli_lib *lib)
{
	static const char *const origins[4] = { "-", "driver", "dlsym", "runtime" };
	static struct cli_shim shim;
	char err[4200];
	int count[CUSHIM_NOWNERS] = { 0 };

	if (cli_load_shim_init(lib, &shim, err, sizeof err) != 0) {
		cli_error("%s", err);
		return CLI_ERROR;
	}
	if (!shim.have_owners) {
		cli_error("%s cannot say who implements its exports (a cushim older than this command?)", lib->path);
		return CLI_ERROR;
	}
	printf("%-44s %-8s %s\n", "export", "origin", "owner");
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		printf("%-44s %-8s %s\n", cushim_syms[i].name, origins[shim.origin[i] & 3],
		       cushim_owner_name(shim.owner[i]));
		count[shim.owner[i] < CUSHIM_NOWNERS ? shim.owner[i] : 0]++;
	}
	printf("\nowners (in their order of precedence):\n");
	for (unsigned o = 0; o < CUSHIM_NOWNERS; o++)
		printf("  %-8s %4d  %s\n", cushim_owner_name(o), count[o], cushim_owner_words(o));
	return CLI_OK;
}

#define DOCTOR_USAGE "usage: cushim doctor [--lib=PATH] [--exports]"
static int parse_args(int argc, char **argv, const char **libopt, int *exports)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, NULL, 'L' },
		{ "exports", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'L') {
			*libopt = optarg;
		} else if (c == 'x') {
			*exports = 1;
		} else if (c == 'h') {
			printf("U%s\n", DOCTOR_USAGE + 1);
			return CLI_OK;
		} else {
			cli_error(DOCTOR_USAGE);
			return CLI_ERROR;
		}
	}
	if (optind < argc) {
		cli_error("doctor takes no arguments ('%s')", argv[optind]);
		return CLI_ERROR;
	}
	return -1; /* go on */
}

int cmd_doctor(int argc, char **argv)
{
	static struct environment env;
	const char *libopt = NULL;
	struct cli_lib lib;
	int exports = 0, status = parse_args(argc, argv, &libopt, &exports), st;

	if (status >= 0)
		return status;
	if (exports)
		return cli_find_lib(libopt, &lib) != 0 ? CLI_ERROR : report_owners(&lib);
	read_environment(&env);
	printf("cushim %s: %d exports in the table, from the table of CUDA %s and the CUDA %s headers\n",
	       PACKAGE_VERSION, CUSHIM_NEXPORTS, cli_version(CUSHIM_TABLE_VERSION), cli_version(CUSHIM_TOOLKIT_VERSION));
	if (cli_find_lib(libopt, &lib) != 0) {
		printf("library:     not found\n");
		return CLI_ERROR;
	}
	printf("library:     %s (%s)\n", lib.path, lib.how);
	printf("preloaded:   %s\n", env.preload && strstr(env.preload, "libcushim.so") ?
					   "yes, LD_PRELOAD names libcushim.so" : "no (cushim run adds it)");
	report_loader();
	status = report_bootstrap(&lib);
	st = report_settings(&env);
	if (status == CLI_OK)
		status = st;
	print_gpus(&lib);
	return status;
}
