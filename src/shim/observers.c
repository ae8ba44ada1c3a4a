/* The diagnostics' table of observers (observers.h): a weak reference, so
 * the shim needs no diagnostics to link (null where there are none) and
 * names nothing of theirs it calls. */
#include "observers.h"

extern const struct cushim_observers cushim_diag_observers __attribute__((weak)) CUSHIM_HIDDEN;

const struct cushim_observers *cushim_observers(void)
{
	return &cushim_diag_observers ? &cushim_diag_observers : NULL;
}
