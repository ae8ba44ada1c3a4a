#!/bin/sh
# cushim check reads a wheel's deflated members whole through libdeflate (raw
# deflate over the member's stored bytes, its CRC-32 checked), a stored one
# through libzip, and says so under --verbose; a member whose bytes are
# damaged is one line naming it (its CRC-32 is checked: libzip's reader,
# asked for the recorded size, did not), and the rest is judged.  The verdicts are
# those of the same files unpacked.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_PRELOAD CUSHIM_DRIVER_VERSION
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
grep -q '^#define HAVE_LIBDEFLATE 1' "$top_builddir/config.h" || { echo "SKIP: built without libdeflate"; exit 77; }
grep -q '^#define HAVE_LIBZIP 1' "$top_builddir/config.h" || { echo "SKIP: built without libzip"; exit 77; }
ELF=$top_builddir/tests/cli/cuda13-app
[ -f "$ELF" ] || { echo "SKIP: no $ELF"; exit 77; }
W=$T/demo-1.0-py3-none-linux_x86_64.whl
B=$T/broken-1.0-py3-none-linux_x86_64.whl
python3 - "$ELF" "$W" "$B" <<'PY' || exit 99
import sys, zipfile
elf = open(sys.argv[1], "rb").read()
def wheel(path, name):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("demo/libdeflated.so"), elf, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo("demo/libstored.so"), elf, compress_type=zipfile.ZIP_STORED)
        z.writestr(name + "-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
wheel(sys.argv[2], "demo")
wheel(sys.argv[3], "broken")
# damage the deflated member's stored bytes, halfway through them
z = zipfile.ZipFile(sys.argv[3])
i = z.getinfo("demo/libdeflated.so")
data = bytearray(open(sys.argv[3], "rb").read())
start = i.header_offset + 30 + len(i.filename) + len(i.extra)
at = start + i.compress_size // 2
data[at] ^= 0xFF
open(sys.argv[3], "wb").write(bytes(data))
PY
run_cmd wheel "$CUSHIM" check --verbose --driver-version=12.2 "$W"
grep -qxF "$W: 1 member inflated whole through libdeflate" "$T/wheel.out" ||
	fail "the deflated member is not said to be inflated through libdeflate: $(cat "$T/wheel.out")"
mkdir -p "$T/unpacked/demo" && cp "$ELF" "$T/unpacked/demo/libdeflated.so" && cp "$ELF" "$T/unpacked/demo/libstored.so" || exit 99
sed "s|$W:|DIR/|g" "$T/wheel.out" | grep "^DIR/demo/lib.*: verdict:" >"$T/a"
run_cmd plainv "$CUSHIM" check --verbose --driver-version=12.2 "$T/unpacked"
sed "s|$T/unpacked/|DIR/|g" "$T/plainv.out" | grep "^DIR/demo/lib.*: verdict:" >"$T/b"
[ -s "$T/a" ] && cmp -s "$T/a" "$T/b" || fail "the verdicts differ from the unpacked files': $(cat "$T/a") / $(cat "$T/b")"
run_cmd broken "$CUSHIM" check --driver-version=12.2 "$B"
expect_rc broken 2
[ "$(grep -c . "$T/broken.err")" -eq 1 ] && grep -q "^cushim: $B:demo/libdeflated.so cannot be read from the wheel (.*): the archive is damaged or cut off$" "$T/broken.err" ||
	fail "broken: wanted one line naming the damaged member: $(cat "$T/broken.err")"
run_cmd brokenv "$CUSHIM" check --verbose --driver-version=12.2 "$B"
grep -q "^$B:demo/libstored.so: verdict:" "$T/brokenv.out" || fail "broken: the stored member is not judged: $(cat "$T/brokenv.out")"
finish
