/* cushim symbols: the table cushim is built from, one row a line: the
 * exports, and the variants reached only through cuGetProcAddress (marked
 * "lookup-only": they have no exported name). */
#include "config.h"
#include "cli.h"
#include "cushim-internal.h"
#include <getopt.h>
#include <string.h>

static const char *const flavour_names[] = { "legacy", "ptds", "ptsz" };

int cmd_symbols(int argc, char **argv)
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
	int since = 0, missing = 0, versus = 0, json = 0, c;
	const char *libopt = NULL;
	static struct cli_shim shim;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((since = cli_version_option("--since", optarg)) < 0)
				return CLI_ERROR;
			break;
		case 'm':
			missing = 1;
			break;
		case 'd':
			if ((versus = cli_version_option("--driver-version", optarg)) < 0)
				return CLI_ERROR;
			break;
		case 'j':
			json = 1;
			break;
		case 'L':
			libopt = optarg;
			break;
		case 'h':
			printf("Usage: cushim symbols [--since=X.Y] [--missing] [--driver-version=X.Y] [--json] [--lib=PATH]\n");
			return CLI_OK;
		default:
			cli_error("usage: cushim symbols [--since=X.Y] [--missing] [--driver-version=X.Y] [--json]");
			return CLI_ERROR;
		}
	}
	if (optind < argc) {
		cli_error("symbols takes no arguments ('%s'); see cushim --help", argv[optind]);
		return CLI_ERROR;
	}
	if (versus && !missing) {
		cli_error("--driver-version only goes with --missing");
		return CLI_ERROR;
	}
	if (missing && !versus) {
		struct cli_lib lib;
		char err[4200];
		if (cli_find_lib(libopt, &lib) != 0)
			return CLI_ERROR;
		if (cli_load_shim(&lib, &shim, err, sizeof err) != 0) {
			cli_error("%s", err);
			return CLI_ERROR;
		}
		if (shim.driver_version <= 0) {
			cli_error("--missing: there is no CUDA driver here to compare with; add --driver-version=X.Y");
			return CLI_ERROR;
		}
	}

	int w1 = 0, w2 = 0, n = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		if ((int)strlen(cushim_syms[i].name) > w1)
			w1 = (int)strlen(cushim_syms[i].name);
		if ((int)strlen(cushim_syms[i].base) > w2)
			w2 = (int)strlen(cushim_syms[i].base);
	}
	if (json)
		printf("[");
	for (int i = 0; i < CUSHIM_NSYMS; i++) {
		const struct cushim_sym *s = &cushim_syms[i];
		if (s->version < since)
			continue;
		if (missing && (versus ? s->version <= versus
				       : (shim.have_missing ? !shim.lacks[i] : s->version <= shim.driver_version)))
			continue;
		if (json)
			printf("%s\n  {\"name\": \"%s\", \"base\": \"%s\", \"version\": \"%s\", \"cuda_version\": %d, "
			       "\"flavour\": \"%s\", \"exported\": %s}", n ? "," : "", s->name, s->base,
			       cli_version(s->version), s->version, flavour_names[s->flavour],
			       s->lookup_only ? "false" : "true");
		else
			printf("%-*s  %-*s  %5s  %s%s\n", w1, s->name, w2, s->base, cli_version(s->version),
			       flavour_names[s->flavour], s->lookup_only ? "  lookup-only" : "");
		n++;
	}
	if (json)
		printf("%s]\n", n ? "\n" : "");
	return CLI_OK;
}
