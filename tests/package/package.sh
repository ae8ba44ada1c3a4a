#!/bin/sh
# The Debian package: `dpkg-buildpackage -us -uc -b` on a copy of this source
# tree, lintian without errors, the copy as clean for git afterwards as
# before, then the package unpacked into a scratch root (dpkg -x) and run
# from there: cushim doctor, and the demo (tests/demo/newer-app, built for
# CUDA 13.0, on the fake 11.4 driver).  Skipped (77) without the Debian tools,
# and inside a package build (which runs make check itself).
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-architecture dh dpkg-deb; do
	command -v $tool >/dev/null 2>&1 ||
		{ echo "no $tool here: the package test needs dpkg-dev and debhelper (tools/setup-debian.sh)" >&2; exit 77; }
done
[ -n "${DEB_RULES_REQUIRES_ROOT:-}" ] && { echo "inside a package build: not building a package again" >&2; exit 77; }
[ -n "${EXE_WRAPPER:-}" ] && { echo "a cross build: the package would be for this machine, not the build's" >&2; exit 77; }
[ -d "$fake/drv-11.4" ] || { echo "no $fake/drv-11.4: the fake drivers are not built" >&2; exit 77; }
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
src=$T/cushim-$version
mkdir -p "$src"

# The tree as it is here (a git checkout: the files git tracks, as they are
# in the working tree, so that what a build in the source tree left there
# stays out; a release tarball: all of it), made a git repository of its own
# to see what the build leaves behind.  A tarball unpacked inside some
# other checkout (make distcheck in a clone) is a tarball: only a source
# tree that is the top of its own work tree is read through git.
toplevel=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null) || toplevel=
if [ -n "$toplevel" ] && [ "$(realpath "$toplevel")" = "$(realpath "$top_srcdir")" ]; then
	(cd "$top_srcdir" && git ls-files -d >"$T/deleted" && git ls-files -c | grep -vxF -f "$T/deleted" |
		tar -cf - -T -) | tar -xf - -C "$src" || exit 99
	git -C "$src" init -q && git -C "$src" add -A &&
		git -C "$src" -c user.name=test -c user.email=test@invalid commit -qm tree || exit 99
	gitcheck=1
else
	cp -R "$top_srcdir/." "$src" && chmod -R u+w "$src" || exit 99
	gitcheck=0
fi
(cd "$src" && dpkg-checkbuilddeps) >"$T/deps" 2>&1 ||
	{ echo "build dependencies missing: $(cat "$T/deps")" >&2; exit 77; }

# The build: CUDA_HOME is the toolkit this tree was configured with.
cuda=${CUDA_DIR:?run me through make check}
(cd "$src" && CUDA_HOME=$cuda DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 ||
	{ tail -30 "$T/build.log" >&2; fail "dpkg-buildpackage failed"; finish; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$T/cushim_${version}_$arch.deb
[ -f "$deb" ] || { fail "no $deb after the build: $(ls "$T")"; finish; }
if [ "$gitcheck" = 1 ]; then
	git -C "$src" status --porcelain >"$T/status"
	[ -s "$T/status" ] && fail "the package build left files in the source tree: $(head -10 "$T/status")"
fi
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error "$T/cushim_${version}_$arch.changes" >"$T/lintian" 2>&1 ||
		fail "lintian: $(grep -v 'root privileges' "$T/lintian")"
	grep '^E:' "$T/lintian" && fail "lintian reports errors"
	grep -v 'root privileges' "$T/lintian" | sed 's/^/lintian: /' >"$T/lintian.tags"
	if [ -s "$T/lintian.tags" ]; then cat "$T/lintian.tags"; else echo "lintian: no errors, no warnings"; fi
fi

# What the package holds, unpacked (nothing is installed on this machine).
root=$T/root
dpkg-deb -x "$deb" "$root" || { fail "dpkg-deb -x $deb"; finish; }
bin=$root/usr/bin/cushim
lib=$root/usr/lib/$multiarch/libcushim.so
for f in "$bin" "$lib" "$root/usr/share/man/man1/cushim.1.gz" "$root/usr/share/doc/cushim/copyright" \
	"$root/usr/share/doc/cushim/README.gz"; do
	[ -f "$f" ] || fail "the package has no ${f#$root}"
done
dpkg-deb -c "$deb" | grep -q '\.la$' && fail "the package ships a libtool archive"
run_cmd version "$bin" --version
expect_rc version 0
grep -q "^cushim $version" "$T/version.out" || fail "the packaged cushim says $(cat "$T/version.out")"

# doctor and the demo, from the unpacked files, on the fake 11.4 driver.
export LD_LIBRARY_PATH=$fake/drv-11.4:$fake/no-rt
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART CUSHIM_ADAPT
run_cmd doctor "$bin" doctor --lib="$lib"
expect_rc doctor 0
grep -q "^library: *$lib " "$T/doctor.out" || fail "doctor does not use the packaged library: $(head -3 "$T/doctor.out")"
grep -q "driver CUDA 11.4" "$T/doctor.out" || fail "doctor from the package: $(cat "$T/doctor.out")"
run_cmd demo "$bin" run --lib="$lib" -- "$top_builddir/tests/demo/newer-app"
expect_rc demo 0
for want in "cuInit  *0 CUDA_SUCCESS" "cuCtxCreate_v4  *0 CUDA_SUCCESS" "cuLibraryLoadData  *36 "; do
	grep -q "^$want" "$T/demo.out" || fail "the demo from the package: no '$want' in $(cat "$T/demo.out")"
done
grep -q "cuCtxCreate_v4 served by cuCtxCreate_v2" "$T/demo.err" || fail "the demo from the package: $(cat "$T/demo.err")"
run_cmd maps "$bin" run --lib="$lib" -- sh -c 'cat /proc/$$/maps'
grep -qF "$(realpath "$lib")" "$T/maps.out" || fail "cushim run from the package does not preload the packaged library"
finish
