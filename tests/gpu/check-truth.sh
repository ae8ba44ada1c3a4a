#!/bin/sh
# cushim check against the real thing.  Each program this build has or nvcc
# makes here (driver API with SASS, driver API with PTX alone, runtime API
# linked statically and shared, arch-specific SASS, PyTorch where it is
# installed) runs under each emulated driver (CUSHIM_DRIVER_VERSION in
# masquerade, runtime gate included) and its outcome (exit 0 or not) is
# held to `cushim check --driver-version=X --gpu=auto`'s verdict for the
# same files.  The agreement is printed as a table.  A disagreement fails,
# unless it is a documented limit of emulation (doc/DESIGN.md, "Emulation,
# lookups above the driver's version, and adapters"):
# the driver's PTX compiler is the real one, so PTX that an older driver
# could not compile still runs under emulation ("limit: jit").
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
CUSHIM="$top_builddir/cushim"
VERSIONS=${CHECK_TRUTH_VERSIONS:-"11.8 12.0 12.2 12.4 12.8 13.0"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-truth.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')

# ---- the programs: NAME, how it runs, the files check reads ----
progs=""
add() { progs="$progs$1|$2|$3
"; }
add saxpy "$top_builddir/tests/gpu/saxpy" "$top_builddir/tests/gpu/saxpy"
if command -v nvcc >/dev/null 2>&1; then
	src="$top_srcdir/tests/cli/kernel.cu" # a kernel and a main that launches it through the runtime
	nvcc -o "$tmp/rt-static" "$src" 2>"$tmp/nvcc.err" && add rt-static "$tmp/rt-static" "$tmp/rt-static"
	nvcc -cudart shared -o "$tmp/rt-shared" "$src" 2>>"$tmp/nvcc.err" &&
		add rt-shared "$tmp/rt-shared" "$tmp/rt-shared $(ldd "$tmp/rt-shared" | sed -n 's/.*libcudart.so.* => \([^ ]*\).*/\1/p')"
	nvcc -gencode arch=compute_$cc,code=compute_$cc -o "$tmp/ptx-only" "$src" 2>>"$tmp/nvcc.err" &&
		add ptx-only "$tmp/ptx-only" "$tmp/ptx-only"
	nvcc -gencode arch=compute_${cc}a,code=sm_${cc}a -o "$tmp/sass-a" "$src" 2>>"$tmp/nvcc.err" &&
		add "sm_${cc}a" "$tmp/sass-a" "$tmp/sass-a"
	nvcc -gencode arch=compute_80,code=sm_80 -o "$tmp/sass-80" "$src" 2>>"$tmp/nvcc.err" &&
		add sass-80-only "$tmp/sass-80" "$tmp/sass-80"
	[ -s "$tmp/nvcc.err" ] && head -n 5 "$tmp/nvcc.err"
fi
PY=${PYTHON:-python3}
if "$PY" -c 'import torch' 2>/dev/null; then
	printf 'import torch\nx = torch.arange(1024, device="cuda", dtype=torch.float32)\nprint(float((x * 2).sum().item()))\n' >"$tmp/truth_torch.py"
	add pytorch "$PY $tmp/truth_torch.py" "--python=$PY"
fi

# ---- each program under each version ----
verdict() { # VERSION FILES...: yes, no or unknown
	v=$1; shift
	"$CUSHIM" check --json --driver-version="$v" --gpu=auto "$@" 2>/dev/null |
		"$PY" -c 'import json,sys
d = json.load(sys.stdin)
print({True: "yes", False: "no"}.get(d.get("runs"), "unknown"))' 2>/dev/null || echo unknown
}
printf '%-14s' program >"$tmp/table"
for v in $VERSIONS; do printf ' %-15s' "$v" >>"$tmp/table"; done
echo >>"$tmp/table"
echo "$progs" | while IFS='|' read -r name run files; do
	[ -n "$name" ] || continue
	printf '%-14s' "$name"
	for v in $VERSIONS; do
		# shellcheck disable=SC2086
		CUSHIM_DRIVER_VERSION=$v timeout 120 "$CUSHIM" run --masquerade -- $run >"$tmp/run.out" 2>&1 && ran=yes || ran=no
		# shellcheck disable=SC2086
		said=$(verdict "$v" $files)
		mark=agree
		if [ "$said" != "$ran" ]; then
			mark=DISAGREE
			[ "$name" = ptx-only ] && [ "$ran" = yes ] && [ "$said" = no ] && mark=limit:jit
		fi
		printf ' %-15s' "$said/$ran:$mark"
		[ "$mark" = DISAGREE ] && echo "DISAGREE $name $v: check says $said, it ran: $ran: $(tail -n 3 "$tmp/run.out" | tr '\n' ' ' | cut -c1-400)" >>"$tmp/bad"
	done
	echo
done >>"$tmp/table"
echo "== check's verdict / the outcome under emulation (driver sm_$cc, CUDA ${VERSIONS})"
cat "$tmp/table"
if [ -s "$tmp/bad" ]; then
	cat "$tmp/bad"
	fail=1
fi
exit $fail
