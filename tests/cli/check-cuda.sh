#!/bin/sh
# cushim check on programs built once by make with the configured nvcc
# (tests/cli/local.mk: tests/cli/cuda): the CUDA runtime each carries
# (linked statically, nvcc's default; or dynamically),
# its GPU code (SASS and PTX), and the verdict for CUDA 12.0 and 13.0 drivers
# on sm_80, sm_90 and sm_100, without a GPU.  The expected answers come from
# NVIDIA's rules (a CUDA X.y runtime needs a driver of CUDA X.0 or later; SASS
# sm_XY runs on X.Z, Z >= Y; PTX compute_XY is JIT-compiled for later GPUs by
# a driver that knows its PTX ISA), from nvcc's own version and the .version
# of the PTX it writes, never from cushim.  Skips (77) without nvcc.
. "$top_srcdir/tests/harness/defs.sh"
unset LD_PRELOAD CUSHIM_DRIVER_VERSION CUSHIM_HIDE CUSHIM_DRIVER CUSHIM_CUDART
[ -n "${NVCC-}" ] && [ -x "$NVCC" ] || { echo "SKIP: no nvcc configured"; exit 77; }
built=$top_builddir/tests/cli/cuda
drvonly=$top_builddir/tests/cli/driver-only-app

# What this nvcc is: its release X.Y, and the CUDA release that introduced
# the PTX ISA it writes (the PTX ISA release notes).
release=$("$NVCC" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9]\).*/\1/p')
major=${release%%.*}
[ -n "$release" ] && [ "$major" -ge 12 ] || { echo "SKIP: nvcc ${release:-?}: these expectations are for CUDA 12 and later"; exit 77; }
for f in static shared sass90 ptx80 drvrt drvonly-nvcc vadd.fatbin vadd.ptx sass100a.fatbin; do
	cp "$built/$f" "$T/$f" || { echo "no $built/$f: make check builds it" >&2; exit 99; }
done
isa=$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$T/vadd.ptx")
case $isa in
9.0) jit=13.0 ;; 8.8) jit=12.9 ;; 8.7) jit=12.8 ;; 8.6) jit=12.7 ;; 8.[0-5]) jit=12.${isa#8.} ;;
*) echo "nvcc $release writes PTX ISA '$isa', which this test does not know" >&2; exit 99 ;;
esac
ver() { echo "$1" | awk -F. '{ print $1 * 1000 + $2 * 10 }'; }

cp "$drvonly" "$T/drvonly" && strip -o "$T/stripped" "$T/static" || exit 99

# The expected answer for PROGRAM on DRIVER and GPU: the exit status, what
# blocks it, how the GPU runs its code, and its runtime.
expect() {
	p=$1 d=$2 g=$3
	case $p in
	static | shared) case $g in sm_80) how=none ;; sm_90) how=sass ;; *) how=ptx ;; esac ;;
	sass90) case $g in sm_90) how=sass ;; *) how=none ;; esac ;;
	ptx80) how=ptx ;;
	*) how=null ;;
	esac
	[ "$how" = ptx ] && [ "$(ver "$d")" -lt "$(ver "$jit")" ] && how=ptx_too_new
	case $p in
	static | sass90 | ptx80 | drvrt) rt="static $release true" ;;
	shared) rt="dynamic $major.0 true" ;;
	drvonly-nvcc) rt="static $release false" ;;
	*) rt="none" ;;
	esac
	blocked=
	[ "$rt" != none ] && [ "${rt##* }" = true ] && [ "$(ver "$d")" -lt "$((major * 1000))" ] && blocked=runtime
	case $how in none | ptx_too_new) blocked="${blocked:+$blocked,}gpu_code" ;; esac
	rc=0
	[ -n "$blocked" ] && rc=1
	echo "$rc ${blocked:-none} $how $rt"
}

cat >"$T/got.py" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
g = f["on_gpus"][0]
rt = f["runtime"]
r = "none" if rt is None else "%s %s %s" % (rt["linkage"], rt["version"], str(rt["used"]).lower())
print(",".join(f["verdict"]["blocked_by"]) or "none", g["how"] or "null", r)
EOF

# 1. Every program, on each driver and GPU, as JSON.
for p in static shared sass90 ptx80 drvrt drvonly drvonly-nvcc; do
	for d in 12.0 13.0; do
		for g in sm_80 sm_90 sm_100; do
			run_cmd "$p-$d-$g" "$CUSHIM" check --json --driver-version="$d" --gpu="$g" "$T/$p"
			want=$(expect "$p" "$d" "$g")
			got="$rc $(python3 "$T/got.py" "$T/$p-$d-$g.out" 2>&1)"
			[ "$got" = "$want" ] || fail "$p on a CUDA $d driver and $g: got [$got], wanted [$want]"
		done
	done
done

# 2. The text says which requirement decides and whether cushim can help.
rtline="the CUDA $release runtime refuses drivers older than CUDA $major.0 (cudaErrorInsufficientDriver), and cushim cannot change that"
run_cmd drvrt12 "$CUSHIM" check --driver-version=12.0 "$T/drvrt"
if [ "$major" -ge 13 ]; then
	expect_rc drvrt12 1
	grep -qF "$T/drvrt: verdict: will not run on a CUDA 12.0 driver (branch 525): $rtline" "$T/drvrt12.out" ||
		fail "the simpleDrvRuntime-style program on 12.0: no runtime verdict in: $(cat "$T/drvrt12.out")"
	grep -qF "$T/drvrt: a CUDA 12.0 driver provides all 3 driver imports" "$T/drvrt12.out" ||
		fail "the imports alone should pass on 12.0: $(cat "$T/drvrt12.out")"
fi
# The caller is a C++ function (the runtime header's cudaMalloc<float>):
# named as the source does where configure linked a demangler.
if grep -q "^DEMANGLE_LIBS=''\$" "$top_builddir/config.log"; then
	caller='[^ ]*'
else
	caller='[^_ ][^(]*([^)]*)'
fi
grep -q "^$T/drvrt: the runtime is used: $caller calls cuda[A-Z]" "$T/drvrt12.out" ||
	fail "drvrt: the runtime's use is not named: $(grep 'runtime is used' "$T/drvrt12.out")"
run_cmd drvrt13 "$CUSHIM" check --driver-version=13.0 "$T/drvrt"
expect_rc drvrt13 0
grep -qF "$T/drvrt: verdict: runs on a CUDA 13.0 driver (branch 580); it needs a CUDA $major.0 driver" "$T/drvrt13.out" ||
	fail "drvrt on 13.0: $(cat "$T/drvrt13.out")"
run_cmd nvcconly "$CUSHIM" check --driver-version=12.0 "$T/drvonly-nvcc"
expect_rc nvcconly 0
grep -qF "the runtime is never called" "$T/nvcconly.out" || fail "drvonly-nvcc: the unused runtime is not said"
grep -q "verdict: runs on a CUDA 12.0 driver (branch 525); it needs a CUDA 11.0 driver (branch 450) or newer, set by its driver imports$" \
	"$T/nvcconly.out" || fail "drvonly-nvcc on 12.0: $(cat "$T/nvcconly.out")"

# 3. The images, with what they record.
run_cmd images "$CUSHIM" check --json "$T/static"
python3 - "$T/images.out" "$release" "$isa" >"$T/images.why" 2>&1 <<'EOF' || fail "static's images: $(cat "$T/images.why")"
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
live = [(i["kind"], i["name"], i["toolkit"], i["ptx_isa"]) for i in f["gpu_code"]["images"] if not i["empty"]]
want = [("sass", "sm_90", sys.argv[2], None), ("ptx", "compute_90", None, sys.argv[3])]
assert sorted(live) == sorted(want), live
assert f["runtime"]["from"].find("release " + sys.argv[2]) >= 0, f["runtime"]["from"]
EOF
run_cmd imagetext "$CUSHIM" check "$T/static"
grep -q "^  PTX   compute_90 *PTX ISA $isa: JIT needs a CUDA $jit driver" "$T/imagetext.out" ||
	fail "static: the PTX line does not name ISA $isa and CUDA $jit: $(cat "$T/imagetext.out")"

# 4. A .fatbin file on its own, and the driver branch given instead of a version.
run_cmd fb "$CUSHIM" check --driver-version=525.60.13 --gpu=sm_90,sm_100 "$T/vadd.fatbin"
grep -q "^$T/vadd.fatbin: on sm_90: runs its SASS sm_90" "$T/fb.out" || fail "vadd.fatbin on sm_90: $(cat "$T/fb.out")"
# SASS from a newer major release than the driver: said, not promised.
[ "$major" -gt 12 ] && { grep -q "^$T/vadd.fatbin: on sm_90: runs its SASS sm_90 (built by CUDA $release: NVIDIA does not promise" \
	"$T/fb.out" || fail "vadd.fatbin on sm_90 with 525: SASS of CUDA $release not flagged"; }
if [ "$(ver "$jit")" -gt 12000 ]; then
	expect_rc fb 1
	grep -q "^$T/vadd.fatbin: verdict: will not run on sm_100 with a CUDA 12.0 driver (branch 525): " "$T/fb.out" ||
		fail "vadd.fatbin on sm_100 with 525: $(cat "$T/fb.out")"
fi
run_cmd branch "$CUSHIM" check --driver-version=590 "$T/drvrt"
expect_rc branch 2
grep -q "driver branch 590 is not in cushim's table" "$T/branch.err" || fail "an unknown branch is not named: $(cat "$T/branch.err")"
run_cmd badgpu "$CUSHIM" check --gpu=hopper "$T/drvrt"
expect_rc badgpu 2
grep -q "'hopper' is not a GPU architecture" "$T/badgpu.err" || fail "a bad --gpu is not named"

# 5. Stripped: whether the runtime is called cannot be told, so it counts.
run_cmd stripped "$CUSHIM" check --json --driver-version=12.0 --gpu=sm_90 "$T/stripped"
got=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(f["runtime"]["linkage"], f["runtime"]["used"], f["runtime"]["version"])' "$T/stripped.out")
[ "$got" = "static None $release" ] || fail "stripped static program: runtime [$got]"

# 6. Bad fatbins: one message naming the file, exit 2, no crash.
head -c 3000 "$T/vadd.fatbin" >"$T/cut.fatbin"
run_cmd cut "$CUSHIM" check "$T/cut.fatbin"
expect_rc cut 2
[ "$(wc -l <"$T/cut.err")" -eq 1 ] && grep -q "^cushim: $T/cut.fatbin has GPU code cushim cannot read: .*truncated" "$T/cut.err" ||
	fail "a cut fatbin: $(cat "$T/cut.err")"
off=$(readelf -SW "$T/sass90" | awk '$2 == ".nv_fatbin" { print $5 }')
[ -n "$off" ] || exit 99
cp "$T/sass90" "$T/corrupt" && printf 'XXXX' | dd of="$T/corrupt" bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
run_cmd corrupt "$CUSHIM" check --driver-version=13.0 "$T/corrupt"
expect_rc corrupt 2
grep -q "^cushim: $T/corrupt has GPU code cushim cannot read: .nv_fatbin: no fatbin at offset 0x0 (magic 0x58585858" \
	"$T/corrupt.err" || fail "a corrupt .nv_fatbin: $(cat "$T/corrupt.err")"

# 7. Arch-specific SASS (sm_100a, nvcc 12.8 and later) runs on 10.0 alone:
# on sm_100a it runs; sm_100f names a family whose other GPUs cannot run it,
# so the answer there is unknown, not a verdict; sm_103 has no code.
if [ "$(ver "$release")" -ge 12080 ]; then
	[ -s "$T/sass100a.fatbin" ] || { echo "nvcc $release built no SASS sm_100a ($built/sass100a.fatbin)" >&2; exit 99; }
	run_cmd arch "$CUSHIM" check --driver-version=13.0 --gpu=sm_100a,sm_100f,sm_103 "$T/sass100a.fatbin"
	expect_rc arch 1
	grep -q "^$T/sass100a.fatbin: on sm_100a: runs its SASS sm_100a" "$T/arch.out" ||
		fail "sm_100a: its own SASS does not run there: $(cat "$T/arch.out")"
	grep -q "^$T/sass100a.fatbin: on sm_100f: unknown: sm_100f is a family of GPUs, and its SASS sm_100a runs on sm_100 alone" "$T/arch.out" ||
		fail "sm_100f: not unknown: $(cat "$T/arch.out")"
	grep -q "^$T/sass100a.fatbin: verdict: will not run on sm_103" "$T/arch.out" ||
		fail "sm_103: sm_100a SASS said to run there: $(cat "$T/arch.out")"
	grep -q "will not run on sm_100f\|also on sm_100f" "$T/arch.out" && fail "sm_100f: a verdict on a family: $(cat "$T/arch.out")"
fi

# 8. --recursive reaches the runtime library itself, when the loader finds it.
lib=$(dirname "$(dirname "$NVCC")")/lib64
if [ -e "$lib/libcudart.so.$major" ]; then
	LD_LIBRARY_PATH=$lib
	export LD_LIBRARY_PATH
	run_cmd rec "$CUSHIM" check --recursive --json "$T/shared"
	unset LD_LIBRARY_PATH
	python3 -c 'import json,sys
fs = [f for f in json.load(open(sys.argv[1]))["files"] if f["runtime"] and f["runtime"]["linkage"] == "self"]
assert len(fs) == 1 and fs[0]["runtime"]["version"] == sys.argv[2], fs' "$T/rec.out" "$release" 2>"$T/rec.why" ||
		fail "--recursive does not reach libcudart.so.$major as the CUDA $release runtime: $(cat "$T/rec.why")"
fi
finish
