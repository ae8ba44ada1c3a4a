/* The bootstrap's sequence (boot.c): what it calls a runtime's adoption,
 * once the driver is initialised.  The slots and the bootstrap's entry are
 * slots.h's; what it found is state.h's. */
#ifndef CUSHIM_BOOT_H
#define CUSHIM_BOOT_H

/* Take a loaded runtime's entry points once the driver is initialised. */
void cushim_adopt_runtime(void);
#endif
