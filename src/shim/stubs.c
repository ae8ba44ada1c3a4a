/* The exported stubs are generated assembly (cushim-stubs.S, written by
 * tools/gensyms.py from the table): each is one load and one indirect jump
 * through cushim_slot[], whatever its arguments, and each slot starts at a
 * first-call entry that saves the argument registers, runs cushim_resolve()
 * and jumps to what it returns.  The .S also holds cushim_slot[] and
 * cushim_stub[]; this file holds the slot load of a ThreadSanitizer build. */
#include "table.h"
#include "slots.h"

/* Under ThreadSanitizer the stubs load their slot here, where the sanitizer
 * sees the acquire that pairs with the bootstrap's release store (in the
 * assembly it would see nothing, and report what the targets read as races). */
void *cushim_slot_acquire(unsigned i)
{
	return __atomic_load_n(&cushim_slot[i], __ATOMIC_ACQUIRE);
}
