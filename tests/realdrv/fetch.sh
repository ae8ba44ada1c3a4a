#!/bin/sh
# Fetches the real NVIDIA driver libraries and CUDA runtimes that the realdrv
# tests run on, and unpacks each into a folder of its own under CACHE:
#   CACHE/drv/<branch>/libcuda.so.1 (and what it needs to load)
#   CACHE/rt/<name>/libcudart.so.*
# Debian packages come through apt-get download with a private sources list
# and state under CACHE/apt (the machine's own apt configuration is neither
# read for sources nor changed); the wheels through pip download.  What is in
# the cache for the CPU asked for is never fetched again.  Each item is pinned; when its pinned
# version has left the archive, the suite's current one is taken and named.
# The libraries are those built for REALDRV_HOST_CPU (GNU's name of a build's
# host CPU: aarch64 for a cross build's arm64 packages and aarch64 wheels),
# this machine's CPU by default; an item Debian has no build of for it is
# named on stderr as "fetch: no ARCH build of KIND KEY in Debian (PACKAGES)".
#
# Usage: fetch.sh drivers|runtimes|all CACHE
# Exit 0 when every item asked for is in the cache, 1 when some could not be
# fetched (each named on stderr, with why), 2 on misuse.
set -u
case "${1-}" in drivers|runtimes|all) what=$1 ;; *) echo "usage: fetch.sh drivers|runtimes|all CACHE" >&2; exit 2 ;; esac
[ -n "${2-}" ] || { echo "usage: fetch.sh drivers|runtimes|all CACHE" >&2; exit 2; }
mkdir -p "$2" && CACHE=$(cd "$2" && pwd) || exit 2
MIRROR=${REALDRV_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PYTHON=${PYTHON:-python3}
MACHINE_CPU=$(uname -m)
CPU=${REALDRV_HOST_CPU:-$MACHINE_CPU}
case $CPU in
x86_64) DEB_ARCH=amd64 ;;
aarch64) DEB_ARCH=arm64 ;;
*) echo "fetch: NVIDIA's driver libraries and runtimes are not built for $CPU" >&2; exit 1 ;;
esac

# kind  key  source suite  package=version ...   (one item a line)
ITEMS='drv 390 deb bullseye libnvidia-legacy-390xx-cuda1=390.157-1~deb11u1 libnvidia-legacy-390xx-fatbinaryloader=390.157-1~deb11u1
drv 418 deb bullseye libnvidia-tesla-418-cuda1=418.226.00-6~deb11u2 libnvidia-tesla-418-fatbinaryloader=418.226.00-6~deb11u2
drv 450 deb bullseye libnvidia-tesla-450-cuda1=450.248.02-7~deb11u1
drv 460 deb bullseye libnvidia-tesla-460-cuda1=460.106.00-17~deb11u1
drv 470 deb bookworm libnvidia-tesla-470-cuda1=470.256.02-1~deb12u1
drv 525 deb bookworm libnvidia-tesla-cuda1=525.147.05-15~deb12u1
drv 535 deb bookworm libcuda1=535.261.03-1
drv 550 deb trixie libcuda1=550.163.01-2
drv 555 deb experimental libcuda1=555.58.02-4
rt deb-11.8 deb bookworm libcudart11.0=11.8.89~11.8.0-5~deb12u1
rt deb-12.4 deb trixie libcudart12=12.4.127~12.4.1-2
rt pypi-11.8 pypi - nvidia-cuda-runtime-cu11==11.8.89
rt pypi-12.9 pypi - nvidia-cuda-runtime-cu12==12.9.79'

wanted() {
	case $what in all) return 0 ;; drivers) [ "$1" = drv ] ;; runtimes) [ "$1" = rt ] ;; esac
}

APT_OPTS=
apt_ready=
# apt_setup: the private apt tree, its package lists fetched once per run.
apt_setup() {
	[ -z "$apt_ready" ] || return "$apt_ready"
	apt_ready=1
	if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
		echo "fetch: apt-get and dpkg-deb are needed to fetch Debian packages" >&2
		return 1
	fi
	[ -r "$KEYRING" ] || { echo "fetch: no $KEYRING (install debian-archive-keyring)" >&2; return 1; }
	a=$CACHE/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" || return 1
	for s in bullseye bookworm trixie experimental; do
		echo "deb [signed-by=$KEYRING] $MIRROR $s non-free"
	done > "$a/sources.list"
	APT_OPTS="-q -o Dir::Etc::SourceList=$a/sources.list -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State=$a -o Dir::State::Lists=$a/lists -o Dir::State::status=/dev/null
		-o Dir::Cache=$a/cache -o APT::Sandbox::User=$(id -un)
		-o APT::Architecture=$DEB_ARCH -o APT::Architectures::=$DEB_ARCH
		-o Acquire::Retries=0 -o Acquire::http::Timeout=20 -o Acquire::Languages=none"
	# shellcheck disable=SC2086
	timeout 180 apt-get $APT_OPTS update > "$a/update.log" 2>&1
	if ! ls "$a/lists/" | grep -q '_Packages'; then
		echo "fetch: cannot read Debian's package lists from $MIRROR (no network?):" >&2
		grep -E '^(E|W):' "$a/update.log" | tail -n 3 >&2
		return 1
	fi
	apt_ready=0
}

# deb_download DIR SUITE PKG=VER...: the pinned versions, else the suite's own.
deb_download() {
	dir=$1 suite=$2
	shift 2
	# shellcheck disable=SC2086
	(cd "$dir" && timeout 300 apt-get $APT_OPTS download "$@") > "$dir/download.log" 2>&1 && return 0
	if grep -q '^E: Unable to locate package' "$dir/download.log"; then
		echo "fetch: no $DEB_ARCH build of $what_item in Debian ($(echo "$@" | sed 's/=[^ ]*//g'))" >&2
		return 1
	fi
	grep -q "^E: Version '.*' was not found" "$dir/download.log" || return 1
	echo "fetch: $* not in the archive any more; taking $suite's current version" >&2
	# shellcheck disable=SC2046,SC2086
	(cd "$dir" && timeout 300 apt-get $APT_OPTS download $(for p in "$@"; do echo "${p%%=*}/$suite"; done)) \
		>> "$dir/download.log" 2>&1
}

# fetch_deb TMP SUITE PKG=VER...: download and unpack into TMP/x.
fetch_deb() {
	tmp=$1 suite=$2
	shift 2
	apt_setup || return 1
	deb_download "$tmp" "$suite" "$@" || { grep -E '^(E|W):' "$tmp/download.log" | tail -n 3 >&2; return 1; }
	for f in "$tmp"/*.deb; do
		dpkg-deb -x "$f" "$tmp/x" || return 1
		echo "${f##*/}" >> "$tmp/PACKAGES"
	done
}

# fetch_wheel TMP SPEC: download and unpack into TMP/x.
fetch_wheel() {
	platform=
	[ "$CPU" = "$MACHINE_CPU" ] || platform="--platform manylinux2014_$CPU --platform manylinux_2_17_$CPU"
	# shellcheck disable=SC2086
	if ! timeout 180 "$PYTHON" -m pip download -q --no-deps --only-binary=:all: --retries 0 --timeout 15 \
		$platform -d "$1" "$2" > "$1/pip.log" 2>&1; then
		echo "fetch: cannot fetch $2 from PyPI (no network?):" >&2
		tail -n 3 "$1/pip.log" >&2
		return 1
	fi
	(cd "$1" && "$PYTHON" -m zipfile -e ./*.whl x) || return 1
	(cd "$1" && ls ./*.whl | sed 's|^\./||') > "$1/PACKAGES"
}

# fetch_item KIND KEY SOURCE SUITE SPEC...: into CACHE/KIND/KEY, all or nothing.
fetch_item() {
	kind=$1 key=$2 src=$3 suite=$4
	shift 4
	dest=$CACHE/$kind/$key
	case $kind in drv) what_item="driver $key" ;; *) what_item="runtime $key" ;; esac
	# what is there already, when it is for this CPU
	[ -f "$dest/PACKAGES" ] && grep -qE "_($DEB_ARCH\.deb|$CPU\.whl)\$" "$dest/PACKAGES" && return 0
	rm -rf "$dest" # (another CPU's)
	tmp=$CACHE/$kind/.$key.tmp
	rm -rf "$tmp" && mkdir -p "$tmp/x" || return 1
	case $src in
	deb) fetch_deb "$tmp" "$suite" "$@" ;;
	pypi) fetch_wheel "$tmp" "$1" ;;
	esac || { rm -rf "$tmp"; return 1; }
	# the libraries, flat, links kept (libcuda.so.1 -> libcuda.so.535.261.03)
	mkdir "$tmp/lib" && find "$tmp/x" \( -type f -o -type l \) \
		\( -name 'libcuda.so*' -o -name 'libnvidia-fatbinaryloader.so*' -o -name 'libcudart.so.*' \) \
		-exec cp -P {} "$tmp/lib/" \; || return 1
	[ -n "$(ls "$tmp/lib")" ] || { echo "fetch: $kind/$key: no library in $*" >&2; rm -rf "$tmp"; return 1; }
	mv "$tmp/PACKAGES" "$tmp/lib/PACKAGES" && rm -rf "$dest" && mv "$tmp/lib" "$dest" && rm -rf "$tmp"
}

# One fetch at a time per cache (make -j runs the tests side by side).
if [ -z "${REALDRV_FETCH_LOCKED-}" ] && command -v flock >/dev/null; then
	REALDRV_FETCH_LOCKED=1 exec flock "$CACHE/.lock" sh "$0" "$@"
fi
status=0
echo "$ITEMS" | while read -r kind key src suite specs; do
	wanted "$kind" || continue
	# shellcheck disable=SC2086
	if ! fetch_item "$kind" "$key" "$src" "$suite" $specs; then
		echo "fetch: $kind/$key ($specs) could not be fetched" >&2
		echo "$kind/$key" >> "$CACHE/.failed.$$"
	fi
done
if [ -s "$CACHE/.failed.$$" ]; then status=1; fi
rm -f "$CACHE/.failed.$$"
exit $status
