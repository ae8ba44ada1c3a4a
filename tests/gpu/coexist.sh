#!/bin/sh
# cushim beside the other tools that hook the driver, on a real GPU.
#
# HAMi-core: CUSHIM_TEST_VGPU=/path/libvgpu.so, built elsewhere from its own
# sources (nothing here builds it); skipped, and said so, without it.  With
# CUDA_DEVICE_MEMORY_LIMIT=${CUSHIM_TEST_VGPU_LIMIT:-1024}m, in four ways:
# libvgpu.so alone, LD_PRELOAD="libcushim.so libvgpu.so", the reverse, and
# `cushim run --masquerade` with libvgpu.so preloaded; for coexist-app (the
# driver API: by name, through cuGetProcAddress, and the runtime's dlsym
# route) and for PyTorch where python3 imports torch:
#   - results as with libvgpu.so alone (PyTorch: the plain run's matmul);
#   - the limit enforced: an allocation of twice the limit fails, each way;
#   - cushim counts the program's calls (JSON summaries against cushim alone,
#     in the same mode), and CUSHIM_HIDE and CUSHIM_DRIVER_VERSION act;
#   - no crash, recursion or hang (timeouts), under a fork storm too;
#   - libvgpu.so first in LD_PRELOAD: one warning naming it and the order.
# Nsight Systems (nsys), Nsight Compute (ncu) and compute-sanitizer (memcheck,
# racecheck), each where found (PATH, /usr/local/cuda*/bin, /opt/nvidia),
# on saxpy plain, under LD_PRELOAD and under masquerade: the same kernels
# (nsys, ncu), every API function of the plain run still reported (nsys),
# no tool error, the program's output unchanged, and cushim's summary
# counting every call cushim counts without the tool.  The nsys inside Nsight
# Compute's folder has no importer and writes only a .qdstrm: then what it
# collected is checked, and the comparison of reports is said to be skipped.
# Exit 77 without a GPU (gpu-env.sh) or when neither libvgpu.so nor any tool
# is found.  CUSHIM_TEST_OUT keeps the logs (else a temporary folder).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
CUSHIM=$top_builddir/cushim
app=$top_builddir/tests/gpu/coexist-app
saxpy=$top_builddir/tests/gpu/saxpy
out=${CUSHIM_TEST_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cushim-coexist.XXXXXX")}
mkdir -p "$out" || exit 99
SHIM=$(realpath "$SHIM")
failures=0 ran=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
say() { echo "coexist: $*"; }
unset CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_DRIVER CUSHIM_CUDART

# count FILE.json [FUNCTION]: calls of one function (all calls without one)
count() {
	python3 -c 'import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: print(-1); sys.exit()
print(d["calls"] if len(sys.argv) < 3 else sum(r["calls"] for r in d["functions"] if r["name"] == sys.argv[2]))' "$@"
}

# lost BASE.json RUN.json: the functions RUN counted fewer times than BASE
lost() {
	python3 -c 'import json,sys
b,r=[{f["name"]: f["calls"] for f in json.load(open(p))["functions"]} for p in sys.argv[1:3]]
print(" ".join("%s:%d<%d" % (k, r.get(k, 0), v) for k, v in sorted(b.items()) if r.get(k, 0) < v))' "$1" "$2" 2>&1
}

# run NAME PRELOAD masquerade|plain CMD...: output in $out/NAME.out, stderr
# in NAME.err, exit status in $rc, cushim's summary in NAME.json.
run() {
	rname=$1 pre=$2 how=$3
	shift 3
	rm -f "$out/$rname.json"
	if [ "$how" = masquerade ]; then
		set -- "$CUSHIM" run --masquerade -- "$@"
	fi
	LD_PRELOAD=$pre CUSHIM_SUMMARY=$out/$rname.json timeout 300 "$@" >"$out/$rname.out" 2>"$out/$rname.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$rname: exit status $rc: $(grep -v '^\[HAMI' "$out/$rname.err" | tail -3)"
	if grep -i 'recursi' "$out/$rname.err" | grep -qv '^cushim'; then
		fail "$rname: $(grep -i 'recursi' "$out/$rname.err" | grep -v '^cushim' | head -1)"
	fi
}

# (an allocation over the limit that reaches cushim is named, as any out of
# memory is: not a warning about the stacking)
warnings() { grep '^cushim: ' "$out/$1.err" | grep -v 'summary of pid\|^cushim: *[0-9]\|^cushim: *calls\|returned CUDA_ERROR_OUT_OF_MEMORY'; }

# ---- HAMi-core ----
hami_app() { # the driver-API program in every stacking
	over=$(grep -c '_over=2$' "$out/alone.out")
	say "libvgpu.so alone: $(tr '\n' ' ' <"$out/alone.out")"
	[ "$over" -eq 3 ] || fail "libvgpu.so alone does not refuse 2x the limit each way ($over of 3): not a HAMi-core limit"
	for c in first second masq first-fork masq-fork; do
		grep -v '^fork_' "$out/$c.out" | cmp -s - "$out/alone.out" && same=same || same=DIFFERENT
		n=$(grep -c '_over=2$' "$out/$c.out")
		say "$c: results $same as libvgpu.so alone; limit enforced $([ "$n" -eq 3 ] && echo yes || echo "NO ($n of 3)")"
		[ "$same" = same ] || fail "$c: $(diff "$out/alone.out" "$out/$c.out" | tr '\n' ' ')"
		[ "$n" -eq 3 ] || fail "$c: the limit was lost"
	done
	for c in first-fork masq-fork; do
		grep -qx fork_children_failed=0 "$out/$c.out" || fail "$c: fork storm: $(grep fork_ "$out/$c.out")"
	done
	for c in first:shim masq:masq-only; do
		r=${c%:*} b=${c#*:}
		say "$r: cushim counted $(count "$out/$r.json") calls ($(count "$out/$r.json" cuLaunchKernel) cuLaunchKernel), cushim alone $(count "$out/$b.json") ($(count "$out/$b.json" cuLaunchKernel))"
		[ "$(count "$out/$r.json" cuLaunchKernel)" = "$(count "$out/$b.json" cuLaunchKernel)" ] ||
			fail "$r: cushim lost launches"
	done
	l=$(lost "$out/shim.json" "$out/first.json")
	[ -z "$l" ] || fail "first: cushim counted fewer calls than alone: $l"
	[ -z "$(warnings first)$(warnings masq)" ] || fail "cushim warned: $(warnings first) $(warnings masq)"
	w=$(warnings second)
	say "second: cushim said: $w"
	[ "$(printf '%s\n' "$w" | grep -c .)" -eq 1 ] && printf '%s' "$w" | grep -qF "$(basename "$V") is preloaded ahead of libcushim.so" &&
		printf '%s' "$w" | grep -qF "LD_PRELOAD=\"libcushim.so $(basename "$V")\"" ||
		fail "second: wanted one warning naming $(basename "$V") and the order that works"
	for c in first-hide masq-hide; do
		grep -qx funcname=36 "$out/$c.out" || fail "$c: CUSHIM_HIDE=cuFuncGetName not effective"
		say "$c: $(grep -E 'funcname|meminfo' "$out/$c.out" | tr '\n' ' ')"
	done
	for c in first-emul masq-emul; do
		grep -q '^version=0 12000$' "$out/$c.out" || fail "$c: CUSHIM_DRIVER_VERSION=12.0 not seen: $(grep version "$out/$c.out")"
	done
}

hami_torch() {
	py='import torch
torch.manual_seed(0); a = torch.randn(1024, 1024, device="cuda")
print("matmul %.1f" % (a @ a).double().sum().item())
try:
    torch.empty(int(MIB) * 2 << 20, dtype=torch.uint8, device="cuda"); print("over allocated")
except RuntimeError as e:
    print("over refused" if "out of memory" in str(e).lower() else "over error " + str(e)[:80])'
	py=$(printf '%s' "$py" | sed "s/MIB/$limit/")
	run t-plain "" plain python3 -c "$py"
	run t-alone "$V" plain python3 -c "$py"
	run t-masq-only "" masquerade python3 -c "$py"
	run t-first "$SHIM $V" plain python3 -c "$py"
	run t-second "$V $SHIM" plain python3 -c "$py"
	run t-masq "$V" masquerade python3 -c "$py"
	say "PyTorch plain: $(tr '\n' ' ' <"$out/t-plain.out"); libvgpu.so alone: $(tr '\n' ' ' <"$out/t-alone.out")"
	grep -qx 'over refused' "$out/t-alone.out" || fail "PyTorch: libvgpu.so alone does not refuse 2x the limit"
	for c in t-first t-second t-masq; do
		cmp -s "$out/t-alone.out" "$out/$c.out" || fail "$c: $(tr '\n' ' ' <"$out/$c.out")"
		grep -qx 'over refused' "$out/$c.out" && e=yes || e=NO
		say "$c: $(tr '\n' ' ' <"$out/$c.out")limit enforced $e; cushim counted $(count "$out/$c.json") calls ($(count "$out/$c.json" cuLaunchKernel) cuLaunchKernel)"
	done
	say "t-masq-only (cushim, no HAMi): $(count "$out/t-masq-only.json") calls ($(count "$out/t-masq-only.json" cuLaunchKernel) cuLaunchKernel)"
	[ "$(grep -o 'matmul.*' "$out/t-masq.out")" = "$(grep -o 'matmul.*' "$out/t-plain.out")" ] || fail "PyTorch: matmul differs"
	[ "$(count "$out/t-masq.json")" -gt 0 ] || fail "t-masq: cushim saw no call"
}

if [ -n "${CUSHIM_TEST_VGPU:-}" ] && [ -f "$CUSHIM_TEST_VGPU" ]; then
	ran=1
	V=$(realpath "$CUSHIM_TEST_VGPU") limit=${CUSHIM_TEST_VGPU_LIMIT:-1024}
	export CUDA_DEVICE_MEMORY_LIMIT=${limit}m CUDA_DEVICE_MEMORY_SHARED_CACHE=$out/vgpu.cache
	say "HAMi-core: $V, CUDA_DEVICE_MEMORY_LIMIT=$CUDA_DEVICE_MEMORY_LIMIT"
	run alone "$V" plain "$app" "$limit"
	run shim "$SHIM" plain "$app" "$limit"
	run masq-only "" masquerade "$app" "$limit"
	run first "$SHIM $V" plain "$app" "$limit"
	run second "$V $SHIM" plain "$app" "$limit"
	run masq "$V" masquerade "$app" "$limit"
	run first-fork "$SHIM $V" plain "$app" "$limit" fork
	run masq-fork "$V" masquerade "$app" "$limit" fork
	CUSHIM_HIDE=cuFuncGetName run first-hide "$SHIM $V" plain "$app" "$limit"
	CUSHIM_HIDE=cuFuncGetName run masq-hide "$V" masquerade "$app" "$limit"
	CUSHIM_DRIVER_VERSION=12.0 run first-emul "$SHIM $V" plain "$app" "$limit"
	CUSHIM_DRIVER_VERSION=12.0 run masq-emul "$V" masquerade "$app" "$limit"
	hami_app
	if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
		hami_torch
	else
		say "PyTorch: skipped (python3 cannot import torch with CUDA)"
	fi
	unset CUDA_DEVICE_MEMORY_LIMIT CUDA_DEVICE_MEMORY_SHARED_CACHE
else
	say "HAMi-core: skipped (set CUSHIM_TEST_VGPU to a libvgpu.so built from Project-HAMi/HAMi-core)"
fi

# ---- Nsight Systems, Nsight Compute, compute-sanitizer ----
find_tool() {
	command -v "$1" 2>/dev/null && return
	for f in /usr/local/cuda*/bin/"$1" /opt/nvidia/*/bin/"$1" /opt/nvidia/*/*/bin/"$1" /opt/nvidia/*/"$1" \
		/opt/nvidia/*/*/"$1" /usr/local/cuda*/nsight-*/"$1" /usr/local/cuda*/nsight-*/bin/"$1" \
		/usr/local/cuda*/compute-sanitizer/"$1" /opt/nvidia/nsight-compute/*/host/target-linux-*/"$1"; do
		[ -x "$f" ] && { echo "$f"; return; }
	done
}

# under NAME TOOL-ARGS...: saxpy plain, preloaded and in masquerade under the
# tool, as NAME-plain, NAME-preload, NAME-masq; @MODE@ in an argument is the mode.
under() {
	tname=$1
	shift
	base=$#
	for m in plain preload masq; do
		case $m in
		plain) set -- "$@" "$saxpy" ;;
		preload) set -- "$@" sh -c 'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$1"' "$SHIM" "$saxpy" ;;
		masq) set -- "$@" "$CUSHIM" run --masquerade -- "$saxpy" ;;
		esac
		mode_run "$tname-$m" "$m" "$@"
		i=0 # back to the tool's own arguments
		for a do
			shift
			i=$((i + 1))
			[ "$i" -le "$base" ] && set -- "$@" "$a"
		done
	done
	for m in preload masq; do
		[ "$(grep '^saxpy: ' "$out/$tname-$m.out")" = "$(grep '^saxpy: ' "$out/$tname-plain.out")" ] &&
			grep -q '^saxpy: .*mismatches=0' "$out/$tname-$m.out" || fail "$tname-$m: saxpy's output differs under the tool"
		b=shim-saxpy
		[ "$m" = masq ] && b=masq-saxpy
		l=$(lost "$out/$b.json" "$out/$tname-$m.json")
		say "$tname-$m: cushim counted $(count "$out/$tname-$m.json") calls (without the tool $(count "$out/$b.json"))${l:+; FEWER: $l}"
		[ -z "$l" ] || fail "$tname-$m: cushim's summary lost calls: $l"
	done
}

# mode_run NAME MODE CMD...: run, with @MODE@ in CMD's arguments replaced by MODE.
mode_run() {
	n=$1 m=$2
	shift 2
	for a do
		shift
		set -- "$@" "$(printf '%s' "$a" | sed "s/@MODE@/$m/g")"
	done
	run "$n" "" plain "$@"
}

csv_names() { # FILE COLUMN-NAME...: "name count" per row of a CSV report
	python3 -c 'import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if r]
h=[i for i,r in enumerate(rows) if "Name" in r or "Kernel Name" in r]
if not h: sys.exit()
head=rows[h[0]]; n=head.index("Kernel Name") if "Kernel Name" in head else head.index("Name")
c=next((head.index(k) for k in sys.argv[2:] if k in head), None)
for r in rows[h[0]+1:]:
    if len(r) > n: print(r[n], r[c] if c is not None and len(r) > c else "")' "$@" | sort
}

nsys=$(find_tool nsys) ncu=$(find_tool ncu) cs=$(find_tool compute-sanitizer)
if [ -n "$nsys$ncu$cs" ]; then # what cushim counts without a tool
	run shim-saxpy "$SHIM" plain "$saxpy"
	run masq-saxpy "" masquerade "$saxpy"
fi

if [ -n "$nsys" ]; then
	ran=1
	say "nsys: $nsys ($("$nsys" --version 2>/dev/null | head -1))"
	under nsys "$nsys" profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true -o "$out/nsys-@MODE@"
	if [ ! -f "$out/nsys-plain.nsys-rep" ] && [ -f "$out/nsys-plain.qdstrm" ]; then
		# The nsys that Nsight Compute bundles collects, but has no
		# importer (QdstrmImporter) to turn a .qdstrm into a report.
		for m in plain preload masq; do
			[ -s "$out/nsys-$m.qdstrm" ] || fail "nsys-$m: nothing collected"
			grep -v 'mporter\|^Generat\|^Collecting\|qdstrm$\|^saxpy: ' "$out/nsys-$m.out" "$out/nsys-$m.err" |
				grep -i 'error\|fail' >"$out/nsys-$m.errors"
		done
		for m in preload masq; do
			say "nsys-$m: collected $(wc -c <"$out/nsys-$m.qdstrm") bytes (plain $(wc -c <"$out/nsys-plain.qdstrm")); tool errors: $(wc -l <"$out/nsys-$m.errors") (plain $(wc -l <"$out/nsys-plain.errors"))"
			[ "$(wc -l <"$out/nsys-$m.errors")" -le "$(wc -l <"$out/nsys-plain.errors")" ] ||
				fail "nsys-$m: $(head -3 "$out/nsys-$m.errors")"
		done
		say "nsys: this nsys has no importer, so no report: kernels and API calls not compared"
	else
		set -- "$out/nsys-plain.nsys-rep" "$out/nsys-preload.nsys-rep" "$out/nsys-masq.nsys-rep"
		for m in plain preload masq; do
			[ -f "$1" ] || { fail "nsys-$m: no report $1"; shift; continue; }
			"$nsys" stats --report cuda_gpu_kern_sum --format csv --output - "$1" >"$out/nsys-$m.kern.csv" 2>/dev/null
			"$nsys" stats --report cuda_api_sum --format csv --output - "$1" >"$out/nsys-$m.api.csv" 2>/dev/null
			csv_names "$out/nsys-$m.kern.csv" Instances >"$out/nsys-$m.kern"
			csv_names "$out/nsys-$m.api.csv" "Num Calls" >"$out/nsys-$m.api"
			shift
		done
		for m in preload masq; do
			cmp -s "$out/nsys-plain.kern" "$out/nsys-$m.kern" && k=same || k=DIFFERENT
			missing=$(cut -d' ' -f1 "$out/nsys-plain.api" | while read -r f; do grep -q "^$f " "$out/nsys-$m.api" || printf '%s ' "$f"; done)
			extra=$(cut -d' ' -f1 "$out/nsys-$m.api" | while read -r f; do grep -q "^$f " "$out/nsys-plain.api" || printf '%s ' "$f"; done)
			say "nsys-$m: kernels $k ($(tr '\n' ' ' <"$out/nsys-$m.kern")); API functions $(wc -l <"$out/nsys-$m.api") against $(wc -l <"$out/nsys-plain.api") plain; missing: ${missing:-none}; added: ${extra:-none}"
			[ "$k" = same ] || fail "nsys-$m: kernels differ from the plain run"
			[ -s "$out/nsys-plain.kern" ] || fail "nsys: no kernel in the plain report"
			[ -z "$missing" ] || fail "nsys-$m: API functions of the plain run not reported: $missing"
		done
	fi
else
	say "nsys: not found (PATH, /usr/local/cuda*/bin, /opt/nvidia): skipped"
fi

if [ -n "$ncu" ]; then
	ran=1
	say "ncu: $ncu ($("$ncu" --version 2>/dev/null | tail -1))"
	under ncu "$ncu" --target-processes all -k saxpy -c 1 --metrics gpu__time_duration.sum --csv
	for m in plain preload masq; do
		grep -c '"saxpy' "$out/ncu-$m.out" >"$out/ncu-$m.n"
		grep '==ERROR==\|==WARNING==' "$out/ncu-$m.out" "$out/ncu-$m.err" >"$out/ncu-$m.errors"
	done
	for m in preload masq; do
		say "ncu-$m: saxpy rows $(cat "$out/ncu-$m.n") (plain $(cat "$out/ncu-plain.n")); tool errors: $(wc -l <"$out/ncu-$m.errors") (plain $(wc -l <"$out/ncu-plain.errors"))"
		[ "$(cat "$out/ncu-$m.n")" = "$(cat "$out/ncu-plain.n")" ] && [ "$(cat "$out/ncu-plain.n")" -gt 0 ] ||
			fail "ncu-$m: the profiled kernel differs from the plain run"
		[ "$(wc -l <"$out/ncu-$m.errors")" -le "$(wc -l <"$out/ncu-plain.errors")" ] || fail "ncu-$m: $(head -3 "$out/ncu-$m.errors")"
	done
else
	say "ncu: not found: skipped"
fi

if [ -n "$cs" ]; then
	ran=1
	say "compute-sanitizer: $cs"
	for tool in memcheck racecheck; do
		under "cs-$tool" "$cs" --tool "$tool" --target-processes all --error-exitcode 9
		for m in plain preload masq; do
			s=$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$out/cs-$tool-$m.out" "$out/cs-$tool-$m.err" | tail -1)
			say "cs-$tool-$m: ${s:-no summary}"
			printf '%s' "$s" | grep -q ' 0 errors\| 0 hazards' || fail "cs-$tool-$m: $s"
		done
	done
else
	say "compute-sanitizer: not found: skipped"
fi

say "logs in $out"
[ "$ran" -eq 1 ] || { echo "neither CUSHIM_TEST_VGPU nor nsys, ncu or compute-sanitizer: nothing to run" >&2; exit 77; }
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
exit 0
