#!/bin/sh
# Every exported stub is one load and one indirect jump through its own slot,
# whatever its arguments (cuLaunchKernel's eleven too): in libcushim.so as
# built (the build's objdump: the cross build's own for its library), and,
# when the cross compiler is installed
# (gcc-aarch64-linux-gnu), in the same cushim-stubs.S assembled for aarch64,
# plain and with BTI landing pads.
. "$top_srcdir/tests/table/defs.sh"
tsv=$top_builddir/src/cushim-syms.tsv
lib=$top_builddir/.libs/libcushim.so
check() { # ARCH DISASSEMBLY
	"$PYTHON" "$top_srcdir/tests/table/tabletest.py" stubs --tsv "$tsv" --disasm "$2" --arch "$1" || fail "$1 stubs"
}
OBJDUMP=${BUILD_OBJDUMP:-}
arch=$(${OBJDUMP:-objdump} -f "$lib" | sed -n 's/^architecture: //p')
case $arch in
i386:x86-64*) ${OBJDUMP:-objdump} -dr --no-show-raw-insn "$lib" >"$T/native.dis" && check x86_64 "$T/native.dis" ;;
aarch64*) ${OBJDUMP:-objdump} -t -dr --no-show-raw-insn "$lib" >"$T/native.dis" && check aarch64 "$T/native.dis" ;;
*) fail "libcushim.so is built for $arch (${OBJDUMP:-objdump} -f), which this test does not know" ;;
esac
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v aarch64-linux-gnu-objdump >/dev/null; then
	for flags in "" "-mbranch-protection=standard"; do
		aarch64-linux-gnu-gcc $flags -c -o "$T/a64.o" "$top_builddir/src/cushim-stubs.S" ||
			{ fail "cushim-stubs.S does not assemble for aarch64 ($flags)"; continue; }
		aarch64-linux-gnu-objdump -dr --no-show-raw-insn "$T/a64.o" >"$T/a64.dis"
		check aarch64 "$T/a64.dis"
	done
	aarch64-linux-gnu-readelf -n "$T/a64.o" | grep -q 'AArch64 feature: BTI' || fail "no BTI property note"
else
	echo "disasm: no aarch64-linux-gnu-gcc (Debian: gcc-aarch64-linux-gnu): the aarch64 stubs are not checked"
fi
finish
