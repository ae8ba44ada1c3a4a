/* A Python interpreter's site-packages for cushim check (check-python.c). */
#ifndef CUSHIM_CLI_CHECK_PYTHON_H
#define CUSHIM_CLI_CHECK_PYTHON_H
#include "check-tree.h"

/* The site-packages folders of a Python interpreter (python3 when NULL),
 * found by asking it: how many were added to t's walk, or -1 (said). */
int tree_python(struct tree *t, const char *interpreter);
#endif
