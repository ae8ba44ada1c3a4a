#!/bin/sh
# cushim check on a folder: every program and shared library in it is judged
# (a symbolic link to one counts once), what each needs is looked for as the
# loader would (its $ORIGIN rpath, the tree's own libraries, the system), and
# a library nothing provides is named: a caution when it is not a CUDA
# library (it says nothing of the driver), a failure when it is.  Symbolic
# link loops and files named like libraries that are not ELF get one line
# each.  --python=INTERPRETER walks the folders that interpreter names.
. "$top_srcdir/tests/harness/defs.sh"
CC=${BUILD_CC:-${CC:-cc}}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }

E=$T/env
mkdir -p "$E/bin" "$E/lib" "$E/pkg/libs" "$T/elsewhere"
printf 'int f(void){return 1;}\n' >"$T/f.c"
printf 'int g(void){return 2;}\n' >"$T/g.c"
printf 'int f(void); int g(void); int main(void){return f()+g();}\n' >"$T/m.c"
printf 'int g(void); int h(void){return g();}\n' >"$T/h.c"
"$CC" -shared -fPIC -o "$E/lib/libf.so.1" -Wl,-soname,libf.so.1 "$T/f.c" || exit 99
"$CC" -shared -fPIC -o "$T/elsewhere/libgone.so" -Wl,-soname,libgone.so "$T/g.c" || exit 99
# app finds libf through $ORIGIN alone; libgone is nowhere in the tree or the system.
"$CC" -o "$E/bin/app" "$T/m.c" -L"$E/lib" -l:libf.so.1 -L"$T/elsewhere" -lgone \
	-Wl,-rpath,'$ORIGIN/../lib' || exit 99
# libh needs libg, which only the tree holds (another folder, no rpath).
"$CC" -shared -fPIC -o "$E/pkg/libs/libg.so.2" -Wl,-soname,libg.so.2 "$T/g.c" || exit 99
"$CC" -shared -fPIC -o "$E/lib/libh.so" "$T/h.c" -L"$E/pkg/libs" -l:libg.so.2 || exit 99
ln -s libf.so.1 "$E/lib/libf.so"
ln -s loop-b "$E/loop-a" && ln -s loop-a "$E/loop-b"
printf 'not a library\n' >"$E/lib/libfake.so.3"
printf 'just text\n' >"$E/README.txt"

run_cmd tree "$CUSHIM" check --driver-version=12.2 "$E"
run_cmd verbose "$CUSHIM" check --verbose --driver-version=12.2 "$E"
expect_rc tree 2 # the loops and the fake library are errors
grep -q "^  $E/bin/app: caution: it needs libgone.so, which nothing" "$T/tree.out" ||
	fail "tree: app's missing libgone.so is not its row: $(cat "$T/tree.out")"
grep -q "^$E/bin/app: caution: it needs libgone.so, which nothing in the tree or the system provides .*not a CUDA library" "$T/verbose.out" ||
	fail "tree: app's missing libgone.so is not a caution in full: $(cat "$T/verbose.out")"
grep -q "^$E/bin/app: verdict: will not run" "$T/verbose.out" && fail "tree: libgone.so, no CUDA library, decides app's verdict"
head -n 1 "$T/tree.out" | grep -q "^environment: 5 files: verdict: runs on a CUDA 12.2 driver" ||
	fail "tree: a library that is not CUDA's decides the environment's verdict: $(head -n 1 "$T/tree.out")"
grep -q "^environment: caution: 1 file cannot load here for want of a library that is not CUDA's .*first $E/bin/app needs libgone.so" "$T/tree.out" ||
	fail "tree: no caution naming app and libgone.so: $(cat "$T/tree.out")"
grep -q "$E/lib/libf.so.1" "$T/tree.out" && fail "tree: libf.so.1 limits nothing, yet is shown without --verbose"
grep -q "^$E/lib/libf.so.1:" "$T/verbose.out" || fail "verbose: libf.so.1 was not judged"
grep -q "^$E/lib/libf.so:" "$T/verbose.out" && fail "tree: the symbolic link libf.so was judged as well as its file"
grep -q "^$E/lib/libh.so:" "$T/verbose.out" || fail "tree: libh.so was not judged"
grep -q "libh.so: verdict: will not run" "$T/verbose.out" && fail "tree: libh.so's libg.so.2 is in the tree, yet it fails"
grep -q "libf.so.1, which nothing" "$T/tree.out" && fail "tree: libf.so.1, found through \$ORIGIN, said missing"
grep -q "README" "$T/tree.out" "$T/tree.err" && fail "tree: a text file was judged"
for l in loop-a loop-b; do
	[ "$(grep -c "$E/$l is a symbolic link loop" "$T/tree.err")" -eq 1 ] || fail "tree: no one line for $l: $(cat "$T/tree.err")"
done
[ "$(grep -c "libfake.so.3.*not an ELF" "$T/tree.err")" -eq 1 ] || fail "tree: no one line for libfake.so.3: $(cat "$T/tree.err")"

# Without the bad files the tree runs (0), the caution stands; JSON names it.
rm "$E/loop-a" "$E/loop-b" "$E/lib/libfake.so.3"
run_cmd json "$CUSHIM" check --json --driver-version=12.2 "$E"
expect_rc json 0
grep -q '"missing_libraries": \["libgone.so"\], "missing_libraries_that_fail_it": \[\]' "$T/json.out" ||
	fail "json: libgone.so not listed: $(cat "$T/json.out")"
grep -q "\"environment\": {\"runs\": true, \"files\": 4, .*\"files_missing_other_libraries\": 1" "$T/json.out" ||
	fail "json: the environment's caution is not counted: $(tail -n 2 "$T/json.out")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/json.out" 2>/dev/null ||
	{ command -v python3 >/dev/null && fail "json: not one JSON document"; }
# Given libgone in the tree, everything passes.
cp "$T/elsewhere/libgone.so" "$E/pkg/libs/"
run_cmd whole "$CUSHIM" check --driver-version=12.2 "$E"
expect_rc whole 0
head -n 1 "$T/whole.out" | grep -q "^environment: 5 files: verdict: runs on a CUDA 12.2 driver" ||
	fail "whole: no passing environment verdict first: $(head -n 1 "$T/whole.out")"
grep -q "^$E: a folder: 5 files judged\$" "$T/whole.out" || fail "whole: no line saying what was read: $(cat "$T/whole.out")"

# The kernel's and the running system's folders are not walked: named, one
# line each (a walk of / passes over them the same way).
for d in /proc /sys /dev /run; do
	[ -d "$d" ] || continue
	run_cmd sysdir timeout 20 "$CUSHIM" check --driver-version=12.2 "$d"
	expect_rc sysdir 2
	[ "$(wc -l <"$T/sysdir.err")" -eq 1 ] && grep -q "^cushim: $d is the kernel's or the running system's .*not walked" "$T/sysdir.err" ||
		fail "$d: wanted one line saying it is not walked: $(head -c 300 "$T/sysdir.err")"
done

# A Python extension module that needs a library nothing provides loads
# only when imported: a caution naming it, not the tree's verdict; the same
# library missing for a plain shared library still fails the tree.
"$CC" -shared -fPIC -o "$T/elsewhere/libopt.so" -Wl,-soname,libopt.so "$T/g.c" || exit 99
"$CC" -shared -fPIC -o "$E/pkg/opt.cpython-312-x86_64-linux-gnu.so" "$T/h.c" -L"$T/elsewhere" -lopt || exit 99
run_cmd module "$CUSHIM" check --driver-version=12.2 "$E"
expect_rc module 0
head -n 1 "$T/module.out" | grep -q "^environment: 6 files: verdict: runs on a CUDA 12.2 driver" ||
	fail "module: an optional module decided the verdict: $(head -n 1 "$T/module.out")"
grep -q "^environment: caution: 1 Python extension module cannot be imported .*first $E/pkg/opt.cpython-312-x86_64-linux-gnu.so needs libopt.so" "$T/module.out" ||
	fail "module: no caution naming it: $(cat "$T/module.out")"
grep -q "^  $E/pkg/opt.cpython-312-x86_64-linux-gnu.so: cannot be imported: it needs libopt.so" "$T/module.out" ||
	fail "module: its row does not say so: $(cat "$T/module.out")"
run_cmd module-json "$CUSHIM" check --json --driver-version=12.2 "$E"
expect_rc module-json 0
grep -q '"environment": {"runs": true, .*"modules_that_cannot_load": 1' "$T/module-json.out" ||
	fail "module-json: $(tail -n 1 "$T/module-json.out")"
# A missing CUDA library fails the file that needs it, whatever the driver:
# named in the verdict, the module's included.
"$CC" -shared -fPIC -o "$T/elsewhere/libcublas.so.12" -Wl,-soname,libcublas.so.12 "$T/g.c" || exit 99
"$CC" -shared -fPIC -o "$E/lib/libneedsblas.so" "$T/h.c" -L"$T/elsewhere" -l:libcublas.so.12 || exit 99
run_cmd cudalib "$CUSHIM" check --driver-version=12.2 "$E"
expect_rc cudalib 1
head -n 1 "$T/cudalib.out" | grep -q "verdict: will not run on any driver: decided by $E/lib/libneedsblas.so: it needs libcublas.so.12, which nothing in the tree or the system provides" ||
	fail "cudalib: a missing CUDA library did not decide: $(head -n 1 "$T/cudalib.out")"
run_cmd cudalib-json "$CUSHIM" check --json --driver-version=12.2 "$E"
grep -q '"missing_libraries_that_fail_it": \["libcublas.so.12"\]' "$T/cudalib-json.out" ||
	fail "cudalib-json: libcublas.so.12 not listed as failing it: $(cat "$T/cudalib-json.out")"
rm "$E/lib/libneedsblas.so"
"$CC" -shared -fPIC -o "$E/lib/libneedsopt.so" "$T/h.c" -L"$T/elsewhere" -lopt || exit 99
run_cmd plainlib "$CUSHIM" check --driver-version=12.2 "$E"
expect_rc plainlib 0
grep -q "^  $E/lib/libneedsopt.so: caution: it needs libopt.so, which nothing" "$T/plainlib.out" ||
	fail "plainlib: a shared library's missing library is not named: $(cat "$T/plainlib.out")"
rm "$E/pkg/opt.cpython-312-x86_64-linux-gnu.so" "$E/lib/libneedsopt.so"

# The loader stops at a library that is empty or cut short where it looks
# ($ORIGIN in the run path): the file that needs it fails, the file named;
# it is never passed over for the system's copy.
R=$T/runpath
mkdir -p "$R/bin" "$R/lib"
printf 'int z(void){return 0;}\n' >"$T/z.c"
"$CC" -shared -fPIC -o "$T/elsewhere/libz.so.1" -Wl,-soname,libz.so.1 "$T/z.c" || exit 99
printf 'int z(void); int main(void){return z();}\n' >"$T/zm.c"
"$CC" -o "$R/bin/app" "$T/zm.c" -L"$T/elsewhere" -l:libz.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' || exit 99
: >"$R/lib/libz.so.1"
run_cmd empty "$CUSHIM" check --driver-version=12.2 "$R"
expect_rc empty 1
head -n 1 "$T/empty.out" | grep -q "verdict: will not run on any driver: decided by $R/bin/app: it needs libz.so.1, and the loader stops at $R/bin/../lib/libz.so.1: it is empty (0 bytes): \"file too short\"" ||
	fail "empty: the empty libz.so.1 is not the verdict: $(cat "$T/empty.out")"
grep -q "^environment: any driver will do" "$T/empty.out" && fail "empty: any driver will do, yet none will: $(cat "$T/empty.out")"
head -c 3000 "$T/elsewhere/libz.so.1" >"$R/lib/libz.so.1"
run_cmd cut "$CUSHIM" check --driver-version=12.2 "$R/bin"
expect_rc cut 1
grep -q "^  $R/bin/app: fails: it needs libz.so.1, and the loader stops at $R/bin/../lib/libz.so.1: it is truncated" "$T/cut.out" ||
	fail "cut: the truncated libz.so.1 is not named: $(cat "$T/cut.out")"
printf 'not a library, but long enough to hold an ELF header: more than sixty-four bytes of text\n' >"$R/lib/libz.so.1"
run_cmd text "$CUSHIM" check --driver-version=12.2 "$R/bin"
expect_rc text 1
grep -q "^  $R/bin/app: fails: .*$R/bin/../lib/libz.so.1: it is not an ELF file: \"invalid ELF header\"" "$T/text.out" ||
	fail "text: the text libz.so.1 is not named: $(cat "$T/text.out")"
cp "$T/elsewhere/libz.so.1" "$R/lib/libz.so.1"
run_cmd whole-z "$CUSHIM" check --driver-version=12.2 "$R/bin"
expect_rc whole-z 0

# $ORIGIN, $LIB and $PLATFORM in a DT_NEEDED name (a bundled Python needs
# "$ORIGIN/../lib/libpython3.12.so.1.0"), expanded as the loader does.
P=$T/py
mkdir -p "$P/bin" "$P/lib"
printf 'int g(void); int main(void){return g();}\n' >"$T/gm.c"
"$CC" -shared -fPIC -o "$P/lib/libpy.so.1" -Wl,-soname,'$ORIGIN/../lib/libpy.so.1' "$T/g.c" || exit 99
"$CC" -o "$P/bin/python" "$T/gm.c" "$P/lib/libpy.so.1" || exit 99
run_cmd origin "$CUSHIM" check --driver-version=12.2 "$P/bin"
expect_rc origin 0
grep -q "libpy.so.1" "$T/origin.out" && fail "origin: \$ORIGIN/../lib/libpy.so.1 said missing: $(cat "$T/origin.out")"
triplet=$("$CC" -dumpmachine 2>/dev/null)
case $triplet in
x86_64-*linux-gnu | aarch64-*linux-gnu) lib=lib/${triplet%%-*}-linux-gnu ;;
*) lib= ;;
esac
if [ -n "$lib" ] && [ "${triplet%%-*}" = "$(uname -m)" ]; then
	mkdir -p "$P/$lib"
	"$CC" -shared -fPIC -o "$P/$lib/libw.so.1" -Wl,-soname,'$ORIGIN/../$LIB/libw.so.1' "$T/g.c" || exit 99
	"$CC" -o "$P/bin/wapp" "$T/gm.c" "$P/$lib/libw.so.1" || exit 99
	run_cmd lib "$CUSHIM" check --driver-version=12.2 "$P/bin"
	grep -q "libw.so.1" "$T/lib.out" && fail "lib: \$ORIGIN/../\$LIB/libw.so.1 said missing: $(cat "$T/lib.out")"
	rm "$P/bin/wapp"
fi
rm "$P/lib/libpy.so.1"
run_cmd noorigin "$CUSHIM" check --driver-version=12.2 "$P/bin"
grep -q "^  $P/bin/python: caution: it needs $P/bin/../lib/libpy.so.1, which nothing" "$T/noorigin.out" ||
	fail "noorigin: the missing library is not named by its path: $(cat "$T/noorigin.out")"

# --python=INTERPRETER: the folders it prints are walked.
printf '#!/bin/sh\necho %s/no-such-folder\necho %s\n' "$E" "$E/pkg" >"$T/fake-python"
chmod +x "$T/fake-python"
run_cmd python "$CUSHIM" check --verbose --driver-version=12.2 --python="$T/fake-python"
expect_rc python 0
grep -q "^$E/pkg/libs/libg.so.2:" "$T/python.out" || fail "python: its site folder was not walked: $(cat "$T/python.out")"
grep -q "^$E/bin/app" "$T/python.out" && fail "python: a folder it did not name was walked"
# What was read is said: the interpreter and each folder it named.
grep -q "^$T/fake-python: site-packages $E/no-such-folder: does not exist; not read\$" "$T/python.out" ||
	fail "python: the folder that does not exist is not said: $(cat "$T/python.out")"
grep -q "^$T/fake-python: site-packages $E/pkg: 2 files judged\$" "$T/python.out" ||
	fail "python: the folder read is not said: $(cat "$T/python.out")"
if command -v python3 >/dev/null 2>&1; then
	run_cmd python3 "$CUSHIM" check --driver-version=12.2 --python=python3
	grep -q "^python3: the interpreter /.* (Python [0-9][0-9.]*)\$" "$T/python3.out" ||
		fail "python3: the interpreter is not named: $(cat "$T/python3.out")"
	grep -q "^python3: site-packages /" "$T/python3.out" || fail "python3: no site-packages named: $(cat "$T/python3.out")"
fi
# An interpreter that cannot be asked, or none named: one line, exit 2, no verdict.
run_cmd nopython "$CUSHIM" check --driver-version=12.2 --python="$T/no-such-python"
expect_rc nopython 2
[ "$(wc -l <"$T/nopython.err")" -eq 1 ] || fail "nopython: wanted one line: $(cat "$T/nopython.err")"
[ -s "$T/nopython.out" ] && fail "nopython: a verdict follows the error: $(cat "$T/nopython.out")"
run_cmd emptypython "$CUSHIM" check --driver-version=12.2 --python= "$E"
expect_rc emptypython 2
[ "$(wc -l <"$T/emptypython.err")" -eq 1 ] && [ ! -s "$T/emptypython.out" ] ||
	fail "emptypython: wanted one line and no verdict: $(cat "$T/emptypython.err") $(cat "$T/emptypython.out")"

# A container image's root (etc/os-release, usr/lib): its own libraries
# stand for the system's, so the host's C library does not count.
I=$T/image
mkdir -p "$I/etc" "$I/usr/lib" "$I/usr/bin"
printf 'ID=test\n' >"$I/etc/os-release"
cp "$E/pkg/libs/libg.so.2" "$I/usr/lib/"
"$CC" -o "$I/usr/bin/app" "$T/m.c" -L"$E/lib" -l:libf.so.1 -L"$T/elsewhere" -lgone || exit 99
cp "$E/lib/libf.so.1" "$T/elsewhere/libgone.so" "$I/usr/lib/"
libc=$(ldd "$I/usr/bin/app" 2>/dev/null | sed -n 's/^[[:space:]]*\(libc\.so\.[0-9]*\) => \([^ ]*\).*/\1 \2/p')
run_cmd image "$CUSHIM" check --driver-version=12.2 "$I"
if [ -n "$libc" ]; then
	expect_rc image 0
	grep -q "^  $I/usr/bin/app: caution: it needs ${libc%% *}, which nothing" "$T/image.out" ||
		fail "image: the host's ${libc%% *} served the image: $(cat "$T/image.out")"
	cp "${libc#* }" "$I/usr/lib/"
	run_cmd image2 "$CUSHIM" check --driver-version=12.2 "$I"
	grep -q "^  $I/usr/bin/app: \(fails\|caution\)" "$T/image2.out" && fail "image2: app lacks a library with its C library in the image: $(cat "$T/image2.out")"
fi

exit $((failures > 0))
