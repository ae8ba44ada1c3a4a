/* cushim doctor: what the shim would do on this machine, and why. */
#include "config.h"
#include "cli.h"
#include "cushim-internal.h"
#include "enums.h"
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;


struct setting {
	const char *name, *value;
	const char *verdict; /* NULL: fine */
	const char *unset;   /* what applies when unset */
};

static const char *judge_setting(const char *name, const char *v)
{
	int x;
	if (strcmp(name, "CUSHIM_LOG") == 0)
		return cushim_parse_level(v, &x) ? "not a level (off, warn, info, errors, trace): warn is used" : NULL;
	if (strcmp(name, "CUSHIM_DRIVER_VERSION") == 0)
		return cushim_parse_version(v, &x) ? "not a CUDA version (X.Y or 12000): not emulating" : NULL;
	if (strcmp(name, "CUSHIM_HIDE") == 0) {
		char *pat[CUSHIM_MAX_PATTERNS], *storage = NULL;
		int n = cushim_parse_patterns(v, pat, CUSHIM_MAX_PATTERNS, &storage);
		free(storage);
		return n < 0 ? "not a list of patterns (globs separated by commas): hiding nothing" : NULL;
	}
	if ((strcmp(name, "CUSHIM_LOG_FILE") == 0 || strcmp(name, "CUSHIM_CUDART") == 0 ||
	     strcmp(name, "CUSHIM_DRIVER") == 0 || strcmp(name, "CUSHIM_SUMMARY") == 0 ||
	     strcmp(name, "CUSHIM_TIMELINE") == 0) && !*v)
		return "empty: ignored";
	return NULL;
}

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

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct setting settings[] = {
		{ "CUSHIM_LOG", NULL, NULL, "warn" },
		{ "CUSHIM_LOG_FILE", NULL, NULL, "stderr" },
		{ "CUSHIM_SUMMARY", NULL, NULL, "no summary" },
		{ "CUSHIM_TIMELINE", NULL, NULL, "no timeline" },
		{ "CUSHIM_DRIVER_VERSION", NULL, NULL, "the driver's own version" },
		{ "CUSHIM_HIDE", NULL, NULL, "nothing hidden" },
		{ "CUSHIM_CUDART", NULL, NULL, "the usual runtimes" },
		{ "CUSHIM_DRIVER", NULL, NULL, "libcuda.so.1 as the loader finds it" },
	};
	const size_t nsettings = sizeof settings / sizeof *settings;
	const char *libopt = NULL;
	int c, status = CLI_OK;
	char path[PATH_MAX + 64], err[4200];

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'L') {
			libopt = optarg;
		} else if (c == 'h') {
			printf("Usage: cushim doctor [--lib=PATH]\n");
			return CLI_OK;
		} else {
			cli_error("usage: cushim doctor [--lib=PATH]");
			return CLI_ERROR;
		}
	}
	if (optind < argc) {
		cli_error("doctor takes no arguments ('%s')", argv[optind]);
		return CLI_ERROR;
	}

	/* The settings, read before loading the shim quietly changes them here. */
	for (size_t i = 0; i < nsettings; i++) {
		const char *v = getenv(settings[i].name);
		if (v) {
			settings[i].value = strdup(v);
			settings[i].verdict = judge_setting(settings[i].name, v);
		}
	}
	char *unknown[64];
	int nunknown = 0;
	for (char **e = environ; *e && nunknown < 64; e++) {
		if (strncmp(*e, "CUSHIM_", 7) != 0)
			continue;
		size_t n = strcspn(*e, "="), k;
		for (k = 0; k < nsettings; k++)
			if (strlen(settings[k].name) == n && strncmp(*e, settings[k].name, n) == 0)
				break;
		if (k == nsettings && !(n == 18 && strncmp(*e, "CUSHIM_TEST_PREFIX", n) == 0) &&
		    !(n == 17 && strncmp(*e, "CUSHIM_ORACLE_DIR", n) == 0))
			unknown[nunknown++] = strndup(*e, n);
	}
	const char *pre = getenv("LD_PRELOAD");
	char *preload = pre ? strdup(pre) : NULL;

	printf("cushim %s: %d exports in the table, from the table of CUDA %s and the CUDA %s headers\n",
	       PACKAGE_VERSION, CUSHIM_NEXPORTS, cli_version(CUSHIM_TABLE_VERSION), cli_version(CUSHIM_TOOLKIT_VERSION));

	struct cli_lib lib;
	if (cli_find_lib(libopt, &lib) != 0) {
		printf("library:     not found\n");
		return CLI_ERROR;
	}
	printf("library:     %s (%s)\n", lib.path, lib.how);
	printf("preloaded:   %s\n", preload && strstr(preload, "libcushim.so") ? "yes, LD_PRELOAD names libcushim.so"
										 : "no (cushim run adds it)");

	/* What the bootstrap would look at, found the way dlopen finds it. */
	static const char *const runtimes[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" };
	for (size_t i = 0; i < 3; i++) {
		int found = cli_ld_search(runtimes[i], NULL, NULL, NULL, path, sizeof path) == 0;
		printf("%-12s %s: %s\n", i ? "" : "runtimes:", runtimes[i], found ? path : "not found");
	}
	int have_cuda = cli_ld_search("libcuda.so.1", NULL, NULL, NULL, path, sizeof path) == 0;
	printf("driver:      libcuda.so.1: %s%s\n", have_cuda ? path : "not found",
	       have_cuda && cli_is_cushim(path) ? " (that is cushim itself: a masquerade folder is on the path)" : "");
	const char *cd = getenv("CUSHIM_DRIVER");
	if (cd && *cd)
		printf("masquerade:  would use CUSHIM_DRIVER=%s%s\n", cd,
		       cli_elf_native(cd) ? "" : " (not a shared library for this machine!)");
	else if (cli_ld_search("libcuda.so.1", NULL, NULL, cli_is_cushim, path, sizeof path) == 0)
		printf("masquerade:  would use the real driver %s\n", path);
	else
		printf("masquerade:  would find no real driver: every call would return CUDA_ERROR_NO_DEVICE\n");

	static struct cli_shim shim;
	if (cli_load_shim_init(&lib, &shim, err, sizeof err) != 0) {
		printf("bootstrap:   %s\n", err);
		status = CLI_ERROR;
	} else if (shim.driver_version <= 0 && !shim.path[0]) {
		printf("bootstrap:   no CUDA runtime and no driver usable: every driver call would return "
		       "CUDA_ERROR_NO_DEVICE\n");
		status = CLI_FAIL;
	} else {
		report_sources(&shim);
		if (shim.real_driver_version > 0)
			printf("             driver CUDA %s", cli_version(shim.real_driver_version));
		else
			printf("             driver version unknown");
		if (shim.driver_version > 0 && shim.driver_version != shim.real_driver_version)
			printf(", seen as CUDA %s (CUSHIM_DRIVER_VERSION)", cli_version(shim.driver_version));
		printf("\n");
		if (shim.resolved >= 0)
			printf("exports:     %d of %d resolved, %d served by adapters, %d missing\n", shim.resolved,
			       CUSHIM_NSYMS, shim.adapted, shim.missing);
		if (shim.have_missing) {
			int n = 0;
			for (int i = 0; i < CUSHIM_NSYMS; i++)
				if (shim.lacks[i] == 1)
					printf("%-12s %s (CUDA %s)\n", n++ ? "" : "missing:", cushim_syms[i].name,
					       cli_version(cushim_syms[i].version));
			n = 0;
			for (int i = 0; i < CUSHIM_NSYMS; i++) {
				const struct cli_adapter *a;
				if (shim.lacks[i] == 2 && (a = cli_adapter_for(i, shim.driver_version)))
					printf("%-12s %s (CUDA %s) by %s when %s\n", n++ ? "" : "adapted:", cushim_syms[i].name,
					       cli_version(cushim_syms[i].version), a->older, a->condition);
			}
		}
	}

	for (size_t i = 0; i < nsettings; i++) {
		const struct setting *s = &settings[i];
		const char *label = i ? "" : "settings:";
		if (!s->value)
			printf("%-12s %s unset (%s)\n", label, s->name, s->unset);
		else if (s->verdict)
			printf("%-12s %s=%s: %s\n", label, s->name, s->value, s->verdict);
		else
			printf("%-12s %s=%s\n", label, s->name, s->value);
		if (s->verdict && status == CLI_OK)
			status = CLI_FAIL;
	}
	for (int i = 0; i < nunknown; i++)
		printf("             %s is not a cushim variable (a typo?): ignored\n", unknown[i]);
	print_gpus(&lib);
	return status;
}
