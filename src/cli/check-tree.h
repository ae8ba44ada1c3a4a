/* cushim check on a whole environment: the files of the folders named (a
 * Python environment's site-packages, a container image's root folder, any
 * folder), and the libraries they need, resolved as the loader would inside
 * the tree (check-tree.c, check-python.c). */
#ifndef CUSHIM_CLI_CHECK_TREE_H
#define CUSHIM_CLI_CHECK_TREE_H
#include <stddef.h>

struct tree_lib {
	char *name; /* a file name (a symlink's own name counts) */
	char *path; /* the file it is */
	int member; /* a wheel's member (WHEEL:MEMBER), not a file on disk */
};

struct tree {
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
 * followed.  What cannot be read is said in one line each.  0, or -1 when dir
 * itself cannot be walked. */
int tree_walk(struct tree *t, const char *dir);
/* After the walks: sorts the library index. */
void tree_done(struct tree *t);
/* The tree's own library of that file name, or NULL. */
const char *tree_lib_find(const struct tree *t, const char *name);
void tree_free(struct tree *t);

/* Where a library a file of the tree needs is found, as the loader would:
 * its DT_RPATH (unless it has DT_RUNPATH) and DT_RUNPATH with $ORIGIN
 * expanded, then the tree's own libraries, then the system's (not for a
 * container image: its own folders are the system).  0 with the path in out,
 * or -1 when nothing provides it. */
int tree_resolve(const struct tree *t, const char *name, const char *rpath, const char *runpath, char *out,
		 size_t size);

/* A wheel's members that cushim check judges, added as WHEEL:MEMBER
 * (check-wheel.c): 0, or -1 (said) when it cannot be read. */
int tree_wheel(struct tree *t, const char *path);
/* One such member: judged, and in the library index. */
void tree_add_member(struct tree *t, const char *member);

/* The site-packages folders of a Python interpreter (python3 when NULL),
 * found by asking it: how many were added to t's walk, or -1 (said). */
int tree_python(struct tree *t, const char *interpreter);

#endif
