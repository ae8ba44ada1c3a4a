#!/bin/sh
# cushim check never opens what is not a regular file: a FIFO named on the
# command line, a symbolic link to one, a FIFO named like a wheel, FIFOs and
# sockets in a folder, and a FIFO where a library a program needs is looked
# for (its $ORIGIN run path, LD_LIBRARY_PATH) would each block an open for
# ever.  Each command runs under timeout: blocking is a failure.  The loader
# itself blocks on such a library: the program that needs it fails, named.
. "$top_srcdir/tests/harness/defs.sh"
CC=${BUILD_CC:-${CC:-cc}}
command -v mkfifo >/dev/null 2>&1 || { echo "SKIP: no mkfifo"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout"; exit 77; }
unset LD_LIBRARY_PATH

# check_t NAME ARGS...: cushim check under a 20 s timeout; blocking fails.
check_t() {
	n=$1
	shift
	run_cmd "$n" timeout 20 "$CUSHIM" check --driver-version=12.2 "$@"
	[ "$rc" -ne 124 ] || fail "$n: cushim check blocked (killed after 20 s)"
}

mkfifo "$T/fifo" "$T/fifo.whl" || exit 99
ln -s fifo "$T/link"
for f in fifo link fifo.whl; do
	check_t "$f" "$T/$f"
	expect_rc "$f" 2
	[ "$(wc -l <"$T/$f.err")" -eq 1 ] && grep -q "$T/$f.* a FIFO, not a regular file" "$T/$f.err" ||
		fail "$f: wanted one line saying it is a FIFO: $(cat "$T/$f.err")"
	[ -s "$T/$f.out" ] && fail "$f: printed a verdict for a FIFO: $(cat "$T/$f.out")"
done

# A folder: its FIFOs, a link to one and a socket are passed over, never
# opened; the program beside them is judged.
D=$T/dir
mkdir -p "$D"
mkfifo "$D/libfifo.so.1" "$D/kernel.fatbin" "$D/plain" || exit 99
ln -s plain "$D/libplain.so"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$D/libsock.so" 2>/dev/null
true_bin=$(command -v true)
case $true_bin in /*) ;; *) true_bin=/bin/true ;; esac
cp "$true_bin" "$D/prog" || exit 99
check_t folder "$D"
grep -q "^environment: 1 file" "$T/folder.out" ||
	fail "folder: the program beside the FIFOs was not judged alone: $(cat "$T/folder.out") $(cat "$T/folder.err")"

# A library a program needs, where the loader looks, is a FIFO: through its
# $ORIGIN run path (in a folder and with --recursive) and LD_LIBRARY_PATH.
if command -v "$CC" >/dev/null 2>&1; then
	printf 'int f(void){return 0;}\n' >"$T/f.c"
	printf 'int f(void); int main(void){return f();}\n' >"$T/m.c"
	mkdir -p "$T/e/bin" "$T/e/lib" "$T/ld"
	"$CC" -shared -fPIC -o "$T/libq.so.1" -Wl,-soname,libq.so.1 "$T/f.c" || exit 99
	"$CC" -o "$T/e/bin/app" "$T/m.c" "$T/libq.so.1" -Wl,-rpath,'$ORIGIN/../lib' || exit 99
	mkfifo "$T/e/lib/libq.so.1" "$T/ld/libq.so.1" || exit 99
	check_t runpath "$T/e/bin"
	expect_rc runpath 1
	head -n 1 "$T/runpath.out" | grep -q "decided by $T/e/bin/app: it needs libq.so.1, and the loader stops at $T/e/bin/../lib/libq.so.1: it is a FIFO" ||
		fail "runpath: the FIFO is not named: $(cat "$T/runpath.out")"
	check_t recursive --recursive "$T/e/bin/app"
	expect_rc recursive 1
	grep -q "libq.so.1 (needed by $T/e/bin/app): the loader stops at $T/e/bin/../lib/libq.so.1: it is a FIFO" "$T/recursive.err" ||
		fail "recursive: the FIFO is not named: $(cat "$T/recursive.err")"
	rm "$T/e/lib/libq.so.1"
	export LD_LIBRARY_PATH="$T/ld"
	check_t ldpath --recursive "$T/e/bin/app"
	expect_rc ldpath 1
	grep -q "the loader stops at $T/ld/libq.so.1: it is a FIFO" "$T/ldpath.err" ||
		fail "ldpath: the FIFO is not named: $(cat "$T/ldpath.err")"
	check_t ldpath-tree "$T/e/bin"
	expect_rc ldpath-tree 1
	grep -q "^  $T/e/bin/app: fails: it needs libq.so.1, and the loader stops at $T/ld/libq.so.1: it is a FIFO" "$T/ldpath-tree.out" ||
		fail "ldpath-tree: the FIFO is not named: $(cat "$T/ldpath-tree.out")"
	unset LD_LIBRARY_PATH
else
	echo "no C compiler ($CC): the needed-library cases are not run"
fi
finish
