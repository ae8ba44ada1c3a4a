/* cushim symbols: the table cushim is built from, one row a line: the
 * exports, and the variants reached only through cuGetProcAddress (marked
 * "lookup-only": they have no exported name). */
#include "config.h"
#include "cli.h"
#include "table.h"
#include <getopt.h>
#include <string.h>

struct symbols_args {
	int since, missing, versus, json;
	const char *libopt;
};

/* The options: -1 to go on, else the exit status. */
static int parse_symbols(int argc, char **argv, struct symbols_args *a)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "missing", no_argument, NULL, 'm' },
		{ "driver-version", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "lib", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *usage = "[--since=X.Y] [--missing] [--driver-version=X.Y] [--json] [--lib=PATH]";
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 's' && (a->since = cli_version_option("--since", optarg)) < 0)
			return CLI_ERROR;
		if (c == 'd' && (a->versus = cli_version_option("--driver-version", optarg)) < 0)
			return CLI_ERROR;
		a->missing |= c == 'm', a->json |= c == 'j';
		if (c == 'L')
			a->libopt = optarg;
		if (c == 'h')
			return printf("Usage: cushim symbols %s\n", usage), CLI_OK;
		if (c == '?' || c == ':')
			return cli_error("usage: cushim symbols %s", usage), CLI_ERROR;
	}
	if (optind < argc)
		return cli_error("symbols takes no arguments ('%s'); see cushim --help", argv[optind]), CLI_ERROR;
	if (a->versus && !a->missing)
		return cli_error("--driver-version only goes with --missing"), CLI_ERROR;
	return -1;
}

/* --missing without --driver-version: what the driver here lacks. */
static int ask_driver_here(const struct symbols_args *a, struct cli_shim *shim)
{
	struct cli_lib lib;
	char err[4200];

	if (cli_find_lib(a->libopt, &lib) != 0)
		return -1;
	if (cli_load_shim(&lib, shim, err, sizeof err) != 0) {
		cli_error("%s", err);
		return -1;
	}
	if (shim->driver_version <= 0) {
		cli_error("--missing: there is no CUDA driver here to compare with; add --driver-version=X.Y");
		return -1;
	}
	return 0;
}

static int listed(const struct symbols_args *a, const struct cli_shim *shim, int i)
{
	const struct cushim_sym *s = &cushim_syms[i];
	if (s->version < a->since)
		return 0;
	if (!a->missing)
		return 1;
	if (a->versus)
		return s->version > a->versus;
	return shim->have_missing ? shim->lacks[i] != 0 : s->version > shim->driver_version;
}

static void print_symbols(const struct symbols_args *a, const struct cli_shim *shim)
{
	int w1 = 0, w2 = 0, n = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		if ((int)strlen(cushim_syms[i].name) > w1)
			w1 = (int)strlen(cushim_syms[i].name);
		if ((int)strlen(cushim_syms[i].base) > w2)
			w2 = (int)strlen(cushim_syms[i].base);
	}
	if (a->json)
		printf("[");
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		if (!listed(a, shim, i))
			continue;
		if (a->json)
			printf("%s\n  {\"name\": \"%s\", \"base\": \"%s\", \"version\": \"%s\", \"cuda_version\": %d, "
			       "\"flavour\": \"%s\", \"exported\": %s}", n ? "," : "", s->name, s->base,
			       cli_version(s->version), s->version, cushim_flavour_name(s->flavour),
			       s->lookup_only ? "false" : "true");
		else
			printf("%-*s  %-*s  %5s  %s%s\n", w1, s->name, w2, s->base, cli_version(s->version),
			       cushim_flavour_name(s->flavour), s->lookup_only ? "  lookup-only" : "");
		n++;
	}
	if (a->json)
		printf("%s]\n", n ? "\n" : "");
}

int cmd_symbols(int argc, char **argv)
{
	struct symbols_args a = { 0, 0, 0, 0, NULL };
	static struct cli_shim shim;
	int rc = parse_symbols(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (a.missing && !a.versus && ask_driver_here(&a, &shim) != 0)
		return CLI_ERROR;
	print_symbols(&a, &shim);
	return CLI_OK;
}
