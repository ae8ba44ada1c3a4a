#!/bin/sh
# cushim doctor --exports: for each export, where its driver function came
# from and who implements it, as the bootstrap decided by the owners' order
# of precedence (src/common/owners.h), against the fakes:
#  - on the 13.0 fake seen as 12.2: cushim's own answer for the version, the
#    explainers over the driver's loaders, contexts and allocators, an adapter
#    for a 12.5 variant, nobody for an export newer than 12.2 without one,
#    nobody for a hidden one; one row per export, and counts that add up;
#  - in masquerade, the runtime gate wraps the version's answer, cushim's own
#    where it emulates (so that answer is the emulated version);
#  - with no driver, cushim's error table answers the error functions.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
for d in drv-13.0 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 77; }
done
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER CUSHIM_CUDART \
	CUSHIM_ADAPT CUSHIM_TIMELINE CUSHIM_RECORD
# row NAME ORIGIN OWNER: the output of the last run has that row
row() {
	awk -v n="$1" -v o="$2" -v w="$3" '$1 == n { found = 1; if ($2 != o || $3 != w) { print n ": " $2 " " $3; exit 1 } }
		END { if (!found) { print n ": no row"; exit 1 } }' "$T/$out.out" || fail "$out: wanted $1 $2 $3"
}

out=emul
LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt CUSHIM_DRIVER_VERSION=12.2 CUSHIM_HIDE=cuModuleUnload \
	run_cmd emul "$CUSHIM" doctor --exports
expect_rc emul 0
row cuDriverGetVersion driver own
row cuGetErrorName driver own
row cuModuleLoad driver module
row cuCtxCreate_v2 driver start
row cuMemAlloc_v2 driver memory
row cuMemFree_v2 driver driver # the frees are wrapped only in a diagnostic mode
row cuCtxCreate_v4 - adapter    # CUDA 12.5: beyond 12.2, served by cuCtxCreate_v3
row cuCheckpointProcessLock - none # CUDA 12.8, no adapter
row cuModuleUnload - none
row cuDeviceGet driver driver
rows=$(awk 'NF == 3 && $1 ~ /^cu/' "$T/emul.out" | wc -l)
nsyms=$("$CUSHIM" symbols | grep -c '^cu')
[ "$rows" -eq "$nsyms" ] || fail "emul: $rows rows for $nsyms exports"
sum=$(sed -n '/^owners/,$p' "$T/emul.out" | awk 'NF >= 2 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s }')
[ "$sum" -eq "$nsyms" ] || fail "emul: the owners count $sum exports of $nsyms"

# owners NAME ENV...: the owners (enum cushim_owner) of cuDriverGetVersion,
# cuInit, cuMemFree_v2 and a name that is no export, asked of cushim in a
# Python process that loaded libcuda.so.1 under ENV, and the version that
# cuDriverGetVersion answers there (the doctor's probe runs
# with no diagnostic setting, so these cases are asked in a process).
owners() {
	n=$1
	shift
	run_cmd "$n" env "$@" python3 -c 'import ctypes
ctypes.CDLL("libcuda.so.1", mode=ctypes.RTLD_GLOBAL)
l = ctypes.CDLL(None)
v = ctypes.c_int(0)
l.cuDriverGetVersion(ctypes.byref(v))
print(*[l.cushim_export_owner(n) for n in (b"cuDriverGetVersion", b"cuInit", b"cuMemFree_v2", b"cuNoSuchThing")], v.value)'
}
if [ -n "${EXE_WRAPPER:-}" ]; then
	echo "a cross build: its library cannot load into this machine's python3; the cases asked in a process are skipped"
elif command -v python3 >/dev/null 2>&1; then
	# LD_PRELOAD with a summary: the frees are wrapped too; no emulation,
	# so the driver's own version
	owners diag LD_PRELOAD="$top_builddir/.libs/libcushim.so" LD_LIBRARY_PATH="$fake/drv-13.0:$fake/no-rt" \
		CUSHIM_SUMMARY="$T/s.json"
	grep -qx "1 3 7 -1 13000" "$T/diag.out" || fail "diag: $(cat "$T/diag.out" "$T/diag.err")"
	# Masquerade: the gate over the driver's cuDriverGetVersion.
	mkdir -p "$T/masq" && ln -s "$top_builddir/.libs/libcushim.so" "$T/masq/libcuda.so.1" || exit 99
	owners masq LD_LIBRARY_PATH="$T/masq:$fake/drv-13.0:$fake/no-rt" CUSHIM_DRIVER="$fake/drv-13.0/libcuda.so.1"
	grep -qx "8 3 1 -1 13000" "$T/masq.out" || fail "masquerade: $(cat "$T/masq.out" "$T/masq.err")"
	# emulating too: the gate wraps cushim's own answer, which it judges
	owners masq12 LD_LIBRARY_PATH="$T/masq:$fake/drv-13.0:$fake/no-rt" CUSHIM_DRIVER="$fake/drv-13.0/libcuda.so.1" \
		CUSHIM_DRIVER_VERSION=12.2
	grep -qx "8 3 1 -1 12020" "$T/masq12.out" || fail "masquerade at 12.2: $(cat "$T/masq12.out" "$T/masq12.err")"
fi

# No driver at all (unless this machine has a real one in its loader cache).
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	out=none
	LD_LIBRARY_PATH=$fake/no-rt run_cmd none "$CUSHIM" doctor --exports
	row cuGetErrorString - errors
	row cuInit - none
fi
# doctor's list of adapted exports says the condition in words, and none
# where it always holds
if [ -d "$fake/drv-11.4" ]; then
	LD_LIBRARY_PATH=$fake/drv-11.4:$fake/no-rt run_cmd adapted "$CUSHIM" doctor
	grep -q "^ *cuEventElapsedTime_v2 (CUDA 12.8) by cuEventElapsedTime$" "$T/adapted.out" &&
		grep -q "cuCtxCreate_v4 (CUDA 12.5) by cuCtxCreate_v2 when no parameters$" "$T/adapted.out" &&
		! grep -q "when always" "$T/adapted.out" || fail "adapted: $(grep -A40 adapted: "$T/adapted.out")"
fi
run_cmd bad "$CUSHIM" doctor --exports --bogus
expect_rc bad 2
finish
