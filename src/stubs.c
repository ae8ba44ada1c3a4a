/* The exported stubs are generated assembly (cushim-stubs.S, written by
 * tools/gensyms.py from the table): each is one load and one indirect jump
 * through cushim_slot[], whatever its arguments, and each slot starts at a
 * first-call entry that saves the argument registers, runs cushim_resolve()
 * and jumps to what it returns.  The .S also holds cushim_slot[] and
 * cushim_stub[]; this file holds what the driver gave. */
#include "cushim-internal.h"

void *cushim_real[CUSHIM_NSYMS];
