#!/bin/sh
# cushim check on a tree that holds NVIDIA's forward-compatibility package: a
# libcuda.so whose ELF note .note.cuda.fwd_compatibility says the CUDA it
# provides (13.1) and the driver branches it runs on.  A PTX file of ISA 9.0
# (CUDA 13.0) beside it:
#  - a CUDA 12.2 driver (branch 535, listed) uses the package: on a
#    data-centre GPU (sm_90) the PTX runs, against CUDA 13.1;
#  - a CUDA 12.8 driver (branch 570, not listed) does not: the PTX fails;
#  - on sm_86 (data-centre boards and GeForce alike) it is unknown;
#  - on a GeForce board (--gpu=auto, a fake 12.0 driver whose branch 525 the
#    note lists) cuInit fails with error 804: the tree fails, decided by the
#    package.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_LIBRARY_PATH LD_PRELOAD CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_HIDE
CC=${BUILD_CC:-${CC:-cc}}
OBJCOPY=${BUILD_OBJDUMP%objdump}objcopy
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
command -v "$OBJCOPY" >/dev/null 2>&1 || { echo "SKIP: no $OBJCOPY"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
[ -z "$EXE_WRAPPER" ] || { echo "SKIP: the package is built for the build machine"; exit 77; }
I=$T/img
C=$I/usr/local/cuda/compat
mkdir -p "$C" "$I/app" || exit 99
printf 'int cuInit(unsigned f) { return (int)f; }\n' >"$T/compat.c"
"$CC" -shared -fPIC -o "$C/libcuda.so.590.44.01" -Wl,-soname,libcuda.so.1 "$T/compat.c" || exit 99
# NVIDIA's note: name "NVIDIA Corporation", type 1, a JSON description.
python3 - "$T/note.bin" <<'PY' || exit 99
import struct, sys
desc = b'{"Format": 1, "CUDA Version": "13.1", "Driver": [525, 535, 550], "Device": [7, 8, 9]}'
name = b"NVIDIA Corporation\0"
pad = lambda b: b + b"\0" * (-len(b) % 4)
open(sys.argv[1], "wb").write(struct.pack("<III", len(name), len(desc), 1) + pad(name) + pad(desc))
PY
"$OBJCOPY" --add-section .note.cuda.fwd_compatibility="$T/note.bin" "$C/libcuda.so.590.44.01" || exit 99
ln -s libcuda.so.590.44.01 "$C/libcuda.so.1" || exit 99
printf '//\n// Cuda compilation tools, release 13.0, V13.0.48\n//\n\n.version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n' \
	>"$I/app/kernel.ptx"
P=$C/libcuda.so.590.44.01

# 1. Used, on a data-centre GPU: judged against CUDA 13.1.
run_cmd used "$CUSHIM" check --driver-version=12.2 --gpu=sm_90 "$I"
expect_rc used 0
grep -q "^environment: 2 files: verdict: runs on a CUDA 12.2 driver (branch 535) with the forward-compatibility package for CUDA 13.1$" \
	"$T/used.out" || fail "used: $(cat "$T/used.out")"
grep -qF "environment: forward compatibility: $P is NVIDIA's forward-compatibility package for CUDA 13.1 (driver branches 525,535,550; devices 7,8,9); with a CUDA 12.2 driver (branch 535) it is used" \
	"$T/used.out" || fail "used: the package is not named: $(cat "$T/used.out")"
grep -q "^environment: forward compatibility on sm_90: accepted (a data-centre GPU)$" "$T/used.out" ||
	fail "used: sm_90 does not accept it: $(cat "$T/used.out")"
# 2. A branch the note does not list: not used.
run_cmd unlisted "$CUSHIM" check --driver-version=12.8 --gpu=sm_90 "$I"
expect_rc unlisted 1
grep -qF "with a CUDA 12.8 driver (branch 570) it is not used: branch 570 is not among those the note lists" "$T/unlisted.out" ||
	fail "unlisted: $(cat "$T/unlisted.out")"
# 3. sm_86: the board decides.
run_cmd board "$CUSHIM" check --driver-version=12.2 --gpu=sm_86 "$I"
grep -q "^environment: forward compatibility on sm_86: unknown: data-centre boards of this compute capability accept it, GeForce boards refuse it with error 804" \
	"$T/board.out" || fail "board: $(cat "$T/board.out")"
# 4. A GeForce board, named by the driver: error 804.
fake=$top_builddir/tests/fake
if [ -d "$fake/drv-12.0" ] && [ -d "$fake/no-rt" ]; then
	LD_LIBRARY_PATH=$fake/drv-12.0:$fake/no-rt FAKE_DEVICES=1 FAKE_GPU_CC=8.9 FAKE_GPU_NAME="NVIDIA GeForce RTX 4090" \
		run_cmd geforce "$CUSHIM" check --gpu=auto --json "$I"
	expect_rc geforce 1
	python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["environment"]
c = e["forward_compatibility"]
assert e["runs"] is False, e
assert (c["used"], c["error_804"], c["gpus"]) == (True, True, [{"gpu": "sm_89", "accepts": "refused"}]), c' "$T/geforce.out" ||
		fail "geforce: $(cat "$T/geforce.out" "$T/geforce.err")"
	LD_LIBRARY_PATH=$fake/drv-12.0:$fake/no-rt FAKE_DEVICES=1 FAKE_GPU_CC=8.9 FAKE_GPU_NAME="NVIDIA GeForce RTX 4090" \
		run_cmd geforce-text "$CUSHIM" check --gpu=auto "$I"
	grep -qF "verdict: will not run on a CUDA 12.0 driver (branch 525) with the forward-compatibility package for CUDA 13.1: decided by $P: NVIDIA's forward-compatibility package for CUDA 13.1 is used with this driver, and on sm_89 (NVIDIA GeForce RTX 4090): refused: cuInit fails with error 804" \
		"$T/geforce-text.out" || fail "geforce-text: $(cat "$T/geforce-text.out" "$T/geforce-text.err")"
else
	echo "the fake drivers are not built: the GeForce case is not run"
fi
finish
