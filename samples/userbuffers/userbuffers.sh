#!/bin/sh
# The Userbuffers suite: every case runs plain and under the shim
# (CUSHIM_HIDE='cuMulticast*'), and the two runs must report the same results.
# Then the runtime route (ub-test-rt, every driver call through
# cudaGetDriverEntryPointByVersion as TE makes them): plain, under `cushim run
# --masquerade`, masquerade with CUSHIM_DRIVER_VERSION=12.0 and masquerade with
# trace, judged by samples/common/suite-checks.sh (sc_rt_checks); and the seed's
# multicast decision (ub-test-mc, ub-test-mc-drv: only ever under the shim with
# the multicast entry points hidden or emulated away; sc_mc_case).
# SUITE_CHECK_DIR=DIR runs only the runtime-route checks, on the outputs in DIR.
# Exit 0 pass, 1 fail, 77 skip (no GPU, or the sample not built: no nvcc).
: "${top_builddir:=$(pwd)}" "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/samples/common/suite-env.sh"
UB="$top_builddir/samples/userbuffers/ub-test"
sc_suite_begin userbuffers "$top_srcdir/samples/userbuffers/ub-rtroute.h" "$UB"
export UB_TIMEOUT="${UB_TIMEOUT:-20}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-ub.XXXXXX") || exit 1
# UB_KEEP_DIR=DIR keeps every run's output and the shim logs there.
trap 'if [ -n "$UB_KEEP_DIR" ]; then mkdir -p "$UB_KEEP_DIR" && cp -r "$tmp"/. "$UB_KEEP_DIR"/; fi; rm -rf "$tmp"' EXIT
export CUSHIM_LOG="${CUSHIM_LOG:-info}" CUSHIM_LOG_FILE="$tmp/shimlog.%p" UB_JOB_TIMEOUT="${UB_JOB_TIMEOUT:-90}"
pass=0 fail=0 skip=0
fail_names=

note() { printf '%s\n' "$*"; }
result() { # NAME OK|FAIL|SKIP [why]
	case $2 in
	OK) pass=$((pass + 1)); note "PASS: $1" ;;
	SKIP) skip=$((skip + 1)); note "SKIP: $1${3:+ ($3)}" ;;
	*) fail=$((fail + 1)); fail_names="$fail_names $1"; note "FAIL: $1${3:+ ($3)}" ;;
	esac
}
# run_mpi plain|shim ARGS...: ub-test under mpirun, $UB_NP ranks; under the shim
# only the ranks preload it (passed with -x), not mpirun itself.
run_mpi() {
	m_how=$1
	shift
	set -- "$UB" "$@"
	case $mpi_kind in
	openmpi)
		set -- -x CUSHIM_HIDE -x CUSHIM_LOG -x CUSHIM_LOG_FILE -x UB_TIMEOUT -x UB_JOB_TIMEOUT \
			-x NCCL_NVLS_ENABLE ${CUSHIM_TEST_REQUIRE_GPU:+-x CUSHIM_TEST_REQUIRE_GPU} \
			${LD_LIBRARY_PATH:+-x LD_LIBRARY_PATH} "$@"
		[ "$m_how" = shim ] && set -- -x LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
		set -- --allow-run-as-root --oversubscribe -np "$UB_NP" "$@" ;;
	*) # MPICH's hydra passes the whole environment
		[ "$m_how" = shim ] && set -- -genv LD_PRELOAD "$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
		set -- -np "$UB_NP" "$@" ;;
	esac
	$mpi_timeout "$MPIRUN" "$@"
}
# run1 NAME WANT_RC plain|shim|mpi-plain|mpi-shim ARGS...: one run; output in $tmp/NAME.out
run1() {
	r_name=$1 r_want=$2 r_how=$3
	shift 3
	case $r_how in
	shim) run_shimmed "$UB" "$@" >"$tmp/$r_name.out" 2>&1 ;;
	mpi-plain) run_mpi plain "$@" >"$tmp/$r_name.out" 2>&1 ;;
	mpi-shim) run_mpi shim "$@" >"$tmp/$r_name.out" 2>&1 ;;
	*) "$UB" "$@" >"$tmp/$r_name.out" 2>&1 ;;
	esac
	rc=$?
	sed "s/^/    /" "$tmp/$r_name.out"
	if [ $rc -eq 77 ] && [ "$r_want" != 77 ]; then
		result "$r_name" SKIP "the sample skipped: exit 77"
		return 2
	fi
	if [ $rc -ne "$r_want" ]; then
		result "$r_name" FAIL "exit $rc, wanted $r_want"
		return 1
	fi
	return 0
}
# both NAME ARGS...: plain, then under the shim; the "ok" lines must agree.
both() { pair plain shim "$@"; }
# pair PLAIN_HOW SHIM_HOW NAME ARGS...: the same, run as run1's HOWs say.
pair() {
	how_plain=$1 how_shim=$2 name=$3
	shift 3
	run1 "$name.plain" 0 "$how_plain" "$@" && result "$name.plain" OK
	r1=$?
	run1 "$name.shim" 0 "$how_shim" "$@" && result "$name.shim" OK
	r2=$?
	if [ $r1 -eq 2 ] || [ $r2 -eq 2 ]; then
		result "$name.same-results" SKIP "a run skipped"
		return
	fi
	grep -o '\] ok [a-z-]*[ :].*' "$tmp/$name.plain.out" | sort >"$tmp/$name.plain.ok"
	grep -o '\] ok [a-z-]*[ :].*' "$tmp/$name.shim.out" | sort >"$tmp/$name.shim.ok"
	# Both routes (direct and cuGetProcAddress) must land in the shim when it is preloaded.
	if grep 'VMM calls by route' "$tmp/$name.shim.out" | grep -q 'libcushim' &&
		grep 'VMM calls by route' "$tmp/$name.plain.out" | grep -qv 'libcushim'; then
		result "$name.vmm-route-through-shim" OK
	else
		result "$name.vmm-route-through-shim" FAIL "the VMM calls did not resolve into the shim"
	fi
	if [ -s "$tmp/$name.plain.ok" ] && cmp -s "$tmp/$name.plain.ok" "$tmp/$name.shim.ok"; then
		result "$name.same-results" OK
	else
		result "$name.same-results" FAIL "plain and shimmed runs reported different results"
	fi
}

note "userbuffers: $NGPUS GPU(s); shim $SHIM; CUSHIM_HIDE='$CUSHIM_HIDE'; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
features=$("$UB" --features)
note "userbuffers: ub-test features: $features"

# Collectives (SM and copy-engine AG, RS, ring), exact, 3 iterations reusing
# buffers, two create/teardown cycles (fds and free memory checked on the last).
both ag-rs-ring.n2.bf16.direct --ranks 2 --dtype bf16 --route direct --iters 3
both ag-rs-ring.n4.fp16.proc --ranks 4 --dtype fp16 --route proc --iters 3
both ag-rs-ring.n2.fp16.proc --ranks 2 --dtype fp16 --route proc --iters 3
both ag-rs-ring.n4.bf16.direct --ranks 4 --dtype bf16 --route direct --iters 3

# Data that exposes errors: 8 ranks on one GPU; buffers whose chunks cross
# the 2 MiB granules, up to 256 MiB per rank; K collectives of mixed kinds back
# to back on the comm stream, ordered against a compute stream by events.
both ag-rs-ring.n8.bf16 --ranks 8 --dtype bf16 --iters 2 --elems 65536 --cycles 1
both granule.n2.fp16 --ranks 2 --dtype fp16 --iters 2 --elems 1048584 --cycles 1
both big.n2.bf16 --ranks 2 --dtype bf16 --iters 1 --elems 67108872 --cycles 1
both burst.n2 --ranks 2 --mode burst --elems 65544 --iters 3
both burst.n8 --ranks 8 --mode burst --elems 16392 --iters 2

# A rank withholding its signal: its peers report a timeout and nothing hangs.
both timeout.n2 --ranks 2 --mode timeout --timeout 2 --cycles 1
both timeout.n4 --ranks 4 --mode timeout --timeout 2 --withhold 1 --cycles 1

# memMapIPCDrv-style: the good run passes, a skipped write must fail.
both memmap.n2 --ranks 2 --mode memmap --route proc
both memmap.n4 --ranks 4 --mode memmap
if run1 memmap-corrupt.n4 1 shim --ranks 4 --mode memmap --corrupt --cycles 1; then
	if grep -q MISMATCH "$tmp/memmap-corrupt.n4.out"; then
		result memmap-corrupt.n4 OK
	else
		result memmap-corrupt.n4 FAIL "exited 1 but reported no mismatch"
	fi
fi

# Multicast requested of a program without the decision (ub-test): it says so
# and runs the unicast path. The decision itself is ub-test-mc's (below).
for how in plain shim; do
	if run1 "multicast-requested.$how" 0 "$how" --ranks 2 --multicast --mode ag --cycles 1; then
		if grep -q 'falling back to the unicast path' "$tmp/multicast-requested.$how.out"; then
			result "multicast-requested.$how" OK
		else
			result "multicast-requested.$how" FAIL "no fallback message"
		fi
	fi
done

# Two jobs at once: the per-job nonce keeps their sockets apart. Free memory is
# device-wide, so with two jobs on one GPU only the descriptors are checked.
run_shimmed "$UB" --ranks 2 --mode ag --cycles 1 --no-memcheck >"$tmp/twojobs.a.out" 2>&1 &
pid_a=$!
run_shimmed "$UB" --ranks 2 --mode rs --cycles 1 --no-memcheck --route proc >"$tmp/twojobs.b.out" 2>&1
rc_b=$?
wait $pid_a
rc_a=$?
sed "s/^/    /" "$tmp/twojobs.a.out" "$tmp/twojobs.b.out"
if [ $rc_a -eq 0 ] && [ $rc_b -eq 0 ]; then result two-jobs-at-once OK; else result two-jobs-at-once FAIL "exits $rc_a and $rc_b"; fi

# Started by mpirun: a build with MPI bootstraps through MPI (MPI_Allgather,
# MPI_Barrier, the nonce by MPI_Bcast; fds still over the abstract sockets) and
# must report what the forking launcher reports; a build without MPI must refuse.
MPIRUN=${MPIRUN:-mpirun}
mpi_timeout=
command -v timeout >/dev/null 2>&1 && mpi_timeout="timeout $((UB_JOB_TIMEOUT + 60))"
mpi_kind=
if command -v "$MPIRUN" >/dev/null 2>&1; then
	case $("$MPIRUN" --version 2>&1) in
	*"Open MPI"* | *OpenRTE* | *"Open RTE"*) mpi_kind=openmpi ;;
	*) mpi_kind=other ;;
	esac
	note "userbuffers: $MPIRUN: $("$MPIRUN" --version 2>&1 | head -1)"
fi
case "$features" in
*mpi=yes*)
	if [ -n "$mpi_kind" ]; then
		UB_NP=2 pair mpi-plain mpi-shim mpirun.ag-rs-ring.n2 --dtype bf16 --route proc --iters 3
		for f in plain shim; do
			grep -q 'bootstrap=mpi' "$tmp/mpirun.ag-rs-ring.n2.$f.out" ||
				result "mpirun.ag-rs-ring.n2.$f.bootstrap" FAIL "ub-test did not report bootstrap=mpi"
		done
		UB_NP=4 pair mpi-plain mpi-shim mpirun.memmap.n4 --mode memmap
	else
		result mpirun.cases SKIP "built with MPI, but no $MPIRUN on PATH"
	fi ;;
*)
	result mpirun.cases SKIP "ub-test built without MPI (configure found no mpicc)"
	# Under mpirun's variables it must refuse, not run N independent jobs.
	for v in OMPI_COMM_WORLD_SIZE PMI_SIZE PMIX_RANK; do
		env "$v=2" "$UB" --ranks 2 --mode ag --cycles 1 >"$tmp/mpirun-refuses.$v.out" 2>&1
		rc=$?
		sed "s/^/    /" "$tmp/mpirun-refuses.$v.out"
		if [ $rc -ne 0 ] && [ $rc -ne 77 ] && grep -q 'built without MPI' "$tmp/mpirun-refuses.$v.out" &&
			! grep -q '\] ok' "$tmp/mpirun-refuses.$v.out"; then
			result "mpirun-refuses.$v" OK
		else
			result "mpirun-refuses.$v" FAIL "exit $rc, or no refusal message"
		fi
	done ;;
esac

# Several GPUs: ranks spread over two of them.
if [ "$NGPUS" -ge 2 ]; then
	both multi-gpu.n4 --ranks 4 --gpus 2 --dtype bf16
else
	result multi-gpu.n4 SKIP "needs two GPUs; $NGPUS here"
fi

# The runtime route, four ways, over every GPU there is (at most one per
# rank), so that the two-GPU functions run where two GPUs exist; then its
# checks (sc_rt_checks), which demand those functions only then.
RT="$top_builddir/samples/userbuffers/ub-test-rt"
g2=$NGPUS g4=$NGPUS
[ "$g2" -gt 2 ] && g2=2
[ "$g4" -gt 4 ] && g4=4
if [ -x "$RT" ]; then
	sc_rt_begin "$tmp"
	for r in rt-plain rt-masq rt-masq-12.0 rt-masq-trace; do
		sc_rt_run "$tmp" "$r" proc "$RT" --ranks 2 --gpus "$g2" --dtype bf16 --route proc --iters 2 --cycles 1
		sc_rt_run "$tmp" "$r" burst "$RT" --ranks 2 --gpus "$g2" --mode burst --elems 65544 --iters 2
		sc_rt_run "$tmp" "$r" memmap "$RT" --ranks 4 --gpus "$g4" --mode memmap --cycles 1
		sed "s/^/    [$r] /" "$tmp/$r.out"
		grep -o '\] ok [a-z-]*[ :].*' "$tmp/$r.out" >"$tmp/$r.res"
		if [ "$(cat "$tmp/$r.rc")" = 0 ]; then
			result "runtime-route.$r" OK
		elif [ "$r" = rt-masq-12.0 ]; then
			result "runtime-route.$r" OK # refused by the runtime: sc_rt_checks judges it
		else
			result "runtime-route.$r" FAIL "exit $(cat "$tmp/$r.rc")"
			tail -n 20 "$tmp/$r.err"
		fi
	done
	if sc_links_no_driver "$RT" && sc_rt_checks "$tmp" "$top_srcdir/samples/userbuffers/ub-rtroute.h" "$g2"; then
		result runtime-route.checks OK
	else
		result runtime-route.checks FAIL "see the check: lines above"
	fi
	sed 's/^/    /' "$tmp/counts-masq"
else
	result runtime-route SKIP "$RT not built"
fi

# The seed's decision at run time (ub-test-mc on the runtime route, ub-test-mc-drv
# on the driver's cuGetProcAddress): sc_mc_case judges each run. Never run
# plain: on a real driver the programs would find multicast and refuse.
mc_run() { # NAME PROGRAM WANT ENV...: one traced masquerade run, judged by sc_mc_case
	m_name=$1 m_prog=$2 m_want=$3
	shift 3
	env "$@" CUSHIM_LOG=trace CUSHIM_LOG_FILE="$tmp/mc-trace.$m_name.%p.log" \
		"$top_builddir/cushim" run --masquerade --lib="$SHIM" -- \
		"$top_builddir/samples/userbuffers/$m_prog" --ranks 2 --gpus "$g2" --multicast --mode burst \
		--elems 65544 --iters 1 >"$tmp/mc.$m_name.out" 2>&1
	echo $? >"$tmp/mc.$m_name.rc"
	sed "s/^/    [mc.$m_name] /" "$tmp/mc.$m_name.out"
	if sc_mc_case "$m_want" "$tmp/mc.$m_name.out" "$tmp/mc.$m_name.rc" "$tmp"/mc-trace."$m_name".*.log; then
		result "multicast-decision.$m_name" OK
	else
		result "multicast-decision.$m_name" FAIL "see the check: lines above"
	fi
}
case ",$CUSHIM_HIDE," in
*,cuMulticast\*,*)
	mc_run hidden.rt ub-test-mc fallback CUSHIM_HIDE="$CUSHIM_HIDE"
	mc_run hidden.drv ub-test-mc-drv fallback CUSHIM_HIDE="$CUSHIM_HIDE"
	# An emulated 12.0 driver lacks the multicast functions (12.1): on the
	# driver route the program falls back; the 13.0 runtime refuses a 12.0
	# driver before any lookup, by name. The functions stay hidden here too,
	# so that no cuMulticast* call can reach a real driver even if emulation
	# failed (tests/gpu/emulation.sh proves its answers on its own).
	mc_run emulated.drv ub-test-mc-drv fallback CUSHIM_HIDE="$CUSHIM_HIDE" CUSHIM_DRIVER_VERSION=12.0
	mc_run emulated.rt ub-test-mc runtime CUSHIM_HIDE="$CUSHIM_HIDE" CUSHIM_DRIVER_VERSION=12.0 ;;
*) result multicast-decision FAIL "refusing to run ub-test-mc without CUSHIM_HIDE='cuMulticast*'" ;;
esac

note "userbuffers: $pass passed, $fail failed, $skip skipped${fail_names:+ (failed:$fail_names)}"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
exit 0
