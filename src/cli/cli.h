/* The cushim command: declarations shared by its subcommands. */
#ifndef CUSHIM_CLI_H
#define CUSHIM_CLI_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <libelf.h>
#include "table.h"
#include "adapters.h"
#include "cushim.h"
#include "jsonstr.h" /* every JSON string the command writes */

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

/* ---- libcushim.so: where it is and what its bootstrap found (libcushim.c) ---- */
struct cli_lib {
	char path[4096];
	const char *how; /* "--lib", "next to the command", "the configured libdir" */
};
int cli_find_lib(const char *option, struct cli_lib *lib);
/* Whether path is cushim itself (the library cli_find_lib found, or any
 * libcushim.so): a libcuda.so.1 that is cushim is no driver. */
int cli_is_cushim(const char *path);

/* ---- downgrade adapters (the library's table, src/common/adapters.h) ---- */
/* The adapter that would serve export idx on a driver of CUDA version
 * `driver`, or NULL (also when CUSHIM_ADAPT=0 is set). */
const struct cushim_adapter *cli_adapter_for(int idx, int driver);
/* What the shim says about this machine, from its introspection exports. */
struct cli_shim {
	int driver_version;      /* as a process would see it; 0 = no driver */
	int real_driver_version; /* 0 = unknown */
	char path[4096], via[256];
	int resolved, missing;   /* -1 when the library is too old to say */
	int have_missing;        /* lacks[] is filled in */
	unsigned char lacks[CUSHIM_NSYMS]; /* by this command's table index: 1 = missing, 2 = served by an adapter */
	int adapted;             /* how many are served by adapters */
	int origins[4];          /* exports by origin: none, driver, dlsym, runtime */
	int have_owners;         /* owner[] and origin[] are filled in */
	unsigned char owner[CUSHIM_NSYMS];  /* by this command's table index: enum cushim_owner */
	unsigned char origin[CUSHIM_NSYMS]; /* the index into origins[] */
	int init_rc;             /* cuInit's result in the probe; -1 when not asked */
	char init_path[4096], init_via[256]; /* where entry points came from after it */
	int init_origins[4];
};
/* Load the shim in a child process (quietly: no log, no summary) and run its
 * bootstrap there, so that a crash probing the driver cannot take this
 * command down. -1 with a message in err when it could not say. */
int cli_load_shim(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize);
/* The same, then cuInit in that child, as a program would: what the
 * bootstrap takes once the driver is initialised (init_*). */
int cli_load_shim_init(const struct cli_lib *lib, struct cli_shim *shim, char *err, size_t errsize);
/* A child process to load the shim in, quietly (no log, no summary, no
 * output): 0 in the child, with fd the end of a pipe to write its answer
 * to; the child's pid in the parent, with fd the end to read it from; -1
 * with a message in err. */
pid_t cli_quiet_child(int *fd, char *err, size_t errsize);
/* Reads size bytes, or up to the end of the file: how many it got. */
size_t cli_read_full(int fd, void *buf, size_t size);

/* The GPUs the driver here sees (gpus.c), asked through libcushim.so in a
 * child process: how many (0 or more), or -1 with why. */
#define CLI_MAX_GPUS 64
struct cli_gpu {
	int ordinal, major, minor; /* compute capability major.minor */
	char name[256];
};
int cli_gpus(const struct cli_lib *lib, struct cli_gpu *gpus, int max, char *why, size_t whysize);

/* ---- ELF machines (machine.c) ---- */
/* The name of the machine this command is built for ("x86-64", "AArch64"). */
const char *cli_native_machine(void);
/* This machine's ELF class, data encoding and e_machine. */
void cli_native_elf(int *cls, int *data, unsigned *machine);
/* Is this ELF object for this machine (class and e_machine)? why says if not. */
int cli_elf_machine_ok(Elf *elf, const char **why);
/* Can cushim check read it: an ELF object of this class for a machine CUDA
 * runs on?  1 for this machine, 2 for another (*machine names it either
 * way); 0 with the whole reason in why ("a 32-bit ELF file ...; cushim check
 * reads 64-bit ELF files"). */
int cli_elf_checkable(Elf *elf, const char **machine, const char **why);

/* ---- finding libraries the way the loader does (findlib.c) ---- */
/* Opens a regular file to read, and nothing else: its type is read first
 * (stat), the open cannot block (O_NONBLOCK, cleared once fstat has seen a
 * regular file).  The descriptor, or -1: *type names what the file is when
 * it is not a regular file ("a FIFO", "a directory"), else NULL and errno
 * says why.  st: the file's status (where stat succeeded). */
struct stat;
int cli_open_regular(const char *path, struct stat *st, const char **type);
/* The same, opened as how says (O_RDONLY, O_RDWR). */
int cli_open_regular_as(const char *path, int how, struct stat *st, const char **type);
/* Is this a regular file holding an ELF object for this machine? */
int cli_elf_native(const char *path);
/* What the loader makes of a file where it looks for a library: it passes
 * over it (absent, a socket, another word size or machine) and looks on,
 * it loads it, or it stops there (a FIFO, on which it blocks; an empty,
 * short, truncated or non-ELF file; a directory or a device), why says so. */
enum { CLI_LD_SKIPPED, CLI_LD_LOADS, CLI_LD_STOPS };
int cli_ld_candidate(const char *path, char *why, size_t whysize);
/* Where the loader takes a DT_NEEDED name from, in the order of
 * cli_ld_search below: CLI_LD_LOADS with the path in out; CLI_LD_STOPS with
 * the file it stops at in out and why; CLI_LD_SKIPPED when nothing is found. */
int cli_ld_find(const char *name, const char *rpath, const char *runpath, char *out, size_t size, char *why,
		size_t whysize);
/* $ORIGIN, $LIB and $PLATFORM expanded in a DT_RPATH/DT_RUNPATH list; malloc'd. */
char *cli_ld_expand(const char *list, const char *origin);
/* Find a DT_NEEDED name as the library finds the real driver (src/common/ldsearch.h):
 * rpath (the expanded DT_RPATH of the loading object and its loaders, NULL if
 * it has DT_RUNPATH), then LD_LIBRARY_PATH, then runpath (its expanded
 * DT_RUNPATH), the folders of /etc/ld.so.conf and the default folders. Files
 * of another machine, and those reject() refuses, are skipped. 0 and the path
 * in out, or -1. */
int cli_ld_search(const char *name, const char *rpath, const char *runpath,
		  int (*reject)(const char *path), char *out, size_t size);
/* The real driver behind a masquerade, picked as the library picks it
 * (src/shim/masquerade.c, by the rule of src/common/realdriver.c): CUSHIM_DRIVER when it
 * names a usable driver, else the first usable libcuda.so.1 of the search.
 * The path in out and 1 (CUSHIM_DRIVER) or 0 (the search), or -1 when there
 * is none; *bad is CUSHIM_DRIVER when it was set and passed over, else NULL. */
int cli_real_driver(char *out, size_t size, const char **bad);

/* ---- C++ names (demangle.c) ---- */
/* name demangled into buf ("app::launch(int)"), or name itself when it is
 * no C++ name or there is no demangler. */
const char *cli_demangle(const char *name, char *buf, size_t size);

/* ---- the subcommands ---- */
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
/* One file read as cushim check reads it (tests/fuzz): 0 if readable ELF. */
int cli_check_read(const char *path, size_t *nimports, char *why, size_t whysize);
/* A wheel read as `cushim check` reads it, for the fuzzer: every member it
 * judges read in place.  How many members were judged, or -1 when the wheel
 * cannot be read (said on standard error). */
long cli_check_wheel(const char *path);
int cmd_doctor(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* run-checks.c: what cushim run refuses before the program starts, said: -1. */
int cli_run_check_lib(const char *path);
int cli_run_check_settings(void);

#endif
