/* C++ names as their source writes them ("app::launch(int)" for
 * "_ZN3app6launchEi"), by the C++ runtime's demangler: __cxa_demangle, the
 * Itanium C++ ABI's, which libstdc++ carries (configure links it).  Without
 * it, or for a name it does not take, the name is given as the symbol table
 * has it. */
#include "config.h"
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>

#ifdef HAVE_CXA_DEMANGLE
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);
#endif

const char *cli_demangle(const char *name, char *buf, size_t size)
{
#ifdef HAVE_CXA_DEMANGLE
	int status = -1;
	char *plain = name[0] == '_' && name[1] == 'Z' ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
	if (plain && status == 0) {
		snprintf(buf, size, "%s", plain);
		free(plain);
		return buf;
	}
	free(plain);
#else
	(void)buf, (void)size;
#endif
	return name;
}
