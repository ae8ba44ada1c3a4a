# Sourced by the realdrv tests: '. "$top_srcdir/tests/realdrv/realdrv-env.sh"'.
# Sets SHIM, APP, CACHE, FAKE and a temporary folder T; unsets the settings
# that change cushim's answers on purpose (realdrv-app refuses them).  In a
# cross build the drivers and runtimes are those of its host CPU, and the
# program runs through EXE_WRAPPER (the emulator; LD_PRELOAD and
# LD_LIBRARY_PATH reach the emulated program's loader).
: "${top_builddir:?}" "${top_srcdir:?}"
EXE_WRAPPER=${EXE_WRAPPER:-}
# (HOST_CPU: the build's, from AM_TESTS_ENVIRONMENT; by hand, fetch.sh takes this machine's)
REALDRV_HOST_CPU=${HOST_CPU:-}
export REALDRV_HOST_CPU
SHIM=$top_builddir/.libs/libcushim.so
APP=$top_builddir/tests/realdrv/realdrv-app
CACHE=$top_builddir/tests/realdrv/cache
FAKE=$top_builddir/tests/fake
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-realdrv.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
unset CUSHIM_HIDE CUSHIM_DRIVER_VERSION CUSHIM_SUMMARY CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_CUDART
fail=0

# bad WHO WHAT: one failure, named.
bad() { echo "FAIL: $1: $2"; fail=1; }

# differ A B WHO: the count of answers (one a line) that differ between A,
# the driver's, and B, cushim's; the first few to stderr, named by WHO.
differ() {
	awk -v who="$3" 'NR == FNR { a[FNR] = $0; next }
		a[FNR] != $0 { if (++n <= 3) printf "  %s: driver %s | cushim %s\n", who, a[FNR], $0 > "/dev/stderr" }
		END { print n + (NR - FNR != FNR) }' "$1" "$2"
}

# fetched drivers|runtimes: with CUSHIM_TEST_FETCH=1 (make check-compat),
# fetch what the cache lacks (what cannot be fetched is named, and kept in
# $T/fetch.KIND); the cache's folders of that kind, in version order.
fetched() {
	if [ "${CUSHIM_TEST_FETCH:-0}" != 1 ]; then
		echo "realdrv: testing what is cached only (make check stays offline; make check-compat or" \
			"make fetch-$1 fetches)" >"$T/fetch.$1"
	elif ! sh "$top_srcdir/tests/realdrv/fetch.sh" "$1" "$CACHE" 2>"$T/fetch.$1"; then
		echo "realdrv: what is named above could not be fetched; testing the rest" >>"$T/fetch.$1"
	fi
	cat "$T/fetch.$1" >&2
	case $1 in drivers) k=drv ;; *) k=rt ;; esac
	ls -d "$CACHE/$k"/*/ 2>/dev/null | sort -V
}

# unbuilt drivers|runtimes: what Debian has no build of for this CPU (after
# fetched), one "no arm64 build of driver 418 in Debian (...)" a line.
unbuilt() { sed -n 's/^fetch: \(no [a-z0-9]* build of .* in Debian .*\)/\1/p' "$T/fetch.$1"; }

# driver_version DIR: 535.261.03 for DIR/libcuda.so.535.261.03.
driver_version() { ls "$1" | sed -n 's/^libcuda\.so\.\([0-9][0-9]*\.[0-9].*\)$/\1/p' | head -n 1; }

# runtime_file DIR: the runtime by its soname (libcudart.so.12, .11.0).
runtime_file() { ls "$1" | grep -E '^libcudart\.so\.[0-9]+(\.0)?$' | head -n 1; }

# run_app OUT LOG [VAR=VALUE...]: realdrv-app under cushim, logging at info
# into LOG; its exit status.
run_app() {
	out=$1 log=$2
	shift 2
	rm -f "$log"
	# shellcheck disable=SC2086
	env CUSHIM_LOG=info CUSHIM_LOG_FILE="$log" LD_PRELOAD="$SHIM" "$@" $EXE_WRAPPER "$APP" > "$out" 2>&1
}

# row_field OUT NAME: a field of the realdrv-row line (exact=, count=, ...).
row_field() { sed -n "s/^realdrv-row: .* $2=\([^ ]*\).*/\1/p" "$1"; }
