/* What cushim's files share with each other but never export. */
#ifndef CUSHIM_HIDDEN_H
#define CUSHIM_HIDDEN_H
#include <config.h> /* first, as in every file of cushim: _GNU_SOURCE */

#define CUSHIM_HIDDEN __attribute__((visibility("hidden")))

#endif
