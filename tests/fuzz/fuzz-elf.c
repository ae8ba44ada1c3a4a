/* libFuzzer target for the ELF reading of `cushim check` (src/cli/check.c,
 * cli_check_read): the input is written to a memfd and read by path, as the
 * command reads a file.  Any input must give either a result or a reason. */
#include "config.h"
#include "cli.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64], why[4096];
	size_t nimports = 0;
	if (fd < 0 && (fd = memfd_create("fuzz-elf", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	why[0] = 'x', why[1] = '\0';
	if (cli_check_read(path, &nimports, why, sizeof why) && why[0] == '\0')
		abort(); /* an error always says why */
	return 0;
}
