#!/bin/sh
# The generator does not hard-code CUDA 13.0: built against the CUDA 12.4
# headers (NVIDIA's nvidia-cuda-runtime-cu12 wheel, fetched from PyPI), cushim
# exports every variant those headers declare, each under the name the real
# driver 580 exports (tests/oracle), plus the committed table's newer ones,
# and compiles against 12.4's own cuda.h (the rows 12.4 lacks get generic
# prototypes).  The naming rule and the table's coverage hold for 12.4 too.
# Skips (77) when the wheel cannot be fetched.
: "${top_srcdir:?}" "${top_builddir:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/cushim-cu12.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
wheel=nvidia-cuda-runtime-cu12==12.4.127
if ! timeout 120 "${PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: -d "$T" "$wheel" >"$T/pip.log" 2>&1; then
	echo "toolkit-12: cannot fetch $wheel from PyPI; skipping"; cat "$T/pip.log"; exit 77
fi
(cd "$T" && "${PYTHON:-python3}" -m zipfile -e ./*.whl x) || exit 99
inc=$T/x/nvidia/cuda_runtime
grep -q '#define CUDA_VERSION 12040' "$inc/include/cuda.h" || { echo "not the 12.4 headers"; exit 99; }
# configure a pristine copy of the sources (this build may be in the source tree)
(unset MAKEFLAGS MFLAGS; cd "$top_builddir" && ${MAKE:-make} sub-src/configure) >"$T/subsrc.log" 2>&1 ||
	{ tail -20 "$T/subsrc.log"; exit 99; }
mkdir "$T/b" && cd "$T/b" || exit 99
"$top_builddir/sub-src/configure" -q --with-cuda="$inc" NVCC= >"$T/configure.log" 2>&1 || { cat "$T/configure.log"; exit 1; }
{ make src/gen.stamp && make -j2 libcushim.la cushim; } >"$T/make.log" 2>&1 || { tail -30 "$T/make.log"; exit 1; }
fail=0
tsv=src/cushim-syms.tsv
exported=$(nm -D --defined-only .libs/libcushim.so | awk '$3 ~ /^cu/ && $3 !~ /^cushim_/ { print $3 }' | sort)
# every function-pointer typedef (some of 12.4's lack their _v<version>)
typedefs=$(cat "$inc/include/cudaTypedefs.h" "$inc/include/cudaGLTypedefs.h" "$inc/include/cudaEGLTypedefs.h" \
	"$inc/include/cudaVDPAUTypedefs.h" | grep -c '^ *typedef CUresult *( *CUDAAPI \*PFN_cu')
declared=$(awk -F'\t' '$8 == "toolkit"' "$tsv" | wc -l)
rows=$(awk -F'\t' '!/^#/ && $7 == "yes"' "$tsv" | wc -l)
n=$(echo "$exported" | wc -l)
echo "toolkit-12: CUDA 12.4 headers declare $typedefs variants (the profiler's need cudaProfiler.h, absent from the wheel); cushim exports $n: $declared of 12.4, the rest from the table"
# the Windows-only cuWGLGetDevice is one of the typedefs
[ "$declared" -eq $((typedefs - 1)) ] || { echo "FAIL: $declared of 12.4's $typedefs typedefs in the table"; fail=1; }
[ "$n" -eq "$rows" ] || { echo "FAIL: $n exports for $rows rows"; fail=1; }
table=$top_srcdir/src/table/cuda-api.tsv
for name in $exported; do
	grep -qx "$name" "$top_srcdir/tests/oracle/libcuda-580.159.04-exports.txt" && continue
	[ "$name" = cuEventCreateFromEGLSync ] && continue
	awk -F'\t' -v n="$name" '$1 == "fn" && $2 == n && $4 > 13000 { f = 1 } END { exit !f }' "$table" ||
		{ echo "FAIL: $name is not a name the real driver exports, nor a newer one of the table"; fail=1; }
done
awk -F'\t' '$1 == "cuCtxCreate_v3" && $8 == "toolkit" { f = 1 } END { exit !f }' "$tsv" ||
	{ echo "FAIL: cuCtxCreate_v3 is not 12.4's"; fail=1; }
awk -F'\t' '$1 == "cuCtxCreate_v4" && $8 == "table" { f = 1 } END { exit !f }' "$tsv" ||
	{ echo "FAIL: cuCtxCreate_v4 (12.5) is not the table's"; fail=1; }
./cushim symbols --since 12.4 | grep -q '^cuGreenCtxCreate ' || { echo "FAIL: cushim symbols lacks 12.4's cuGreenCtxCreate"; fail=1; }
for mode in covers oracle; do
	CPP="${CPP:-cc -E}" "${PYTHON:-python3}" "$top_srcdir/tests/table/tabletest.py" $mode --include "$inc/include" \
		--table "$table" --oracle "$top_srcdir/tests/oracle" || fail=1
done
[ $fail = 0 ] && echo "toolkit-12: every export is a real driver name or the table's, 12.4's under their 12.4 names"
exit $fail
