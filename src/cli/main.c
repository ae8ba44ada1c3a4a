/* cushim: run a program under the shim, check a binary against a driver,
 * explain the setup, list the symbol table.  See cushim(1).  This file holds
 * main() and the dispatch to the commands alone; what they all call is in
 * messages.c. */
#include "config.h"
#include "cli.h"
#include "table.h"
#include "settings.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int table_newest(void)
{
	int v = 0;
	for (int i = 0; i < CUSHIM_NSYMS; i++)
		if (cushim_syms[i].version > v)
			v = cushim_syms[i].version;
	return v;
}

/* run's options: one for each setting that has one (the settings table),
 * then its own. */
static void usage_run_options(FILE *f)
{
	fprintf(f, "run options (each sets the CUSHIM_* variable named; see environment):\n");
	for (int i = 0; i < cushim_nsettings; i++)
		if (cushim_settings[i].option)
			fprintf(f, "  --%-20s %s\n", cushim_settings[i].option, cushim_settings[i].name);
	fprintf(f, "  --masquerade           be found as libcuda.so.1 too, to see runtime calls\n"
		   "  --driver=PATH          the real driver for --masquerade (sets CUSHIM_DRIVER)\n"
		   "  --lib=PATH             use this libcushim.so\n\n");
}

/* Every setting: what it accepts, what applies when unset, its line. */
static void usage_environment(FILE *f)
{
	fprintf(f, "environment (read by libcushim.so; cushim doctor judges it):\n");
	for (int i = 0; i < cushim_nsettings; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		fprintf(f, "  %s: %s (unset: %s)\n      %s\n", s->name, s->accepted, cushim_setting_unset(s), s->doc);
	}
	fprintf(f, "\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cushim run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       cushim check [--driver-version=X.Y] [--gpu=sm_XY|auto] [--recursive] [--json] [--lib=PATH] FILE...\n"
		"       cushim doctor [--lib=PATH]\n"
		"       cushim symbols [--since=X.Y] [--missing] [--driver-version=X.Y] [--json] [--lib=PATH]\n"
		"       cushim timeline [--repair] FILE...\n"
		"       cushim timeline --merge FILE... -o OUT.json\n"
		"       cushim summary [--json] FILE...\n"
		"       cushim trace FILE...\n"
		"       cushim --help | --version\n"
		"\n"
		"Run a program with the CUDA driver shim libcushim.so preloaded, check which\n"
		"CUDA driver a binary needs, and see what the shim would do on this machine.\n"
		"\n");
	usage_run_options(f);
	fprintf(f,
		"check options:\n"
		"  --driver-version=X.Y   will it run on a CUDA X.Y driver (or driver 525.60.13)?\n"
		"                         its imports, its CUDA runtime and its PTX; exit 1 if not\n"
		"  --gpu=sm_XY|auto       will its GPU code run on sm_XY (a list, or the GPUs here)?\n"
		"  --recursive            also check the libraries each file needs (DT_NEEDED)\n"
		"  --json                 print the result as JSON\n"
		"\n"
		"symbols options:\n"
		"  --since=X.Y            only exports introduced in CUDA X.Y or later\n"
		"  --missing              only exports the driver here (or --driver-version) lacks\n"
		"  --json                 print the rows as JSON\n"
		"\n"
		"timeline options:\n"
		"  --repair               close a timeline a kill cut short, so that it is valid JSON,\n"
		"                         or rewrite one that several processes wrote as one trace\n"
		"  --merge -o OUT.json    the files of a run's processes as one trace, a track each\n"
		"\n"
		"summary options:\n"
		"  --json                 the CUSHIM_SUMMARY files of a run's processes, added up, as JSON\n"
		"\n");
	usage_environment(f);
	fprintf(f,
		"Exit status: run gives the program's status (128+N when killed by signal N,\n"
		"125 for a usage error, 127 when the program cannot be started); check gives\n"
		"0 when every file passes, 1 when one will not run there, 2 on errors; timeline\n"
		"gives 0 when every file is complete (or repaired), 1 when one is cut short or\n"
		"written by several processes; summary gives 0, 1 when a file is empty (its\n"
		"process did not exit normally), 2 when one is not a summary; trace gives 0,\n"
		"1 when a file is cut short, 2 when one is not a record file of this cushim.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_ERROR;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("cushim %s\nsymbol table: %d exports from the table of CUDA %s and the CUDA %s headers "
		       "(newest variant: CUDA %s)\n", PACKAGE_VERSION, CUSHIM_NEXPORTS, cli_version(CUSHIM_TABLE_VERSION),
		       cli_version(CUSHIM_TOOLKIT_VERSION), cli_version(table_newest()));
		return CLI_OK;
	}
	/* Each subcommand parses argv[1..] with getopt: argv[0] becomes "cushim run". */
	static char name[64];
	snprintf(name, sizeof name, "cushim %s", cmd);
	argv[1] = name;
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(cmd, "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1);
	if (strcmp(cmd, "symbols") == 0)
		return cmd_symbols(argc - 1, argv + 1);
	if (strcmp(cmd, "timeline") == 0)
		return cmd_timeline(argc - 1, argv + 1);
	if (strcmp(cmd, "summary") == 0)
		return cmd_summary(argc - 1, argv + 1);
	if (strcmp(cmd, "trace") == 0)
		return cmd_trace(argc - 1, argv + 1);
	cli_error("unknown command '%s'; use run, check, doctor, symbols, timeline, summary or trace (see cushim --help)",
		  cmd);
	return CLI_ERROR;
}
