#!/bin/sh
# Installs what building and testing cushim needs on Debian or Ubuntu, as root
# or through sudo.  The CUDA toolkit itself (headers, nvcc) is not a Debian
# package: point ./configure at it with --with-cuda=DIR or CUDA_HOME.
#
# On an x86-64 Debian host it also installs the aarch64 cross toolchain, the
# arm64 builds of the libraries the command and the tests link, and qemu's
# user-mode emulator, for `make check-aarch64` (CUSHIM_NO_CROSS=1: not these).
set -e
pkgs="autoconf automake libtool pkgconf make gcc g++ check libelf-dev libzip-dev liblz4-dev libzstd-dev libdeflate-dev python3 python3-venv libgl-dev libegl-dev libvdpau-dev libcap2-bin libopenmpi-dev openmpi-bin valgrind clang debian-archive-keyring build-essential debhelper lintian fakeroot"
cross="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++6-arm64-cross libstdc++6:arm64 qemu-user-static pkgconf:arm64 libelf-dev:arm64 libzip-dev:arm64 liblz4-dev:arm64 libzstd-dev:arm64 libdeflate-dev:arm64 check:arm64 zlib1g-dev:arm64"
if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
# Debian's archive serves arm64 from the same sources as amd64; Ubuntu's
# archive does not (ports.ubuntu.com does), so there the cross set is left to
# the administrator.
distro=$(. /etc/os-release 2>/dev/null && echo "$ID")
if [ -z "$CUSHIM_NO_CROSS" ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	if [ "$distro" = debian ]; then
		$sudo dpkg --add-architecture arm64
		pkgs="$pkgs $cross"
	else
		echo "setup-debian.sh: not Debian: the aarch64 cross build (make check-aarch64) needs" >&2
		echo "  arm64 package sources; then: apt-get install $cross" >&2
	fi
fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $pkgs
