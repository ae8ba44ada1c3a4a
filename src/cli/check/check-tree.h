/* cushim check on a whole environment: the files of the folders named (a
 * Python environment's site-packages, a container image's root folder, any
 * folder), and the libraries they need, resolved as the loader would inside
 * the tree (check-tree.c, check-python.c). */
#ifndef CUSHIM_CLI_CHECK_TREE_H
#define CUSHIM_CLI_CHECK_TREE_H
#include <stddef.h>
#include "wheeltag.h"

struct tree_lib {
	char *name; /* a file name (a symlink's own name counts) */
	char *path; /* the file it is */
	int member; /* a wheel's member (WHEEL:MEMBER), not a file on disk */
};

/* What was named to be read (a folder, a wheel, --python's interpreter and
 * its folders), so that each gets a line saying what was read of it. */
enum { INPUT_FOLDER, INPUT_WHEEL, INPUT_ZIP, INPUT_SITE, INPUT_PYTHON };
struct tree_input {
	char *path;
	int kind;          /* INPUT_ZIP: a zip archive that is no wheel (no .dist-info/WHEEL) */
	size_t files;      /* the files (members) to judge it holds */
	size_t members;    /* a wheel's members in all */
	char *about;       /* INPUT_PYTHON: the interpreter's own path and version, or NULL */
	int missing;       /* INPUT_SITE: a folder the interpreter names that does not exist */
	int system;        /* a folder: the kernel's and the system's folders met in it and not walked */
	struct wheel_tag tag; /* INPUT_WHEEL: what its name and METADATA declare of CUDA */
};

struct tree {
	struct tree_input *inputs;
	size_t ninputs, capinputs;
	char **files;     /* the files to judge, in path order, each once */
	size_t nfiles, capfiles;
	struct tree_lib *libs; /* by name, sorted */
	size_t nlibs, caplibs;
	int image_root;   /* a container image's root was named: its own
			   * folders stand for the system's */
	int errors;       /* files that could not be walked (each said once) */
};

/* Adds the files under dir that cushim check judges: every ELF executable
 * and shared object, every .fatbin, .cubin and .ptx file.  Symbolic links to
 * files count once, under the file's own path; those to folders are not
 * followed; /proc, /sys, /dev and /run (the kernel's and the running
 * system's, not files to judge) are not walked.  What cannot be read is said
 * in one line each.  The walk is an input of kind (INPUT_FOLDER or
 * INPUT_SITE).  0, or -1 when dir itself cannot be walked. */
int tree_walk(struct tree *t, const char *dir, int kind);
/* After the walks: sorts the library index. */
void tree_done(struct tree *t);
/* The tree's own library of that file name, or NULL. */
const char *tree_lib_find(const struct tree *t, const char *name);
void tree_free(struct tree *t);

/* Where a library a file of the tree needs is found, as the loader would:
 * a name with a '/' (its $ORIGIN expanded) at that path; else its DT_RPATH
 * (unless it has DT_RUNPATH) and DT_RUNPATH, expanded, then the tree's own
 * libraries, then the system's (not for a container image: its own folders
 * are the system).  Inside a wheel, a path is looked up among its members.
 * CLI_LD_LOADS with the path in out; CLI_LD_STOPS with the file the loader
 * stops at in out and why (cli_ld_candidate); CLI_LD_SKIPPED when nothing
 * provides it. */
int tree_resolve(const struct tree *t, const char *name, const char *rpath, const char *runpath, char *out,
		 size_t size, char *why, size_t whysize);
/* Is path one of the files to judge (tree_done sorts them)? */
int tree_has_file(const struct tree *t, const char *path);

/* A line saying what was read: the record it fills (check-tree.c). */
struct tree_input *tree_input_add(struct tree *t, const char *path, int kind);
/* The last record added, taken back (a folder named that holds nothing is
 * an error, said on its own). */
void tree_input_drop(struct tree *t);
/* One such member: judged, and in the library index. */
void tree_add_member(struct tree *t, const char *member);

#endif
