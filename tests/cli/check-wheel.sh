#!/bin/sh
# cushim check on Python wheels, read in place (never unpacked): a wheel
# built here whose extension module needs a library the wheel holds, judged
# as the unpacked folder is; bad input gets one line each and no crash: a
# member named like a library that is no ELF file, a truncated wheel, a
# zip bomb (a member claiming gigabytes).  Skips (77) without python3 (to
# write the zip archives), a C compiler, or a cushim built with libzip.
. "$top_srcdir/tests/harness/defs.sh"
CC=${BUILD_CC:-${CC:-cc}}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
printf 'int g(void){return 2;}\n' >"$T/g.c"
printf 'int g(void); int ext(void){return g();}\n' >"$T/e.c"
mkdir -p "$T/u/demo/libs"
"$CC" -shared -fPIC -o "$T/u/demo/libs/libg.so.2" -Wl,-soname,libg.so.2 "$T/g.c" || exit 99
"$CC" -shared -fPIC -o "$T/u/demo/_ext.cpython-312-x86_64-linux-gnu.so" "$T/e.c" -L"$T/u/demo/libs" -l:libg.so.2 || exit 99
printf 'not a library\n' >"$T/u/demo/libs/libfake.so.3"
mkdir -p "$T/u/demo-1.0.dist-info"
printf 'Name: demo\n' >"$T/u/demo-1.0.dist-info/METADATA"
printf 'Wheel-Version: 1.0\n' >"$T/u/demo-1.0.dist-info/WHEEL"
# zipw WHEEL DIR: every file under DIR, deflated, named relative to DIR.
zipw() {
	python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in os.walk(sys.argv[2]):
        for f in sorted(fs):
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, sys.argv[2]))
PY
}
W=$T/demo-1.0-cp312-cp312-linux_x86_64.whl
zipw "$W" "$T/u" || exit 99
run_cmd probe "$CUSHIM" check --driver-version=12.2 "$W"
grep -q "built without libzip" "$T/probe.err" && { echo "SKIP: cushim built without libzip"; exit 77; }

# The wheel: the module and libg judged from the archive, libg found in it,
# libfake one line; the same verdict as the unpacked folder's.
expect_rc probe 2
head -n 1 "$T/probe.out" | grep -q "^environment: 3 files: verdict: runs on a CUDA 12.2 driver" ||
	fail "wheel: no passing verdict for its 3 members first: $(head -n 1 "$T/probe.out")"
[ "$(grep -c "$W:demo/libs/libfake.so.3 .*not an ELF file" "$T/probe.err")" -eq 1 ] ||
	fail "wheel: no one line for libfake.so.3: $(cat "$T/probe.err")"
grep -q "which nothing provides" "$T/probe.out" && fail "wheel: libg.so.2, in the wheel, said missing"
rm "$T/u/demo/libs/libfake.so.3"
zipw "$W" "$T/u" || exit 99
run_cmd wheel "$CUSHIM" check --verbose --json --driver-version=12.2 "$W"
expect_rc wheel 0
grep -q "\"file\": \"$W:demo/_ext.cpython-312-x86_64-linux-gnu.so\"" "$T/wheel.out" || fail "wheel: the module is not judged by its member name"
run_cmd text "$CUSHIM" check --driver-version=12.2 --gpu=sm_90 "$W"
run_cmd folder "$CUSHIM" check --driver-version=12.2 --gpu=sm_90 "$T/u"
expect_rc folder 0
# (but for the line saying what was read: a folder, a wheel)
grep -q "^$T/u: a folder: 2 files judged\$" "$T/folder.out" || fail "folder: no line saying what was read: $(cat "$T/folder.out")"
grep -q "^$W: a wheel: 2 of its 4 members judged\$" "$T/text.out" || fail "wheel: no line saying what was read: $(cat "$T/text.out")"
[ "$(grep -v ": a folder: " "$T/folder.out" | sed "s|$T/u/|X|g")" = "$(grep -v ": a wheel: " "$T/text.out" | sed "s|$W:|X|g")" ] ||
	fail "wheel and folder reports differ: $(cat "$T/folder.out") / $(cat "$T/text.out")"
# Without libg in the wheel, the module cannot be imported: Python loads it
# only when something imports it, so a caution names it and the verdict
# stands; a plain library of the wheel that needs libg, no CUDA library,
# gets a caution naming it too.
rm "$T/u/demo/libs/libg.so.2"
zipw "$T/nolib.whl" "$T/u" || exit 99
run_cmd nolib "$CUSHIM" check --driver-version=12.2 "$T/nolib.whl"
expect_rc nolib 0
grep -q "^environment: caution: 1 Python extension module cannot be imported .*first $T/nolib.whl:demo/_ext.cpython-312-x86_64-linux-gnu.so needs libg.so.2" "$T/nolib.out" ||
	fail "nolib: no caution naming the module and libg.so.2: $(cat "$T/nolib.out")"
cp "$T/u/demo/_ext.cpython-312-x86_64-linux-gnu.so" "$T/u/demo/libs/libext.so"
zipw "$T/nolib2.whl" "$T/u" || exit 99
run_cmd nolib2 "$CUSHIM" check --driver-version=12.2 "$T/nolib2.whl"
expect_rc nolib2 0
grep -q "^  $T/nolib2.whl:demo/libs/libext.so: caution: it needs libg.so.2, which nothing" "$T/nolib2.out" ||
	fail "nolib2: the missing libg.so.2 is not named: $(cat "$T/nolib2.out")"
rm "$T/u/demo/libs/libext.so"

# Every wheel gets a line, even with nothing to judge: a pure-Python wheel,
# and a zip archive renamed .whl that is no wheel (no .dist-info/WHEEL).
python3 - "$T/pure-1.0-py3-none-any.whl" "$T/notwheel.whl" "$T/u/demo/_ext.cpython-312-x86_64-linux-gnu.so" <<'PY' || exit 99
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("pure/__init__.py", "x = 1\n")
    z.writestr("pure-1.0.dist-info/METADATA", "Name: pure\n")
    z.writestr("pure-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("notes.txt", "x\n")
    z.write(sys.argv[3], "lib/_ext.cpython-312-x86_64-linux-gnu.so")
PY
for v in "" --verbose; do
	run_cmd pure "$CUSHIM" check $v --driver-version=12.2 "$T/pure-1.0-py3-none-any.whl"
	expect_rc pure 0
	grep -q "^$T/pure-1.0-py3-none-any.whl: a wheel: it holds no ELF file or GPU code (3 members): nothing to judge" "$T/pure.out" ||
		fail "pure${v:+ $v}: no line saying the wheel holds nothing to judge: $(cat "$T/pure.out") $(cat "$T/pure.err")"
	run_cmd notwheel "$CUSHIM" check $v --driver-version=12.2 "$T/notwheel.whl"
	grep -q "^$T/notwheel.whl: a zip archive, not a wheel (no NAME.dist-info/WHEEL in it): 1 of its 2 members judged" "$T/notwheel.out" ||
		fail "notwheel${v:+ $v}: no line saying it is no wheel: $(cat "$T/notwheel.out") $(cat "$T/notwheel.err")"
done
run_cmd pure-json "$CUSHIM" check --json --driver-version=12.2 "$T/pure-1.0-py3-none-any.whl"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
i = d["environment"]["inputs"]
assert d["environment"]["files"] == 0 and [(x["kind"], x["files"], x["members"]) for x in i] == [("wheel", 0, 3)], i' "$T/pure-json.out" ||
	fail "pure-json: the wheel is not among the inputs: $(cat "$T/pure-json.out")"

# A wheel of many small libraries is opened once to be listed, then at most
# once by each thread that reads its members (16 at most), never once a
# member: reading N members costs one reading of the archive's directory a
# thread, not N.  --verbose says how many times it was opened.
python3 - "$T/many.whl" "$T/u/demo/_ext.cpython-312-x86_64-linux-gnu.so" <<'PY' || exit 99
import sys, zipfile
data = open(sys.argv[2], "rb").read()
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("many-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    for i in range(2000):
        z.writestr("many/libs/libm%04d.so.1" % i, data)
PY
run_cmd many "$CUSHIM" check --verbose --driver-version=12.2 "$T/many.whl"
opens=$(sed -n "s|^$T/many.whl: a wheel: 2000 of its 2001 members judged (the archive opened \([0-9]*\) times\{0,1\} to read it)\$|\1|p" "$T/many.out")
[ -n "$opens" ] && [ "$opens" -le 17 ] ||
	fail "many: the archive was opened ${opens:-an unsaid number of} times for 2000 members: $(grep "^$T/many.whl: a" "$T/many.out")"

# A truncated wheel: one line naming it.
size=$(wc -c <"$W")
head -c $((size / 2)) "$W" >"$T/cut.whl"
run_cmd cut "$CUSHIM" check --driver-version=12.2 "$T/cut.whl"
expect_rc cut 2
[ "$(wc -l <"$T/cut.err")" -eq 1 ] && grep -q "$T/cut.whl cannot be read as a wheel" "$T/cut.err" ||
	fail "cut: wanted one line naming the wheel: $(cat "$T/cut.err")"
# A zip bomb: a member whose headers claim 4 GB (rewritten in both the local
# and the central header, so the archive stays consistent).
python3 - "$T/bomb.whl" <<'PY' || exit 99
import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("bomb/libbomb.so", b"\0" * 4096)
b = bytearray(open(sys.argv[1], "rb").read())
big = struct.pack("<I", 0xF0000000)
b[22:26] = big                       # local header: uncompressed size
c = b.find(b"PK\x01\x02")
b[c + 24:c + 28] = big               # central directory: uncompressed size
open(sys.argv[1], "wb").write(b)
PY
run_cmd bomb "$CUSHIM" check --driver-version=12.2 "$T/bomb.whl"
expect_rc bomb 2
[ "$(wc -l <"$T/bomb.err")" -eq 1 ] && grep -q "bomb.whl.*\(claims 4026531840 bytes\|cannot be read as a wheel\)" "$T/bomb.err" ||
	fail "bomb: wanted one line about the 4 GB claim: $(cat "$T/bomb.err")"
exit $((failures > 0))
