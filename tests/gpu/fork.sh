#!/bin/sh
# Invisible until used, on a real driver: a process that probes the driver
# (cuDriverGetVersion, cuCtxGetCurrent, cuDeviceGetCount) and then forks a
# worker gets the same answers, in parent and child, without cushim, under
# LD_PRELOAD, with CUSHIM_CUDART=none and in masquerade; and cushim's first
# call (its bootstrap) costs no more than 1 ms beyond the driver's own first
# call: each way's best of FIRST_ROUNDS interleaved runs, against the best
# run without cushim in the same test, as a difference (and a ratio). In
# masquerade the driver is loaded at the first call, not at the program's
# start, so there the driver's own is its load and first call (load-probe).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/gpu/gpu-env.sh"
app="$top_builddir/tests/gpu/fork-probe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cushim-fork.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ln -s "$SHIM" "$tmp/libcuda.so.1"
fail=0
run() { # name, then the command
	name=$1; shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	grep -v '^cushim after' "$tmp/$name.out" >"$tmp/$name.cmp"
	echo "== $name: $(grep '^time' "$tmp/$name.err")"
	cat "$tmp/$name.out"
}
run plain "$app"
run preload env LD_PRELOAD="$SHIM" "$app"
run cudart-none env LD_PRELOAD="$SHIM" CUSHIM_CUDART=none "$app"
run masquerade env LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$app"
grep -q 'cuCtxGetCurrent=3 cuDeviceGetCount=3' "$tmp/plain.out" || { echo "FAIL: the driver itself did not answer 3 before cuInit"; fail=1; }
grep -q '^child exit: 0' "$tmp/plain.out" || { echo "FAIL: the child failed without cushim"; fail=1; }
for m in preload cudart-none masquerade; do
	cmp -s "$tmp/plain.cmp" "$tmp/$m.cmp" || { echo "FAIL: $m differs from plain:"; diff "$tmp/plain.cmp" "$tmp/$m.cmp"; fail=1; }
done
grep -q 'by the runtime [1-9]' "$tmp/preload.out" || { echo "FAIL: the program's cuInit adopted no runtime"; fail=1; }

# The first call's cost: each way run FIRST_ROUNDS times, interleaved, so
# that a slow moment of the machine falls on every way alike.
first_call() { # way, then the command: one line "way microseconds"
	way=$1; shift
	"$@" >/dev/null 2>"$tmp/first.err"
	sed -n "s/^time: first call \([0-9.]*\) us\$/$way \1/p" "$tmp/first.err"
}
for round in $(seq "${FIRST_ROUNDS:-5}"); do
	first_call plain "$app"
	first_call preload env LD_PRELOAD="$SHIM" "$app"
	first_call cudart-none env LD_PRELOAD="$SHIM" CUSHIM_CUDART=none "$app"
	first_call masquerade env LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$app"
	first_call load "$top_builddir/tests/gpu/load-probe"
done >"$tmp/first.times"
# Each way's best against the best of the driver's own: at most 1000 us more.
awk -v bound=1000 '
	{ if (!($1 in best) || $2 + 0 < best[$1]) best[$1] = $2 + 0; runs[$1]++ }
	END {
		if (!("plain" in best)) { print "FAIL: no first-call time from the runs without cushim"; exit 1 }
		bad = 0
		printf "first call without cushim: %.1f us (best of %d)\n", best["plain"], runs["plain"]
		n = split("preload cudart-none masquerade", ways, " ")
		for (k = 1; k <= n; k++) {
			w = ways[k]
			if (!(w in best)) { printf "FAIL: no first-call time %s\n", w; bad = 1; continue }
			own = (w == "masquerade") ? "load" : "plain"
			if (!(own in best)) { printf "FAIL: no first-call time %s\n", own; bad = 1; continue }
			d = best[w] - best[own]
			printf "first call %s: %.1f us, %+.1f us beyond the driver'"'"'s own%s (%.1f us), ratio %.2f\n", w,
				best[w], d, (own == "load" ? " load and first call" : ""), best[own],
				(best[own] > 0 ? best[w] / best[own] : 0)
			if (d > bound) { printf "FAIL: %s: the first call costs %.1f us beyond the driver'"'"'s own (at most %d)\n",
				w, d, bound; bad = 1 }
		}
		exit bad
	}' "$tmp/first.times" || fail=1
exit $fail
