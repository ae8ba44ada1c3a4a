/* ELF machines: the one this command is built for, and those whose binaries
 * `cushim check` reads (the 64-bit machines CUDA has drivers for: a binary's
 * driver imports mean the same on each, so an AArch64 program can be checked
 * on an x86-64 host and the other way round). */
#include "config.h"
#include "cli.h"
#include <gelf.h>
#include <stdio.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#else
#error "cushim: add this machine's e_machine"
#endif
#if __SIZEOF_POINTER__ == 8
#define NATIVE_CLASS ELFCLASS64
#else
#define NATIVE_CLASS ELFCLASS32
#endif

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386: return "i386";
	case EM_X86_64: return "x86-64";
	case EM_ARM: return "32-bit ARM";
	case EM_AARCH64: return "AArch64";
	case EM_PPC64: return "POWER (ppc64)";
	case EM_RISCV: return "RISC-V";
	case 190: return "NVIDIA GPUs (a cubin)"; /* EM_CUDA */
	default: return NULL;
	}
}

static int cuda_machine(unsigned m)
{
	return m == EM_X86_64 || m == EM_AARCH64 || m == EM_PPC64;
}

const char *cli_native_machine(void)
{
	return machine_name(NATIVE_MACHINE);
}

void cli_native_elf(int *cls, int *data, unsigned *machine)
{
	*cls = NATIVE_CLASS;
	*data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	*machine = NATIVE_MACHINE;
}

/* The ELF header of an ELF file of the native class, or why not. */
static int native_class_header(Elf *elf, GElf_Ehdr *eh, const char **why)
{
	int cls = gelf_getclass(elf);

	if (elf_kind(elf) != ELF_K_ELF) {
		*why = "not an ELF file";
		return 0;
	}
	if (cls != NATIVE_CLASS) {
		*why = cls == ELFCLASS32 ? "a 32-bit ELF file (ELFCLASS32)" :
		       cls == ELFCLASS64 ? "a 64-bit ELF file (ELFCLASS64)" : "an ELF file of an unknown class";
		return 0;
	}
	if (!gelf_getehdr(elf, eh)) {
		*why = "a truncated or corrupt ELF file (no readable ELF header)";
		return 0;
	}
	return 1;
}

static const char *for_machine(unsigned m)
{
	static __thread char buf[128]; /* cushim check reads files on several threads */
	const char *name = machine_name(m);
	if (name)
		snprintf(buf, sizeof buf, "an ELF file for %s", name);
	else
		snprintf(buf, sizeof buf, "an ELF file for another machine (e_machine %u)", m);
	return buf;
}

int cli_elf_machine_ok(Elf *elf, const char **why)
{
	GElf_Ehdr eh;

	if (!native_class_header(elf, &eh, why))
		return 0;
	if (eh.e_machine != NATIVE_MACHINE) {
		*why = for_machine(eh.e_machine);
		return 0;
	}
	return 1;
}

int cli_elf_checkable(Elf *elf, const char **machine, const char **why)
{
	static __thread char buf[256];
	GElf_Ehdr eh;
	const char *bad;

	if (!native_class_header(elf, &eh, &bad)) {
		if (elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) != NATIVE_CLASS)
			snprintf(buf, sizeof buf, "%s; cushim check reads %d-bit ELF files", bad,
				 __SIZEOF_POINTER__ * 8);
		else
			snprintf(buf, sizeof buf, "%s", bad);
		*why = buf;
		return 0;
	}
	if (!cuda_machine(eh.e_machine)) {
		snprintf(buf, sizeof buf, "%s; cushim check reads x86-64, AArch64 and POWER files",
			 for_machine(eh.e_machine));
		*why = buf;
		return 0;
	}
	*machine = machine_name(eh.e_machine);
	return eh.e_machine == NATIVE_MACHINE ? 1 : 2;
}
