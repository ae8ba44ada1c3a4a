#!/bin/sh
# Installs what building and testing cushim needs on Debian or Ubuntu, as root
# or through sudo.  The CUDA toolkit itself (headers, nvcc) is not a Debian
# package: point ./configure at it with --with-cuda=DIR or CUDA_HOME.
set -e
pkgs="autoconf automake libtool pkgconf make gcc check libelf-dev python3 libgl-dev libegl-dev libvdpau-dev libcap2-bin libopenmpi-dev openmpi-bin valgrind clang debian-archive-keyring build-essential debhelper lintian fakeroot"
if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $pkgs
