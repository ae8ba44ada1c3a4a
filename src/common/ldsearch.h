/* Where the dynamic loader looks for a library, in its order: one walk that
 * the library (masquerade.c: the real driver behind cushim) and the command
 * (`cushim doctor`, `cushim run`, `cushim check`) share, so that what the
 * command predicts is what the library does. */
#ifndef CUSHIM_LDSEARCH_H
#define CUSHIM_LDSEARCH_H

/* Asked about each candidate path in turn: nonzero takes it and ends the
 * walk.  The path exists only for the call. */
typedef int (*cushim_ld_accept_fn)(const char *path, void *ctx);

/* Offers name in each folder where the loader looks, in its order: rpath
 * (an expanded DT_RPATH list; NULL or "" for none), LD_LIBRARY_PATH (unless
 * the process runs in secure-execution mode), runpath (an expanded DT_RUNPATH
 * list), the folders of /etc/ld.so.conf (its includes followed, as ldconfig
 * builds the loader cache from them), then the default folders: this
 * machine's multiarch folders, /lib64, /usr/lib64, /lib, /usr/lib and the
 * folders NVIDIA's container toolkit and WSL put the driver in.  An empty
 * entry in a list is the current folder.  A name with a '/' is offered
 * alone.  1 when accept took a path, 0 when none was taken. */
int cushim_ld_search(const char *name, const char *rpath, const char *runpath, cushim_ld_accept_fn accept,
		     void *ctx);

/* $ORIGIN (as origin), $LIB and $PLATFORM, braced or not, expanded in a
 * DT_RPATH or DT_RUNPATH list as the loader does; malloc'd, NULL when out of
 * memory. */
char *cushim_ld_expand(const char *list, const char *origin);

#endif
