#!/bin/sh
# cushim check on files that are no program it can read: each gives exit
# status 2 and one message naming the file; a program with no cu* imports
# passes.  A program for another machine CUDA runs on (AArch64 on x86-64,
# x86-64 on AArch64) is read as any other, and its machine is named.
. "$top_srcdir/tests/harness/defs.sh"

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
mkdir "$T/nothing-here"
expect_error directory "directory holding no program" "$T/nothing-here"

# A 32-bit ELF: built with gcc -m32 where it can, and always a hand-made
# 52-byte ELF32 header (i386 executable, no tables).
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\064\000\040\000\000\000\050\000\000\000\000\000' >"$T/elf32"
[ "$(wc -c <"$T/elf32")" -eq 52 ] || { echo "the ELF32 header is not 52 bytes" >&2; exit 99; }
expect_error elf32 "32-bit" "$T/elf32"
printf 'int main(void) { return 0; }\n' >"$T/m32.c"
if ${CC:-cc} -m32 -o "$T/m32" "$T/m32.c" 2>/dev/null; then
	expect_error m32 "32-bit" "$T/m32"
fi
# 64-bit ELF headers (executables, no tables) for x86-64 (62), AArch64 (183)
# and RISC-V (243): the first two are read, and the one that is not the
# command's own machine is named; RISC-V, where CUDA does not run, is refused.
elf64() { # FILE E_MACHINE-BYTES
	printf "\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000$2\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\100\000\070\000\000\000\100\000\000\000\000\000" >"$1"
	[ "$(wc -c <"$1")" -eq 64 ] || { echo "the ELF64 header is not 64 bytes" >&2; exit 99; }
}
own=$(od -An -tu2 -j18 -N2 "$top_builddir/cushim" | tr -d ' ')
case $own in 62) own=x86-64 ;; 183) own=AArch64 ;; *) own=other ;; esac
for m in x86-64:'\076\000' AArch64:'\267\000'; do
	mach=${m%%:*}
	elf64 "$T/elf-$mach" "${m#*:}"
	run_cmd "elf-$mach" "$CUSHIM" check --driver-version=11.4 "$T/elf-$mach"
	expect_rc "elf-$mach" 0
	grep -q "^$T/elf-$mach: imports no CUDA driver function" "$T/elf-$mach.out" ||
		fail "$mach header: no plain statement: $(cat "$T/elf-$mach.out")"
	[ -s "$T/elf-$mach.err" ] && fail "$mach header: unexpected message $(cat "$T/elf-$mach.err")"
	said=$(grep -c "^$T/elf-$mach: a binary for $mach (this cushim is built for $own)\$" "$T/elf-$mach.out")
	if [ "$mach" = "$own" ]; then
		[ "$said" -eq 0 ] || fail "$mach header: named as another machine's on $own"
	else
		[ "$said" -eq 1 ] || fail "$mach header: not named as $mach's on $own: $(cat "$T/elf-$mach.out")"
	fi
done
elf64 "$T/riscv" '\363\000'
expect_error riscv "ELF file for RISC-V" "$T/riscv"

# A shared object for the other machine, made by the first compiler at hand
# that targets it: its imports are judged as a native one's would be.
printf 'int cuCtxCreate_v4(void), cuMemcpyBatchAsync_v2(void), cuInit(unsigned);\n%s\n' \
	'int f(void) { return cuInit(0) + cuCtxCreate_v4() + cuMemcpyBatchAsync_v2(); }' >"$T/other.c"
other=
for cc in aarch64-linux-gnu-gcc x86_64-linux-gnu-gcc gcc cc; do
	command -v $cc >/dev/null 2>&1 && $cc -shared -fPIC -o "$T/other.so" "$T/other.c" 2>/dev/null || continue
	m=$(od -An -tu2 -j18 -N2 "$T/other.so" | tr -d ' ')
	case $m in 62) other=x86-64 ;; 183) other=AArch64 ;; esac
	[ -n "$other" ] && [ "$other" != "$own" ] && break
	other=
done
if [ -n "$other" ]; then
	run_cmd other "$CUSHIM" check --driver-version=11.4 "$T/other.so"
	expect_rc other 1
	grep -q "^$T/other.so: a binary for $other (this cushim is built for $own)\$" "$T/other.out" ||
		fail "the $other library is not named as such: $(cat "$T/other.out")"
	grep -q "^$T/other.so: needs a CUDA $(oracle_version cuMemcpyBatchAsync_v2) driver (3 driver imports)" "$T/other.out" ||
		fail "the $other library: wrong verdict: $(cat "$T/other.out")"
	for n in cuCtxCreate_v4 cuMemcpyBatchAsync_v2; do
		grep -Eq "^  $n +$(oracle_version $n)  (missing|adapted: .*)\$" "$T/other.out" ||
			fail "the $other library: $n is not judged newer than 11.4: $(cat "$T/other.out")"
	done
	run_cmd otherjson "$CUSHIM" check --json --driver-version=11.4 "$T/other.so"
	python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["files"][0]
assert f["machine"] == sys.argv[2] and f["this_machine"] is False, f' "$T/otherjson.out" "$other" ||
		fail "--json does not name the $other library's machine"
else
	echo "no compiler for the machine other than $own here: the foreign library case is not run"
fi

# Several files: each is judged, the worst status wins.
run_cmd mixed "$CUSHIM" check --driver-version=11.4 "$true_bin" "$T/text"
expect_rc mixed 2
grep -q "^$true_bin: imports no CUDA driver function" "$T/mixed.out" || fail "mixed: the good file was not reported"
# No file at all is a usage error.
run_cmd nofile "$CUSHIM" check
expect_rc nofile 2

# Every bad option value: one line naming it, exit 2, no verdict.
n=0
for opt in --gpu= --gpu=, --gpu=sm_999 --gpu=sm_80a --gpu=sm_90f --gpu=+90 --driver-version= --driver-version=abc \
	--lib=$T/no-such-lib --python= --json=1 --recursive=yes --bogus -x; do
	n=$((n + 1))
	run_cmd "opt$n" "$CUSHIM" check --driver-version=12.2 "$opt" "$true_bin"
	expect_rc "opt$n" 2
	[ "$(wc -l <"$T/opt$n.err")" -eq 1 ] || fail "$opt: wanted one line, got: $(cat "$T/opt$n.err")"
	[ -s "$T/opt$n.out" ] && fail "$opt: a verdict follows the error: $(cat "$T/opt$n.out")"
done
# NVIDIA's arch- and family-specific names are GPUs too.
for g in sm_90a sm_100a sm_100f sm_120f sm_90,sm_100a 9.0 90; do
	run_cmd gpu "$CUSHIM" check --driver-version=12.2 --gpu=$g "$true_bin"
	expect_rc gpu 0
	grep -q "^$true_bin: on ${g%%,*}\(, \|: \)" "$T/gpu.out" || [ "$g" = 9.0 ] || [ "$g" = 90 ] ||
		fail "--gpu=$g: not named as given: $(cat "$T/gpu.out") $(cat "$T/gpu.err")"
done
finish
