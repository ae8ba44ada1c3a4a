/* cushim check: which CUDA driver does this binary need?  Reads each file's
 * dynamic symbol table with libelf, looks its undefined cu* imports up in the
 * symbol table cushim is built from, and compares with --driver-version or,
 * when there is one, the driver here (asked through libcushim.so). */
#include "config.h"
#include "cli.h"
#include "cushim-internal.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const flavour_names[] = { "legacy", "ptds", "ptsz" };

/* ---- one file ---- */
struct import {
	const char *name; /* in the file's string table: copied */
	int idx;          /* row of cushim_syms, -1 if unknown */
	int missing;
	const struct cli_adapter *adapter; /* newer than the driver, but served by this */
};

struct result {
	char *file;      /* as shown */
	char *needed_by; /* NULL for a file named on the command line */
	char *error;     /* set: could not be read */
	struct import *imports;
	size_t nimports;
	int needs;       /* max version over known imports */
	int nmissing, nunknown, nadapted;
	/* for --recursive */
	char **needed;
	size_t nneeded;
	char *rpath, *runpath, *origin;
	int has_runpath;
	const char *machine; /* the ELF machine's name */
	int native;          /* 1: this machine's, 2: another's */
};

static void set_error(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(struct result *r, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	free(r->error);
	r->error = strdup(buf);
}

/* A driver function: cu followed by a capital (cuInit, cuCtxCreate_v2); the
 * runtime (cudaMalloc) and the libraries (cublasCreate) are not. */
static int driver_name(const char *s)
{
	return s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z';
}

static int cmp_import(const void *a, const void *b)
{
	const struct import *x = a, *y = b;
	int vx = x->idx >= 0 ? cushim_syms[x->idx].version : 0, vy = y->idx >= 0 ? cushim_syms[y->idx].version : 0;
	if ((x->idx < 0) != (y->idx < 0))
		return x->idx < 0 ? -1 : 1; /* unknown first */
	if (vx != vy)
		return vy > vx ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int section_fits(const GElf_Shdr *sh, off_t size)
{
	if (sh->sh_type == SHT_NOBITS)
		return 1;
	return sh->sh_offset <= (GElf_Off)size && sh->sh_size <= (GElf_Off)size - sh->sh_offset;
}

static void read_elf(struct result *r, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	const char *why;
	GElf_Ehdr eh;
	size_t shnum;

	if (fd < 0) {
		set_error(r, "cannot be opened: %s", strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0) {
		set_error(r, "cannot be read: %s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		set_error(r, "is a directory, not an ELF file");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_error(r, "is not a regular file");
		goto out;
	}
	if (st.st_size == 0) {
		set_error(r, "is empty, not an ELF file");
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		set_error(r, "cannot be read as ELF: %s", elf_errmsg(-1));
		goto out;
	}
	if (elf_kind(elf) == ELF_K_AR) {
		set_error(r, "is an ar archive (a static library), not a program or shared library");
		goto out;
	}
	if (!(r->native = cli_elf_checkable(elf, &r->machine, &why))) {
		set_error(r, "is %s", why);
		goto out;
	}
	gelf_getehdr(elf, &eh);
	if (eh.e_type == ET_CORE) {
		set_error(r, "is a core dump, not a program or shared library");
		goto out;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL) {
		set_error(r, "is an ELF file of unknown type %u", eh.e_type);
		goto out;
	}
	/* A cut-off file: libelf reads what is there, so compare the tables'
	 * extents it reports with the file's size. */
	if (elf_getshdrnum(elf, &shnum) != 0) {
		set_error(r, "is a truncated or corrupt ELF file: %s", elf_errmsg(-1));
		goto out;
	}
	GElf_Off size = (GElf_Off)st.st_size, shcount = shnum ? shnum : (eh.e_shnum ? eh.e_shnum : 1);
	int cut = (eh.e_phnum && eh.e_phoff + (GElf_Off)eh.e_phnum * eh.e_phentsize > size) ||
		  (eh.e_shoff && eh.e_shoff + shcount * eh.e_shentsize > size);
	for (size_t i = 0; !cut && i < eh.e_phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_filesz && ph.p_offset + ph.p_filesz > size)
			cut = 1;
	}
	if (cut) {
		set_error(r, "is a truncated ELF file (%lld bytes; its headers say it is longer)",
			  (long long)st.st_size);
		goto out;
	}
	int want = eh.e_type == ET_REL ? SHT_SYMTAB : SHT_DYNSYM;
	int have_symbols = 0, have_pt_dynamic = 0;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
			have_pt_dynamic = 1;
	}
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh)) {
			set_error(r, "is a corrupt ELF file: %s", elf_errmsg(-1));
			goto out;
		}
		if (!section_fits(&sh, st.st_size)) {
			set_error(r, "is a truncated ELF file (%lld bytes; a section ends beyond it)",
				  (long long)st.st_size);
			goto out;
		}
		if ((int)sh.sh_type == want) {
			have_symbols = 1;
			if (!(d = elf_getdata(scn, NULL))) {
				set_error(r, "is a corrupt ELF file (symbol table): %s", elf_errmsg(-1));
				goto out;
			}
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t k = 1; k < n; k++) {
				GElf_Sym sym;
				const char *name;
				if (!gelf_getsym(d, (int)k, &sym) || sym.st_shndx != SHN_UNDEF)
					continue;
				if (GELF_ST_BIND(sym.st_info) != STB_GLOBAL && GELF_ST_BIND(sym.st_info) != STB_WEAK)
					continue;
				if (!(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !driver_name(name))
					continue;
				struct import *im = realloc(r->imports, (r->nimports + 1) * sizeof *im);
				if (!im)
					abort();
				r->imports = im;
				im[r->nimports].name = strdup(name);
				im[r->nimports].idx = cushim_lookup_index(name);
				im[r->nimports].missing = 0;
				im[r->nimports].adapter = NULL;
				r->nimports++;
			}
		} else if (sh.sh_type == SHT_DYNAMIC && eh.e_type != ET_REL) {
			if (!(d = elf_getdata(scn, NULL))) {
				set_error(r, "is a corrupt ELF file (dynamic section): %s", elf_errmsg(-1));
				goto out;
			}
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t k = 0; k < n; k++) {
				GElf_Dyn dyn;
				const char *s;
				if (!gelf_getdyn(d, (int)k, &dyn) || dyn.d_tag == DT_NULL)
					break;
				if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
					continue;
				if (!(s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
					continue;
				if (dyn.d_tag == DT_NEEDED) {
					char **nn = realloc(r->needed, (r->nneeded + 1) * sizeof *nn);
					if (!nn)
						abort();
					r->needed = nn;
					nn[r->nneeded++] = strdup(s);
				} else if (dyn.d_tag == DT_RPATH) {
					free(r->rpath);
					r->rpath = strdup(s);
				} else {
					free(r->runpath);
					r->runpath = strdup(s);
					r->has_runpath = 1;
				}
			}
		}
	}
	if (!have_symbols && have_pt_dynamic) {
		set_error(r, "has no section headers for its dynamic symbols; cushim check cannot read its imports");
		goto out;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

/* ---- the verdict ---- */
struct opts {
	int versus;      /* driver version to compare with; 0 = none */
	struct cli_shim *shim; /* the driver here, or NULL */
	int json;
};

static void judge(struct result *r, const struct opts *o)
{
	for (size_t i = 0; i < r->nimports; i++) {
		struct import *im = &r->imports[i];
		if (im->idx < 0) {
			r->nunknown++;
			continue;
		}
		const struct cushim_sym *s = &cushim_syms[im->idx];
		if (s->version > r->needs)
			r->needs = s->version;
		if (!o->versus)
			continue;
		if (o->shim && o->shim->have_missing)
			im->missing = o->shim->lacks[im->idx] != 0;
		else
			im->missing = s->version > o->versus;
		if (im->missing && (!o->shim || !o->shim->have_missing || o->shim->lacks[im->idx] == 2) &&
		    (im->adapter = cli_adapter_for(im->idx, o->versus)) != NULL) {
			im->missing = 0;
			r->nadapted++;
		}
		r->nmissing += im->missing;
	}
	if (r->nimports) /* imports is NULL then: qsort's pointer must not be */
		qsort(r->imports, r->nimports, sizeof *r->imports, cmp_import);
}

static void print_text(const struct result *r, const struct opts *o)
{
	if (r->error)
		return; /* said on stderr */
	size_t known = r->nimports - (size_t)r->nunknown;
	if (r->native == 2)
		printf("%s: a binary for %s (this cushim is built for %s)\n", r->file, r->machine, cli_native_machine());
	if (r->needed_by)
		printf("%s (needed by %s): ", r->file, r->needed_by);
	else
		printf("%s: ", r->file);
	if (r->nimports == 0) {
		printf("imports no CUDA driver function; any driver will do\n");
		return;
	}
	if (known)
		printf("needs a CUDA %s driver (%zu driver import%s)\n", cli_version(r->needs), known,
		       known == 1 ? "" : "s");
	else
		printf("imports only driver functions unknown to this table\n");
	int w = 0;
	for (size_t i = 0; i < r->nimports; i++)
		if ((int)strlen(r->imports[i].name) > w)
			w = (int)strlen(r->imports[i].name);
	for (size_t i = 0; i < r->nimports; i++) {
		const struct import *im = &r->imports[i];
		if (im->idx < 0)
			printf("  %-*s  %5s  unknown (not in the CUDA %s headers cushim was built from)\n", w,
			       im->name, "?", cli_version(CUDA_VERSION));
		else if (im->adapter)
			printf("  %-*s  %5s  adapted: served by %s when %s\n", w, im->name,
			       cli_version(cushim_syms[im->idx].version), im->adapter->older, im->adapter->condition);
		else
			printf("  %-*s  %5s%s\n", w, im->name, cli_version(cushim_syms[im->idx].version),
			       im->missing ? "  missing" : "");
	}
	if (o->versus) {
		char who[64];
		if (o->shim)
			snprintf(who, sizeof who, "the driver here (CUDA %s)", cli_version(o->versus));
		else
			snprintf(who, sizeof who, "a CUDA %s driver", cli_version(o->versus));
		if (r->nmissing)
			printf("%s: %s lacks %d of its %zu driver imports\n", r->file, who, r->nmissing, known);
		else
			printf("%s: %s provides all %zu driver imports\n", r->file, who, known);
		if (r->nadapted)
			printf("%s: %d import%s newer than %s %s served by cushim's adapters under the conditions above "
			       "(CUSHIM_ADAPT=0 turns them off)\n", r->file, r->nadapted, r->nadapted == 1 ? "" : "s",
			       who, r->nadapted == 1 ? "is" : "are");
	}
}

static void print_json_file(const struct result *r, int first)
{
	printf("%s\n    {\"file\": ", first ? "" : ",");
	json_string(stdout, r->file);
	printf(", \"needed_by\": ");
	if (r->needed_by)
		json_string(stdout, r->needed_by);
	else
		printf("null");
	if (r->error) {
		printf(", \"status\": \"error\", \"error\": ");
		json_string(stdout, r->error);
		printf("}");
		return;
	}
	printf(", \"status\": \"%s\", \"machine\": \"%s\", \"this_machine\": %s", r->nmissing ? "missing" : "pass",
	       r->machine, r->native == 1 ? "true" : "false");
	if (r->needs)
		printf(", \"needs\": \"%s\", \"needs_cuda_version\": %d", cli_version(r->needs), r->needs);
	else
		printf(", \"needs\": null, \"needs_cuda_version\": null");
	printf(", \"imports\": [");
	for (size_t i = 0; i < r->nimports; i++) {
		const struct import *im = &r->imports[i];
		printf("%s\n      {\"name\": ", i ? "," : "");
		json_string(stdout, im->name);
		if (im->idx < 0) {
			printf(", \"known\": false}");
			continue;
		}
		const struct cushim_sym *s = &cushim_syms[im->idx];
		printf(", \"known\": true, \"base\": \"%s\", \"version\": \"%s\", \"cuda_version\": %d, "
		       "\"flavour\": \"%s\", \"missing\": %s", s->base, cli_version(s->version), s->version,
		       flavour_names[s->flavour], im->missing ? "true" : "false");
		if (im->adapter) {
			printf(", \"adapted\": {\"by\": \"%s\", \"when\": ", im->adapter->older);
			json_string(stdout, im->adapter->condition);
			printf("}");
		}
		printf("}");
	}
	printf("%s], \"missing\": [", r->nimports ? "\n    " : "");
	int k = 0;
	for (size_t i = 0; i < r->nimports; i++)
		if (r->imports[i].missing) {
			printf("%s", k++ ? ", " : "");
			json_string(stdout, r->imports[i].name);
		}
	printf("]}");
}

static void free_result(struct result *r)
{
	free(r->file);
	free(r->needed_by);
	free(r->error);
	for (size_t i = 0; i < r->nimports; i++)
		free((char *)r->imports[i].name);
	free(r->imports);
	for (size_t i = 0; i < r->nneeded; i++)
		free(r->needed[i]);
	free(r->needed);
	free(r->rpath);
	free(r->runpath);
	free(r->origin);
}

/* One file read as `cushim check` reads it, for the fuzzer (tests/fuzz):
 * 0 and the number of cu* imports if it is a readable ELF file, else 1 and
 * the reason in why. */
int cli_check_read(const char *path, size_t *nimports, char *why, size_t whysize)
{
	struct result r = { 0 };
	int bad;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	read_elf(&r, path);
	bad = r.error != NULL;
	if (why && whysize)
		snprintf(why, whysize, "%s", r.error ? r.error : "");
	if (nimports)
		*nimports = r.nimports;
	free_result(&r);
	return bad;
}

/* ---- --recursive: a queue of files, each with its loaders' DT_RPATH ---- */
struct job {
	char *path, *shown, *needed_by, *rpath_chain;
};

static int is_driver_name(const char *n)
{
	return strcmp(n, "libcuda.so.1") == 0 || strcmp(n, "libcuda.so") == 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "driver-version", required_argument, NULL, 'd' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "lib", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	const char *libopt = NULL;
	int recursive = 0, c;

	while ((c = getopt_long(argc, argv, "rj", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((o.versus = cli_version_option("--driver-version", optarg)) < 0)
				return CLI_ERROR;
			break;
		case 'r':
			recursive = 1;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'L':
			libopt = optarg;
			break;
		case 'h':
			printf("Usage: cushim check [--driver-version=X.Y] [--recursive] [--json] [--lib=PATH] FILE...\n");
			return CLI_OK;
		default:
			cli_error("usage: cushim check [--driver-version=X.Y] [--recursive] [--json] FILE...");
			return CLI_ERROR;
		}
	}
	elf_version(EV_CURRENT);
	if (optind >= argc) {
		cli_error("check needs at least one FILE (see cushim --help)");
		return CLI_ERROR;
	}

	/* No version given: ask the shim what driver this machine has. */
	static struct cli_shim shim;
	const char *no_driver = NULL;
	char err[4200];
	if (!o.versus) {
		struct cli_lib lib;
		if (cli_find_lib(libopt, &lib) != 0)
			no_driver = "libcushim.so was not found, so there is no driver to compare with";
		else if (cli_load_shim(&lib, &shim, err, sizeof err) != 0)
			cli_error("%s", err), no_driver = "libcushim.so could not tell which driver is here";
		else if (shim.driver_version <= 0)
			no_driver = "no CUDA driver here to compare with";
		else {
			o.versus = shim.driver_version;
			o.shim = &shim;
		}
	}

	struct job *jobs = NULL;
	size_t njobs = 0, capjobs = 0;
	char **seen = NULL;
	size_t nseen = 0;
	int status = CLI_OK, nfiles = 0, any_imports = 0;

	for (int i = optind; i < argc; i++) {
		if (njobs == capjobs && !(jobs = realloc(jobs, (capjobs = capjobs * 2 + 8) * sizeof *jobs)))
			abort();
		jobs[njobs++] = (struct job){ strdup(argv[i]), strdup(argv[i]), NULL, NULL };
	}
	if (o.json) {
		printf("{\"driver_version\": ");
		if (o.versus)
			printf("\"%s\", \"driver_cuda_version\": %d, \"driver_from\": \"%s\"", cli_version(o.versus),
			       o.versus, o.shim ? "driver" : "option");
		else
			printf("null, \"driver_cuda_version\": null, \"driver_from\": null");
		printf(",\n  \"table\": {\"exports\": %d, \"cuda_headers\": \"%s\"},\n  \"files\": [",
		       CUSHIM_NSYMS, cli_version(CUDA_VERSION));
	}
	for (size_t j = 0; j < njobs; j++) {
		struct job *jb = &jobs[j];
		struct result r = { 0 };
		char real[PATH_MAX];

		if (recursive && realpath(jb->path, real)) {
			size_t k;
			for (k = 0; k < nseen && strcmp(seen[k], real) != 0; k++)
				;
			if (k < nseen)
				goto next;
			if (!(seen = realloc(seen, (nseen + 1) * sizeof *seen)))
				abort();
			seen[nseen++] = strdup(real);
		}
		r.file = strdup(jb->shown);
		r.needed_by = jb->needed_by ? strdup(jb->needed_by) : NULL;
		read_elf(&r, jb->path);
		if (r.error) {
			if (r.needed_by)
				cli_error("%s (needed by %s) %s", r.file, r.needed_by, r.error);
			else
				cli_error("%s %s", r.file, r.error);
			status = CLI_ERROR;
		} else {
			judge(&r, &o);
			any_imports |= r.nimports > 0;
			if (r.nmissing && status == CLI_OK)
				status = CLI_FAIL;
		}
		if (o.json)
			print_json_file(&r, nfiles == 0);
		else
			print_text(&r, &o);
		nfiles++;

		if (recursive && !r.error && r.native == 2)
			cli_note("%s is a binary for %s: its libraries are not looked for here", r.file, r.machine);
		else if (recursive && !r.error) {
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s", realpath(jb->path, real) ? real : jb->path);
			char *origin = dirname(dir);
			char *rp = r.rpath && !r.has_runpath ? cli_ld_expand(r.rpath, origin) : NULL;
			char *run = r.runpath ? cli_ld_expand(r.runpath, origin) : NULL;
			size_t chainlen = (rp ? strlen(rp) : 0) + (jb->rpath_chain ? strlen(jb->rpath_chain) : 0) + 2;
			char *chain = malloc(chainlen);
			if (!chain)
				abort();
			snprintf(chain, chainlen, "%s%s%s", rp ? rp : "", rp && jb->rpath_chain && *jb->rpath_chain ? ":" : "",
				 jb->rpath_chain ? jb->rpath_chain : "");
			for (size_t k = 0; k < r.nneeded; k++) {
				char found[PATH_MAX];
				if (is_driver_name(r.needed[k]))
					continue; /* the driver itself: what this command compares with */
				if (cli_ld_search(r.needed[k], r.has_runpath ? NULL : chain, run, NULL, found,
						  sizeof found) != 0) {
					cli_note("%s (needed by %s) was not found where the loader looks; not checked",
						 r.needed[k], r.file);
					continue;
				}
				if (njobs == capjobs &&
				    !(jobs = realloc(jobs, (capjobs = capjobs * 2 + 8) * sizeof *jobs)))
					abort();
				jb = &jobs[j]; /* jobs may have moved */
				jobs[njobs++] = (struct job){ strdup(found), strdup(found), strdup(r.file),
							      strdup(r.has_runpath ? "" : chain) };
			}
			free(rp);
			free(run);
			free(chain);
		}
		free_result(&r);
next:;
	}
	if (o.json)
		printf("\n  ]}\n");
	else if (no_driver && any_imports)
		printf("(%s; use --driver-version=X.Y to see what a given driver lacks)\n",
		       no_driver);
	for (size_t j = 0; j < njobs; j++) {
		free(jobs[j].path);
		free(jobs[j].shown);
		free(jobs[j].needed_by);
		free(jobs[j].rpath_chain);
	}
	free(jobs);
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	return status;
}
