#!/bin/sh
# Every rank of an Open MPI job under the shim, both ways round:
#   cushim run [options] -- mpirun -np 2 rank-app
#   mpirun -np 2 cushim run [options] -- rank-app
# on the fake 13.0 driver.  Each rank writes its own summary, log and timeline
# (%p), and each counts exactly that rank's calls (rank R makes 12 + R).
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/cluster/rank-app
PYTHON=${PYTHON:-python3}
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun here (Debian: apt-get install openmpi-bin)" >&2; exit 77; }
[ -d "$fake/drv-13.0" ] || { echo "no $fake/drv-13.0: the fake drivers are not built" >&2; exit 77; }
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART
export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt
# Open MPI: two ranks on however many cores, and as root in a container.
mpi="mpirun -np 2"
if mpirun --version 2>&1 | grep -q "Open MPI"; then
	mpi="mpirun --oversubscribe -np 2"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# check_ranks NAME: two ranks printed their pids; each pid has a summary, a
# log and a timeline of its own, counting that rank's calls.
check_ranks() {
	name=$1
	[ "$(grep -c '^rank [01] pid [0-9]*: 1[23] calls$' "$T/$name.out")" -eq 2 ] ||
		{ fail "$name: the ranks said $(cat "$T/$name.out" "$T/$name.err")"; return; }
	[ "$(ls "$T/$name".*.summary.json | wc -l)" -eq 2 ] || fail "$name: summaries $(ls "$T")"
	while read -r _ rank _ pid _; do
		pid=${pid%:}
		want=$((12 + rank))
		$PYTHON - "$T/$name.$pid.summary.json" "$T/$name.$pid.timeline.json" "$pid" "$want" <<'PY' ||
import json, sys
summary, timeline, pid, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s = json.load(open(summary))
assert s["pid"] == pid and s["calls"] == want, "summary %s: pid %s, %s calls; wanted %d, %d" % (summary, s["pid"], s["calls"], pid, want)
calls = [e for e in json.load(open(timeline)) if e.get("ph") == "X"]
assert len(calls) == want and all(e["pid"] == pid for e in calls), "timeline %s: %d calls" % (timeline, len(calls))
PY
			fail "$name: rank $rank (pid $pid)"
		grep -q "driver CUDA 13.0" "$T/$name.$pid.log" 2>/dev/null || fail "$name: rank $rank has no log of its own"
	done <"$T/$name.out"
}
opts="--log=info --log-file=$T/NAME.%p.log --summary=$T/NAME.%p.summary.json --timeline=$T/NAME.%p.timeline.json"

# 1. cushim run around mpirun: the ranks inherit the shim and the settings.
run_cmd outer "$CUSHIM" run $(echo "$opts" | sed 's/NAME/outer/g') -- $mpi $EXE_WRAPPER "$app"
expect_rc outer 0
check_ranks outer
# 2. mpirun around cushim run: each rank starts its own.
run_cmd inner $mpi "$CUSHIM" run $(echo "$opts" | sed 's/NAME/inner/g') -- $EXE_WRAPPER "$app"
expect_rc inner 0
check_ranks inner
finish
