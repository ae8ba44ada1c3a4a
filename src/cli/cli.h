/* The cushim command: declarations shared by its subcommands. */
#ifndef CUSHIM_CLI_H
#define CUSHIM_CLI_H
#include <stddef.h>
#include <stdio.h>

/* Exit statuses of check, doctor and symbols (run passes the program's own). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_ERROR = 2 };
/* Exit statuses of run when the program never ran (as env(1) and timeout(1)). */
enum { RUN_USAGE = 125, RUN_NOEXEC = 127 };

extern const char *cli_name; /* "cushim" */

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "12.0" / "12000" -> 12000 for an option; -1 with a message when malformed. */
int cli_version_option(const char *option, const char *value);
const char *cli_version(int version); /* "12.8", static buffer rotated 8 deep */

/* ---- libcushim.so: where it is and what its bootstrap found (lib.c) ---- */
struct cli_lib {
	char path[4096];
	const char *how; /* "--lib", "next to the command", "the configured libdir" */
};
int cli_find_lib(const char *option, struct cli_lib *lib);
/* What the shim says about this machine, from its introspection exports. */
struct cli_shim {
	void *handle;
	int driver_version;      /* as a process would see it; 0 = no driver */
	int real_driver_version; /* 0 = unknown */
	const char *path, *via;
	int resolved, missing;   /* -1 when the library is too old to say */
	void *(*real_pointer)(const char *name);
};
/* dlopen the shim quietly (no log, no summary) and run its bootstrap. */
int cli_load_shim(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize);

/* ---- finding libraries the way the loader does (ldsearch.c) ---- */
/* Does this file exist and hold an ELF object for this machine? */
int cli_elf_native(const char *path);
/* Search for a DT_NEEDED name of object `from` (NULL: as dlopen from a
 * program without RPATH/RUNPATH). rpath/runpath are its raw DT_RPATH and
 * DT_RUNPATH strings or NULL; origin its folder. Skips files for which
 * reject(path) says 1. Returns 0 and the path in out, -1 if not found. */
int cli_ld_search(const char *name, const char *rpath, const char *runpath, const char *origin,
		  int (*reject)(const char *path), char *out, size_t size);
/* The loader cache (ldconfig -p), entries for this machine only. */
int cli_ld_cache_lookup(const char *name, int (*reject)(const char *path), char *out, size_t size);

/* ---- JSON output (json.c) ---- */
void json_string(FILE *f, const char *s);

/* ---- the subcommands ---- */
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_symbols(int argc, char **argv);

#endif
