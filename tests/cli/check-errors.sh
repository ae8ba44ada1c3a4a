#!/bin/sh
# cushim check on files that are no program for this machine: each gives exit
# status 2 and one message naming the file; a program with no cu* imports passes.
. "$top_srcdir/tests/cli/defs.sh"

# expect_error NAME PATTERN FILE: exit 2, one line on stderr naming FILE and matching PATTERN.
expect_error() {
	run_cmd "$1" "$CUSHIM" check --driver-version=11.4 "$3"
	expect_rc "$1" 2
	[ "$(wc -l <"$T/$1.err")" -eq 1 ] || fail "$1: wanted one message, got: $(cat "$T/$1.err")"
	grep -qF "$3" "$T/$1.err" || fail "$1: the message does not name $3: $(cat "$T/$1.err")"
	grep -Eq "$2" "$T/$1.err" || fail "$1: the message does not say /$2/: $(cat "$T/$1.err")"
	[ -s "$T/$1.out" ] && fail "$1: printed a verdict for a file it could not read"
}

# A system program without CUDA imports passes with a plain statement.
true_bin=$(command -v true)
case $true_bin in /*) ;; *) true_bin=/bin/true ;; esac
run_cmd true "$CUSHIM" check --driver-version=11.4 "$true_bin"
expect_rc true 0
grep -q "^$true_bin: imports no CUDA driver function" "$T/true.out" || fail "$true_bin: no plain statement: $(cat "$T/true.out")"
[ -s "$T/true.err" ] && fail "$true_bin: unexpected message $(cat "$T/true.err")"

printf 'just some text\n' >"$T/text"
expect_error text "not an ELF file" "$T/text"
: >"$T/empty"
expect_error empty "empty" "$T/empty"
head -c 100 "$true_bin" >"$T/truncated"
expect_error truncated "truncated" "$T/truncated"
# Cut at half: the ELF header is whole, the tables are not.
size=$(wc -c <"$true_bin")
head -c $((size / 2)) "$true_bin" >"$T/half"
expect_error half "truncated" "$T/half"
expect_error missing "cannot be opened" "$T/no-such-file"
expect_error directory "directory" "$T"

# A 32-bit ELF: built with gcc -m32 where it can, and always a hand-made
# 52-byte ELF32 header (i386 executable, no tables).
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\064\000\040\000\000\000\050\000\000\000\000\000' >"$T/elf32"
[ "$(wc -c <"$T/elf32")" -eq 52 ] || { echo "the ELF32 header is not 52 bytes" >&2; exit 99; }
expect_error elf32 "32-bit" "$T/elf32"
printf 'int main(void) { return 0; }\n' >"$T/m32.c"
if ${CC:-cc} -m32 -o "$T/m32" "$T/m32.c" 2>/dev/null; then
	expect_error m32 "32-bit" "$T/m32"
fi
# A 64-bit ELF for another machine (AArch64 on x86-64, x86-64 elsewhere).
machine='\267\000'
[ "$(uname -m)" = aarch64 ] && machine='\076\000'
printf "\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000$machine\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\100\000\070\000\000\000\100\000\000\000\000\000" >"$T/foreign"
[ "$(wc -c <"$T/foreign")" -eq 64 ] || { echo "the ELF64 header is not 64 bytes" >&2; exit 99; }
expect_error foreign "ELF file for" "$T/foreign"

# Several files: each is judged, the worst status wins.
run_cmd mixed "$CUSHIM" check --driver-version=11.4 "$true_bin" "$T/text"
expect_rc mixed 2
grep -q "^$true_bin: imports no CUDA driver function" "$T/mixed.out" || fail "mixed: the good file was not reported"
# No file at all is a usage error.
run_cmd nofile "$CUSHIM" check
expect_rc nofile 2
finish
