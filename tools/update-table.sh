#!/bin/sh
# Refresh cushim's committed table (src/table/cuda-api.tsv) from NVIDIA's
# headers: `make update-table` runs it.
#
#   update-table.sh TABLE "" "WHEEL..."       fetch the wheels from PyPI (pip
#                                            download, no dependencies) and read
#                                            every include folder they carry
#   update-table.sh TABLE "DIR..." ""         read these include folders
#
# nvidia-cuda-runtime carries cuda.h and the typedef headers (the GL, EGL and
# VDPAU ones too), nvidia-cuda-profiler-api cudaProfiler.h; pin them with
# NAME==VERSION.  The table is replaced only when the tool succeeds; review
# the change with `git diff src/table` before committing it.
set -e
table=$1 includes=$2 wheels=$3
: "${PYTHON:=python3}" "${CPP:=cc -E}"
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$table" ] || { echo "usage: update-table.sh TABLE \"DIR...\" \"WHEEL...\"" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-table.XXXXXX")
trap 'rm -rf "$T"' EXIT

if [ -n "$includes" ]; then
	source="include folders $includes"
	set --
	for d in $includes; do set -- "$@" --include "$d"; done
else
	[ -n "$wheels" ] || { echo "update-table: no include folder and no wheel given" >&2; exit 2; }
	# shellcheck disable=SC2086
	if ! "$PYTHON" -m pip download -q --no-deps --only-binary=:all: -d "$T/w" $wheels >"$T/pip.log" 2>&1; then
		cat "$T/pip.log" >&2
		echo "update-table: cannot download $wheels from PyPI (no network?); pass CUDA_INCLUDE=DIR instead" >&2
		exit 1
	fi
	source=
	for w in "$T"/w/*.whl; do
		"$PYTHON" -m zipfile -e "$w" "$T/x"
		v=$(basename "$w" | awk -F- '{ gsub("_", "-", $1); print $1 " " $2 }')
		source="${source:+$source, }$v"
	done
	source="$source (PyPI)"
	set --
	for d in $(find "$T/x" -type f -name cuda.h -path '*/include/*' -exec dirname {} \; | sort -u) \
		 $(find "$T/x" -type f -name cudaProfiler.h -path '*/include/*' -exec dirname {} \; | sort -u); do
		set -- "$@" --include "$d"
	done
	[ $# -gt 0 ] || { echo "update-table: the wheels $wheels carry no cuda.h" >&2; exit 1; }
fi
CPP=$CPP "$PYTHON" "$here/mktable.py" "$@" --out "$T/cuda-api.tsv" --source "$source"
old=$(grep -c '^fn' "$table" 2>/dev/null || echo 0)
cp "$T/cuda-api.tsv" "$table"
echo "update-table: $table now has $(grep -c '^fn' "$table") variants (was $old): $source"
