/* Every enum of the toolkit's headers, from the generated cushim-enums.h. */
#ifndef CUSHIM_ENUMS_H
#define CUSHIM_ENUMS_H
#include "cushim-enums.h"

struct cushim_enum_val {
	long long value;
	const char *name;
	const char *doc;
};
struct cushim_enum {
	const char *type;
	int n;
	const struct cushim_enum_val *vals;
};
extern const struct cushim_enum cushim_enums[CUSHIM_NENUMS] __attribute__((visibility("hidden")));
const char *cushim_enum_name(int id, long long value) __attribute__((visibility("hidden")));
#endif
