/* Wheels read in place for cushim check (check-wheel.c). */
#ifndef CUSHIM_CLI_CHECK_WHEEL_H
#define CUSHIM_CLI_CHECK_WHEEL_H
#include "check-tree.h"

/* A wheel's members that cushim check judges, added as WHEEL:MEMBER
 * (check-wheel.c): 0, or -1 (said) when it cannot be read. */
int tree_wheel(struct tree *t, const char *path);
/* The wheel named as an input whose member path is (WHEEL:MEMBER), or NULL. */
const struct tree_input *tree_wheel_of(const struct tree *t, const char *path);
/* How many times the archive at path was opened to be read (check-wheel.c):
 * once to list it, then at most once by each thread that reads its members. */
unsigned long tree_wheel_opens(const char *path);
/* How many of its members were inflated whole through libdeflate (the rest,
 * if any, through libzip). */
unsigned long tree_wheel_inflated(const char *path);
/* Closes the archive this thread keeps open between members (each reading
 * thread, when it is done); then forgets what was counted, once every
 * thread is done (tree_wheels_done). */
void tree_wheel_close(void);
void tree_wheels_done(void);
#endif
