/* An audit library (LD_AUDIT, rtld-audit(7)) for invisible-until-used:
 * every symbol that libcushim.so looks up through dlsym or dlvsym is said on
 * stderr, "symaudit: libcushim.so looked up NAME", with write(2) so that it
 * falls in order among the program's own lines.  Built without the
 * sanitizers: it runs in a namespace of its own, without their runtime. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/* The cookie says whether the object is cushim's. */
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	*cookie = map->l_name && strstr(map->l_name, "libcushim") != NULL;
	return LA_FLG_BINDFROM | LA_FLG_BINDTO;
}

static void say(const char *name)
{
	static const char head[] = "symaudit: libcushim.so looked up ";
	char line[512];
	size_t n = strlen(name) < sizeof line - sizeof head - 1 ? strlen(name) : sizeof line - sizeof head - 1;
	memcpy(line, head, sizeof head - 1);
	memcpy(line + sizeof head - 1, name, n);
	line[sizeof head - 1 + n] = '\n';
	(void)!write(2, line, sizeof head + n);
}

uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook,
		       unsigned int *flags, const char *symname)
{
	(void)ndx, (void)defcook;
	if (*refcook && (*flags & LA_SYMB_DLSYM))
		say(symname);
	return sym->st_value;
}
