#!/bin/sh
# A node or container without any CUDA driver: rank-app (linked -z now to
# libcuda.so.1) cannot even load on its own; under `cushim run` it loads,
# cushim says once that there is no driver, every call returns
# CUDA_ERROR_NO_DEVICE (100), and the program reports "no GPU" itself.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/cluster/rank-app
[ -d "$fake/no-rt" ] || { echo "no $fake/no-rt: the fake drivers are not built" >&2; exit 77; }
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART OMPI_COMM_WORLD_RANK PMI_RANK SLURM_PROCID
# no-rt alone: no runtime can load, and no libcuda.so.1 is on the path.
export LD_LIBRARY_PATH=$fake/no-rt
run_cmd alone $EXE_WRAPPER "$app"
if [ "$rc" -ne 127 ] || ! grep -q "libcuda.so.1: cannot open shared object file" "$T/alone.err"; then
	echo "a libcuda.so.1 is installed here (rank-app loads without cushim): this test needs a machine without one" >&2
	exit 77
fi

run_cmd rescued "$CUSHIM" run -- $EXE_WRAPPER "$app"
expect_rc rescued 3
grep -qx "rank 0: no GPU: cuInit returned 100, cuDeviceGetCount 100" "$T/rescued.out" ||
	fail "the program did not report no GPU itself: $(cat "$T/rescued.out" "$T/rescued.err")"
[ "$(grep -c '^cushim' "$T/rescued.err")" -eq 1 ] && grep -q "CUDA_ERROR_NO_DEVICE" "$T/rescued.err" ||
	fail "cushim should say once that there is no driver; it said: $(cat "$T/rescued.err")"
# The private folder is gone when the program is.
ls "${TMPDIR:-/tmp}"/cushim-masquerade.* >"$T/left" 2>/dev/null
while read -r d; do
	[ -L "$d/libcuda.so.1" ] && [ "$(readlink "$d/libcuda.so.1")" = "$SHIMLIB" ] &&
		fail "cushim run left its folder $d behind"
done <"$T/left"
finish
