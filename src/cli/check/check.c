/* cushim check: will this binary run on that driver and that GPU?  It reads
 * each file (check-read.c): its undefined cu* imports, the CUDA runtime it
 * carries and its GPU code; judges them (check-judge.c) against
 * --driver-version or, when there is one, the driver here (asked through
 * libcushim.so), and against --gpu; and reports (check-report.c,
 * check-json.c).  This file: the options, the driver and GPUs to compare
 * with, and the files to read, which the work queue reads (check-queue.c:
 * --recursive follows DT_NEEDED). */
#include "config.h"
#include "check-queue.h"
#include "requirements.h"
#include "check-wheel.h"
#include "check-python.h"
#include <getopt.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct args {
	struct opts o;
	const char *libopt, *driver_arg, *gpu_arg, *python, *emit_arg;
	int recursive, want_python;
	struct cli_lib lib; /* --lib, found once its value is read */
};

/* --driver-version: a CUDA version (12.0, 12000), or a driver release
 * (525.60.13, 525) that the table turns into the CUDA version its branch
 * reports. */
static int parse_driver(const char *value, struct opts *o)
{
	char *end;
	long lead = strtol(value, &end, 10);
	if (end != value && lead >= 100 && lead <= 999 && (*end == '\0' || *end == '.')) {
		if (!(o->versus = req_branch_cuda((int)lead))) {
			cli_error("--driver-version=%s: driver branch %ld is not in cushim's table (%d to %d); pass the "
				  "CUDA version that driver reports instead (nvidia-smi's \"CUDA Version\", e.g. 13.0)",
				  value, lead, req_branch_first(), req_branch_last());
			return -1;
		}
		o->versus_branch = (int)lead;
		return 0;
	}
	o->versus = cli_version_option("--driver-version", value);
	return o->versus < 0 ? -1 : 0;
}

static int usage(int status)
{
	const char *u = "[--driver-version=X.Y] [--gpu=sm_XY|auto] [--recursive] [--json] [--verbose] [--lib=PATH]\n"
			"       [--emit=docker|conda|variant] [--python[=INTERPRETER]] [FILE|FOLDER...]";
	if (status == CLI_OK)
		printf("Usage: cushim check %s\n", u);
	else
		cli_error("usage: cushim check %s", u);
	return status;
}

/* An option getopt refused, in one line: '?' an unknown one (or a value
 * given to one that takes none), ':' one whose value is missing. */
static void bad_option(int c, const char *arg, const struct option *longopts)
{
	const char *name = NULL;
	for (const struct option *o = longopts; o->name && optopt; o++)
		if (o->val == optopt)
			name = o->name;
	if (c == ':' && name)
		cli_error("check: --%s needs a value (--%s=VALUE); see cushim check --help", name, name);
	else if (c == ':')
		cli_error("check: -%c needs a value; see cushim check --help", optopt);
	else if (name && strchr(arg, '='))
		cli_error("check: --%s takes no value (%s); see cushim check --help", name, arg);
	else if (optopt && !name)
		cli_error("check: -%c is not an option of check; see cushim check --help", optopt);
	else
		cli_error("check: %s is not an option of check; see cushim check --help", arg);
}

static int parse(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{ "driver-version", required_argument, NULL, 'd' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "lib", required_argument, NULL, 'L' },
		{ "python", optional_argument, NULL, 'p' },
		{ "emit", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0; /* one line of its own for each bad option (bad_option) */
	while ((c = getopt_long(argc, argv, ":rj", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': a->driver_arg = optarg; break;
		case 'g': a->gpu_arg = optarg; break;
		case 'r': a->recursive = 1; break;
		case 'j': a->o.json = 1; break;
		case 'v': a->o.verbose = 1; break;
		case 'L': a->libopt = optarg; break;
		case 'p': a->want_python = 1, a->python = optarg; break;
		case 'e': a->emit_arg = optarg; break;
		case 'h': return usage(CLI_OK) == CLI_OK ? 1 : -1;
		default: return bad_option(c, argv[optind - 1], longopts), -1;
		}
	}
	if (a->driver_arg && parse_driver(a->driver_arg, &a->o) != 0)
		return -1;
	if (a->emit_arg && !(a->o.emit = check_emit_format(a->emit_arg))) {
		cli_error("--emit=%s: not a format cushim check writes; use docker, conda or variant", a->emit_arg);
		return -1;
	}
	if (a->o.emit && a->o.json) {
		cli_error("--emit and --json each say the verdict their own way: give one");
		return -1;
	}
	if (a->python && !*a->python) {
		cli_error("--python= names no interpreter; --python alone asks python3");
		return -1;
	}
	if (a->libopt && cli_find_lib(a->libopt, &a->lib) != 0)
		return -1;
	if (optind >= argc && !a->want_python) {
		cli_error("check needs at least one FILE or FOLDER, or --python (see cushim --help)");
		return -1;
	}
	return 0;
}

/* --gpu=auto: the GPUs the driver here sees. */
static int gpus_here(struct args *a)
{
	struct cli_lib lib;
	struct cli_gpu g[CLI_MAX_GPUS];
	char why[512];
	int n;
	if (cli_find_lib(a->libopt, &lib) != 0)
		return -1;
	if ((n = cli_gpus(&lib, g, CLI_MAX_GPUS, why, sizeof why)) <= 0) {
		cli_error("--gpu=auto: no GPU here to compare with (%s); name one: --gpu=sm_90",
			  n < 0 ? why : "the driver sees none");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int k;
		for (k = 0; k < a->o.ngpus; k++)
			if (a->o.gpus[k].major == g[i].major && a->o.gpus[k].minor == g[i].minor)
				break;
		if (k == a->o.ngpus && a->o.ngpus < CHECK_MAX_GPUS) {
			snprintf(a->o.gpu_names[a->o.ngpus], sizeof a->o.gpu_names[0], "%s", g[i].name);
			a->o.gpus[a->o.ngpus++] = (struct gpu_arch){ g[i].major, g[i].minor };
		}
	}
	a->o.gpus_from = "driver";
	return 0;
}

/* --gpu: a list of architectures (sm_80,sm_90a), or auto. */
static int parse_gpus(struct args *a)
{
	if (!a->gpu_arg)
		return 0;
	if (strcmp(a->gpu_arg, "auto") == 0)
		return gpus_here(a);
	char *copy = strdup(a->gpu_arg), *save = NULL;
	int bad = 0;
	if (!copy)
		abort();
	for (char *t = strtok_r(copy, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
		int i = a->o.ngpus;
		if (i == CHECK_MAX_GPUS) {
			cli_error("--gpu=%s: more than %d GPUs", a->gpu_arg, CHECK_MAX_GPUS);
			bad = 1;
		} else if (cli_gpu_parse(t, &a->o.gpus[i], &a->o.gpu_variant[i]) != 0) {
			cli_error("--gpu=%s: '%s' is not a GPU architecture of NVIDIA's; use sm_XY (sm_90), X.Y (9.0), "
				  "sm_XYa or sm_XYf where NVIDIA has them (sm_90a, sm_100f), or auto", a->gpu_arg, t);
			bad = 1;
		} else {
			a->o.ngpus++;
		}
	}
	free(copy);
	if (!bad && !a->o.ngpus)
		cli_error("--gpu=%s names no GPU; use sm_XY (sm_90), X.Y (9.0) or auto", a->gpu_arg);
	a->o.gpus_from = "option";
	return bad || !a->o.ngpus ? -1 : 0;
}

/* No version given: ask the shim what driver this machine has.  Returns
 * why there is none to compare with, or NULL. */
static const char *driver_here(struct args *a)
{
	static struct cli_shim shim;
	struct cli_lib lib;
	char err[4200];
	if (cli_find_lib(a->libopt, &lib) != 0)
		return "libcushim.so was not found, so there is no driver to compare with";
	if (cli_load_shim(&lib, &shim, err, sizeof err) != 0) {
		cli_error("%s", err);
		return "libcushim.so could not tell which driver is here";
	}
	if (shim.driver_version <= 0)
		return "no CUDA driver here to compare with";
	a->o.versus = shim.driver_version;
	a->o.shim = &shim;
	return NULL;
}

/* In --json, where a wheel says otherwise than its files: a line each. */
static void json_declared(const struct work *w)
{
	char *buf = NULL, *nl;
	size_t len = 0;
	int k = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		check_declared(&w->tree, w->kept, w->nkept, m, "");
		fclose(m);
	}
	printf(",\n  \"contradictions\": [");
	for (char *line = buf; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		printf("%s", k++ ? ", " : "");
		cushim_json_print(stdout, line);
	}
	printf("]");
	free(buf);
}

/* An environment: its verdict, then the files that limit it (all with
 * --verbose); or with --emit, its needs in another tool's terms. */
static void report_env(struct work *w, const struct opts *o)
{
	struct env e;
	env_judge(&e, w->kept, w->nkept, o);
	if (o->emit) {
		check_emit(&e, w->kept, w->nkept, o);
		check_declared(&w->tree, w->kept, w->nkept, stderr, "cushim: ");
		check_free_kept(w);
		return;
	}
	if (!o->json) {
		env_print_text(&e, w->kept, w->nkept, o);
		check_declared(&w->tree, w->kept, w->nkept, stdout, "environment: caution: ");
		env_print_inputs(&w->tree, o);
	}
	size_t quiet = 0;
	for (size_t k = 0; k < w->nkept; k++) {
		if (o->json)
			check_print_json_file(&w->kept[k], o, k == 0);
		else if (o->verbose)
			check_print_text(&w->kept[k], o);
		else if (env_limits(&e, &w->kept[k]))
			env_print_row(&w->kept[k], o);
		else
			quiet++;
	}
	if (quiet && !o->json && !o->verbose)
		printf("(%zu file%s that do%s not limit it %s not shown; --verbose shows every file in full)\n", quiet,
		       quiet == 1 ? "" : "s", quiet == 1 ? "es" : "", quiet == 1 ? "is" : "are");
	if (o->json) {
		printf("\n  ]");
		env_print_json(&e, w->kept, o, &w->tree);
		json_declared(w);
		printf(",\n  \"runs\": %s}\n", env_runs_json(&e, o));
	}
	check_free_kept(w);
}

/* The files named, the folders walked (and --python's), in that order.
 * CLI_OK, CLI_ERROR when something could not be read, or -1 when
 * --python's interpreter could not be asked (nothing is judged then). */
static int gather(struct work *w, const struct args *a, int argc, char **argv)
{
	struct stat st;
	int bad = 0;
	for (int i = optind; i < argc; i++) {
		size_t before = w->tree.nfiles;
		int errors = w->tree.errors;
		size_t n = strlen(argv[i]);
		if (n > 4 && strcmp(argv[i] + n - 4, ".whl") == 0 && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
			bad |= tree_wheel(&w->tree, argv[i]) != 0;
		} else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (tree_walk(&w->tree, argv[i], INPUT_FOLDER) != 0) {
				bad = 1;
			} else if (w->tree.nfiles == before && w->tree.errors == errors) {
				cli_error("%s is a directory holding no program, library or GPU code to check", argv[i]);
				tree_input_drop(&w->tree);
				bad = 1;
			}
		} else
			check_add_job(w, strdup(argv[i]), strdup(argv[i]), NULL, NULL);
	}
	if (a->want_python && tree_python(&w->tree, a->python) < 0)
		return -1;
	tree_done(&w->tree);
	for (size_t k = 0; k < w->tree.nfiles; k++) {
		check_add_job(w, strdup(w->tree.files[k]), strdup(w->tree.files[k]), NULL, NULL);
		w->jobs[w->njobs - 1].in_tree = 1;
	}
	return bad || w->tree.errors ? CLI_ERROR : CLI_OK;
}

int cmd_check(int argc, char **argv)
{
	struct args a = { 0 };
	struct work w = { 0 };
	const char *no_driver = NULL;
	int p = parse(argc, argv, &a);
	if (p != 0)
		return p > 0 ? CLI_OK : CLI_ERROR;
	elf_version(EV_CURRENT);
	if (parse_gpus(&a) != 0)
		return CLI_ERROR;
	if (!a.o.versus)
		no_driver = driver_here(&a);
	if ((w.status = gather(&w, &a, argc, argv)) < 0) {
		check_free_work(&w);
		return CLI_ERROR;
	}
	static struct compat compat;
	if (w.tree.ninputs)
		check_compat(&w.tree, &a.o, &compat);
	if (a.o.json)
		check_print_json_head(&a.o);
	w.env = w.tree.ninputs > 0 || a.o.emit;
	w.o = &a.o;
	w.recursive = a.recursive;
	if (w.env && !a.recursive)
		check_all_parallel(&w);
	else
		for (size_t j = 0; j < w.njobs; j++)
			check_one(&w, j);
	if (w.env)
		report_env(&w, &a.o);
	else if (a.o.json) /* the verdict that the exit status gives */
		printf("\n  ],\n  \"runs\": %s}\n",
		       w.status == CLI_FAIL ? "false" : w.status == CLI_OK && !w.unknown ? "true" : "null");
	else if (no_driver && w.any_cuda && !a.o.emit)
		printf("(%s; use --driver-version=X.Y to see what a given driver lacks)\n", no_driver);
	tree_wheels_done();
	check_free_work(&w);
	return w.status;
}
