/* What cushim run refuses before the program starts (run.c calls it): a
 * --lib that is no cushim library, a CUSHIM_* variable whose value the
 * library would not take, and an output file (the log's, the summary's, the
 * timeline's, the record file) whose folder cannot take it.  Each is one
 * line, and cushim run exits 125: a profiler says so before it starts, not
 * after. */
#include "config.h"
#include "cli.h"
#include "settings.h"
#include "conf.h"
#include "table.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does the ELF file at path define sym among its dynamic symbols? */
static int defines(const char *path, const char *sym)
{
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type), found = 0;
	Elf *elf = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize && !found; k++) {
			GElf_Sym s;
			const char *n;
			found = gelf_getsym(d, (int)k, &s) && s.st_shndx != SHN_UNDEF &&
				(n = elf_strptr(elf, sh.sh_link, s.st_name)) && strcmp(n, sym) == 0;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

int cli_run_check_lib(const char *path)
{
	if (cli_elf_native(path) && defines(path, "cushim_driver_version"))
		return 0;
	cli_error("%s is not a cushim library (no libcushim.so of this machine: it defines no cushim_driver_version); "
		  "name one with --lib=PATH, or leave --lib out", path);
	return -1;
}

/* Each CUSHIM_* variable as the library will read it. */
static int check_values(void)
{
	char why[256];
	for (int i = 0; i < cushim_nsettings; i++) {
		const struct cushim_setting *s = &cushim_settings[i];
		const char *v = getenv(s->name); /* as set: secure_getenv would hide it here too */
		if (v && *v && cushim_setting_verdict(s, v, why, (int)sizeof why)) { /* empty: a way to unset */
			cli_error("%s=%s: %s (cushim run takes no bad value: unset it, or give one it takes)", s->name, v,
				  why);
			return -1;
		}
	}
	const char *v = cushim_setting_env("CUSHIM_DRIVER_VERSION");
	int version = 0;
	if (v && *v && cushim_parse_version(v, &version) == 0 && version > CUSHIM_NEWEST_VERSION) {
		cli_error("CUSHIM_DRIVER_VERSION=%s: no CUDA %s is known (the newest this cushim knows is %s): a driver "
			  "can only be emulated as older", v, v, cli_version(CUSHIM_NEWEST_VERSION));
		return -1;
	}
	return 0;
}

/* The folder of the output file setting name names, where it names one:
 * it, or the nearest folder above it that exists (the program may make the
 * rest), must be a folder that can take a new entry. */
static int check_output(const char *name)
{
	const char *v = cushim_setting_env(name);
	char dir[PATH_MAX], *slash;
	struct stat st;
	if (!v || !*v || strcmp(v, "0") == 0 || strcmp(v, "1") == 0 || strlen(v) >= sizeof dir)
		return 0;
	snprintf(dir, sizeof dir, "%s", v);
	do {
		slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof dir, ".");
		else
			*(slash == dir ? slash + 1 : slash) = '\0';
	} while (stat(dir, &st) != 0 && errno == ENOENT && slash && strcmp(dir, "/") != 0);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0)
		return 0;
	cli_error("%s=%s: %s %s", name, v, dir, stat(dir, &st) == 0 && !S_ISDIR(st.st_mode) ? "is not a folder" :
		  "cannot take a new file");
	return -1;
}

int cli_run_check_settings(void)
{
	static const char *const outputs[] = { "CUSHIM_LOG_FILE", "CUSHIM_SUMMARY", "CUSHIM_TIMELINE", "CUSHIM_RECORD" };
	if (check_values() != 0)
		return -1;
	for (size_t k = 0; k < sizeof outputs / sizeof *outputs; k++)
		if (check_output(outputs[k]) != 0)
			return -1;
	return 0;
}
