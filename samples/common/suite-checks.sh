# The checks of the sample suites' runtime-route runs, shared by
# samples/cufuture/cufuture.sh and samples/userbuffers/userbuffers.sh and proven by
# samples/common/suite-checks-test.sh on crafted logs. Each prints one line naming
# what is wrong and returns 1; none passes on missing or empty input.

# sc_inputs KIND TEST FILE...: there is at least one FILE, and each passes
# `test TEST FILE` (-s: present and not empty, -f: present); else one line
# naming the KIND of file that is missing.
sc_inputs() {
	sc_kind=$1 sc_test=$2
	shift 2
	if [ $# -eq 0 ]; then
		echo "check: no $sc_kind file"
		return 1
	fi
	for sc_f in "$@"; do
		if ! test "$sc_test" "$sc_f"; then
			echo "check: the $sc_kind $sc_f is missing$([ "$sc_test" = -s ] && echo ' or empty')"
			return 1
		fi
	done
}

# sc_counts OUT FILE...: the "name calls errors" lines of CUSHIM_SUMMARY JSON
# files (the processes of one run), summed per function and sorted, into OUT.
sc_counts() {
	sc_out=$1
	shift
	sc_inputs summary -s "$@" || return 1
	sed -n 's/^ *{"name": "\([^"]*\)", "calls": \([0-9]*\), "errors": \([0-9]*\).*/\1 \2 \3/p' "$@" |
		awk '{ c[$1] += $2; e[$1] += $3 } END { for (k in c) print k, c[k], e[k] }' | LC_ALL=C sort >"$sc_out"
	if [ ! -s "$sc_out" ]; then
		echo "check: the summaries $* name no function"
		return 1
	fi
}

# sc_same_counts A B WHAT_A WHAT_B: two runs' per-function counts are equal.
sc_same_counts() {
	if [ -s "$1" ] && cmp -s "$1" "$2"; then
		return 0
	fi
	echo "check: the per-function calls and errors of $3 and $4 differ (name calls errors):"
	diff "$1" "$2" | head -n 20
	return 1
}

# sc_trace_calls OUT TRACE...: the functions called in CUSHIM_LOG=trace logs
# ("cushim: T PID TID cuX(...) = RESULT ..."), "name count", into OUT.
sc_trace_calls() {
	sc_out=$1
	shift
	sc_inputs trace -f "$@" || return 1
	awk '$1 == "cushim:" && $5 ~ /^cu[A-Za-z0-9_]*\(/ { sub(/\(.*/, "", $5); n[$5]++ }
		END { for (k in n) print k, n[k] }' "$@" | LC_ALL=C sort >"$sc_out"
	if [ ! -s "$sc_out" ]; then
		echo "check: the trace ($*) shows no driver call"
		return 1
	fi
}

# sc_no_multicast TRACE_CALLS: no cuMulticast* function reached the driver
# (a lookup by cuGetProcAddress is not a call of it).
sc_no_multicast() {
	if [ ! -s "$1" ]; then
		echo "check: no traced calls to look for cuMulticast* in"
		return 1
	fi
	if grep -q '^cuMulticast' "$1"; then
		echo "check: cuMulticast* calls reached the driver:"
		grep '^cuMulticast' "$1"
		return 1
	fi
}

# sc_redirects HEADER: the lines of a suite's redirect header, then those of
# the headers it includes ('#include "X"') from its own folder or from
# samples/common (rtroute-shared.h: the redirects both suites need).
sc_redirects() {
	cat "$1" || return 1
	for sc_i in $(sed -n 's/^#include "\(.*\)"$/\1/p' "$1"); do
		for sc_dir in "$(dirname "$1")" "$top_srcdir/samples/common"; do
			if [ -f "$sc_dir/$sc_i" ]; then
				cat "$sc_dir/$sc_i"
				break
			fi
		done
	done
}

# sc_coverage HEADER NGPUS COUNTS...: every driver function the suite's
# redirect header and the headers it includes name ("#define cuX
# RTROUTE_CALL(cuX, V)") was called in one of the runs (an ABI name such as
# cuMemAlloc_v2 counts for cuMemAlloc); one marked "two GPUs" may go uncalled
# where there are fewer.
sc_coverage() {
	sc_h=$1 sc_ngpus=$2
	shift 2
	sc_text=$(sc_redirects "$sc_h" 2>/dev/null)
	sc_named=$(printf '%s\n' "$sc_text" | sed -n 's/^#define \(cu[A-Za-z0-9_]*\) RTROUTE_CALL(.*/\1/p')
	if [ -z "$sc_named" ] || [ $# -eq 0 ]; then
		echo "check: no functions named in $sc_h, or no counts to compare them with"
		return 1
	fi
	sc_called=$(cat "$@" | awk '{ print $1 }' | sed -e 's/_pt[sd][sz]$//' -e 's/_v[0-9]*$//' | sort -u)
	sc_missing= sc_skipped=
	for sc_f in $sc_named; do
		if printf '%s\n' "$sc_called" | grep -qx "$sc_f"; then
			continue
		elif [ "$sc_ngpus" -lt 2 ] && printf '%s\n' "$sc_text" | grep -q "^#define $sc_f RTROUTE_CALL(.*/\* two GPUs \*/"; then
			sc_skipped="$sc_skipped $sc_f"
		else
			sc_missing="$sc_missing $sc_f"
		fi
	done
	if [ -n "$sc_missing" ]; then
		echo "check: named in $(basename "$sc_h") but never called:$sc_missing"
		return 1
	fi
	echo "check: the $(echo $sc_named | wc -w) functions $(basename "$sc_h") names were all called${sc_skipped:+ (but, with $sc_ngpus GPU:$sc_skipped)}"
}

# sc_rt_checks DIR HEADER NGPUS: the checks of a suite's runtime-route runs,
# whose outputs lie in DIR as the suite scripts leave them:
#   rt-plain.res rt-masq.res rt-masq-trace.res  results (one line each, stable)
#   rt-masq-12.0.res .rc .err                   the emulated 12.0 run: identical
#                                               results, or refused by the
#                                               runtime by name
#   rt-masq.*.json rt-masq-trace.*.json         CUSHIM_SUMMARY of every process
#   rt-trace.*.log                              CUSHIM_LOG=trace of every process
# Prints one line per check; returns the number that failed.
sc_rt_checks() {
	d=$1 h=$2 g=$3 bad=0
	if [ ! -s "$d/rt-plain.res" ]; then
		echo "check: the plain runtime-route run gave no results"
		bad=$((bad + 1))
	fi
	for r in rt-masq rt-masq-trace; do
		if ! cmp -s "$d/rt-plain.res" "$d/$r.res"; then
			echo "check: $r's results differ from the plain run's:"
			diff "$d/rt-plain.res" "$d/$r.res" | head -n 10
			bad=$((bad + 1))
		fi
	done
	# A CUDA runtime refuses an older driver than it was built for (the 13.0
	# runtime a 12.0 driver); it must then be refused by name, not fail otherwise.
	if [ "$(cat "$d/rt-masq-12.0.rc" 2>/dev/null)" = 0 ]; then
		if ! cmp -s "$d/rt-plain.res" "$d/rt-masq-12.0.res"; then
			echo "check: under CUSHIM_DRIVER_VERSION=12.0 the results differ from the plain run's"
			bad=$((bad + 1))
		fi
	elif ! grep -q '^rtroute: cannot find the driver entry point .* returned cuda[A-Za-z]* (' "$d/rt-masq-12.0.err" 2>/dev/null; then
		echo "check: under CUSHIM_DRIVER_VERSION=12.0 the run failed, and not by the runtime refusing the driver"
		bad=$((bad + 1))
	fi
	sc_counts "$d/counts-masq" "$d"/rt-masq.*.json || bad=$((bad + 1))
	sc_counts "$d/counts-trace" "$d"/rt-masq-trace.*.json || bad=$((bad + 1))
	sc_same_counts "$d/counts-masq" "$d/counts-trace" "the masquerade run" "the traced one" || bad=$((bad + 1))
	if sc_trace_calls "$d/trace-calls" "$d"/rt-trace.*.log; then
		sc_no_multicast "$d/trace-calls" || bad=$((bad + 1))
	else
		bad=$((bad + 1))
	fi
	sc_coverage "$h" "$g" "$d/counts-masq" || bad=$((bad + 1))
	return $bad
}

# sc_links_no_driver PROGRAM: a runtime-route program imports no cu* symbol,
# so that every driver call it makes went through the runtime's entry points.
sc_links_no_driver() {
	if ! command -v nm >/dev/null 2>&1; then
		echo "check: no nm here; not checking the imports of $1"
		return 0
	fi
	if nm -D --undefined-only "$1" | grep -q ' cu[A-Z]'; then
		echo "check: $1 imports driver functions:"
		nm -D --undefined-only "$1" | grep ' cu[A-Z]' | head -n 5
		return 1
	fi
}

# sc_rt_run DIR RUN CASE CMD...: one run of a runtime-route program, the way
# RUN says (rt-plain, rt-masq, rt-masq-12.0, rt-masq-trace); stdout and stderr
# appended to DIR/RUN.out and .err, the exit to DIR/RUN.rc (a failure is kept).
# CASE names the run's summary and trace files.
sc_rt_run() {
	sd=$1 sr=$2 sc=$3
	shift 3
	case $sr in
	rt-plain) "$@" ;;
	rt-masq)
		env CUSHIM_SUMMARY="$sd/rt-masq.$sc.%p.json" \
			"$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$@" ;;
	rt-masq-12.0)
		env CUSHIM_DRIVER_VERSION=12.0 "$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$@" ;;
	rt-masq-trace)
		env CUSHIM_LOG=trace CUSHIM_LOG_FILE="$sd/rt-trace.$sc.%p.log" \
			CUSHIM_SUMMARY="$sd/rt-masq-trace.$sc.%p.json" \
			"$top_builddir/cushim" run --masquerade --lib="$SHIM" -- "$@" ;;
	esac >>"$sd/$sr.out" 2>>"$sd/$sr.err"
	src=$?
	[ "$(cat "$sd/$sr.rc" 2>/dev/null)" != 0 ] && [ -s "$sd/$sr.rc" ] || echo $src >"$sd/$sr.rc"
	return $src
}

# sc_rt_begin DIR: empty outputs for the four runs.
sc_rt_begin() {
	for sr in rt-plain rt-masq rt-masq-12.0 rt-masq-trace; do
		: >"$1/$sr.out"
		: >"$1/$sr.err"
		rm -f "$1/$sr.rc"
	done
}
