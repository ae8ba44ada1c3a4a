/* What every command of cushim calls (cli.h): its messages, and the driver
 * versions it reads and prints. */
#include "cli.h"
#include "settings.h"
#include <stdarg.h>
#include <stdio.h>

const char *cli_name = "cushim";

static void vmessage(const char *fmt, va_list ap)
{
	char buf[8192];
	vsnprintf(buf, sizeof buf, fmt, ap);
	/* One write per message, so that it cannot tear against the program's output. */
	fprintf(stderr, "%s: %s\n", cli_name, buf);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

int cli_version_option(const char *option, const char *value)
{
	int v;
	if (!value || cushim_parse_version(value, &v) != 0) {
		cli_error("%s=%s is not %s", option, value ? value : "",
			  cushim_setting_named("CUSHIM_DRIVER_VERSION", -1)->accepted);
		return -1;
	}
	return v;
}

const char *cli_version(int version)
{
	static char bufs[8][16];
	static int next;
	char *b = bufs[next++ % 8];
	return cushim_format_version(version, b);
}
