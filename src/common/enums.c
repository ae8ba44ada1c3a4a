/* The enum tables, expanded from the generated cushim-enums.h. */
#include "hidden.h"
#include "enums.h"
#include <stddef.h>

#define CUSHIM_UNPAREN(...) __VA_ARGS__
#define CUSHIM_ENUM(i, type, vals) static const struct cushim_enum_val enum_##i[] = { CUSHIM_UNPAREN vals };
#include "cushim-enums.h"
#undef CUSHIM_ENUM

const struct cushim_enum cushim_enums[CUSHIM_NENUMS] = {
#define CUSHIM_ENUM(i, type, vals) [i] = { type, (int)(sizeof enum_##i / sizeof enum_##i[0]), enum_##i },
#include "cushim-enums.h"
#undef CUSHIM_ENUM
};

const char *cushim_enum_name(int id, long long value)
{
	if (id < 0 || id >= CUSHIM_NENUMS)
		return NULL;
	for (int i = 0; i < cushim_enums[id].n; i++)
		if (cushim_enums[id].vals[i].value == value)
			return cushim_enums[id].vals[i].name;
	return NULL;
}
