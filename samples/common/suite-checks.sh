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

# sc_refusal_ok LINE HEADER: LINE is the runtime route's refusal that an
# emulated CUSHIM_DRIVER_VERSION=12.0 driver must cause, named: the CUDA
# runtime refusing a driver older than itself (cudaErrorInsufficientDriver, as
# the 13.0 runtime refuses any 12.x driver), or a function that HEADER pins
# above 12.0, which a 12.0 driver never had, answered "not found" or "version
# not sufficient" (status 1 or 2). Any other failure is not the expected one.
sc_refusal_ok() {
	sc_l=$1
	case $sc_l in
	"rtroute: cannot find the driver entry point "*": cudaGetDriverEntryPointByVersion("*") returned cudaErrorInsufficientDriver (35), status "*) return 0 ;;
	"rtroute: cannot find the driver entry point "*) ;;
	*) return 1 ;;
	esac
	sc_sym=${sc_l#rtroute: cannot find the driver entry point }
	sc_sym=${sc_sym%%:*}
	printf '%s\n' "$sc_l" | grep -q ") returned cuda[A-Za-z]* ([0-9]*), status [12] " || return 1
	sc_ver=$(sc_redirects "$2" 2>/dev/null | sed -n "s/^#define $sc_sym RTROUTE_CALL($sc_sym, \([0-9]*\)).*/\1/p" | head -n 1)
	[ -n "$sc_ver" ] && [ "$sc_ver" -gt 12000 ]
}

# sc_emulated_ok DIR HEADER: the emulated 12.0 run (rt-masq-12.0.rc .res .err)
# gave the plain run's results, or failed with the expected refusal
# (sc_refusal_ok) as its first "rtroute:" line.
sc_emulated_ok() {
	sc_rc=$(cat "$1/rt-masq-12.0.rc" 2>/dev/null)
	if [ "$sc_rc" = 0 ]; then
		if [ -s "$1/rt-plain.res" ] && cmp -s "$1/rt-plain.res" "$1/rt-masq-12.0.res"; then
			return 0
		fi
		echo "check: under CUSHIM_DRIVER_VERSION=12.0 the run passed, but its results differ from the plain run's"
		return 1
	fi
	if [ -z "$sc_rc" ]; then
		echo "check: no exit status of the CUSHIM_DRIVER_VERSION=12.0 run"
		return 1
	fi
	sc_first=$(grep '^rtroute: ' "$1/rt-masq-12.0.err" 2>/dev/null | head -n 1)
	if sc_refusal_ok "$sc_first" "$2"; then
		return 0
	fi
	echo "check: under CUSHIM_DRIVER_VERSION=12.0 the run failed (exit $sc_rc), and not by the expected" \
		"refusal (the runtime refusing the driver by cudaErrorInsufficientDriver, or a function newer than" \
		"12.0 not found): ${sc_first:-no rtroute: line}"
	return 1
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
	sc_emulated_ok "$d" "$h" || bad=$((bad + 1))
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

# sc_mc_case WANT OUT RCFILE [TRACE...]: one run of the seed's multicast
# decision (ub-test-mc, ub-test-mc-drv; OUT its output, RCFILE its exit
# status, TRACE its CUSHIM_LOG=trace logs). In every case no cuMulticast*
# function reached the driver. WANT says what else must hold:
#   fallback        exit 0; each of the five entry points proven missing by
#                   the driver's answer (status 1 SYMBOL_NOT_FOUND or 2
#                   VERSION_NOT_SUFFICIENT), the fallback said, and a result
#                   ("] ok "); the trace shows the lookup of cuMulticastCreate
#   probe-fallback  the same for --mc-probe, which runs no collective
#   offered         exit non-zero, refusing because the driver offers one
#   lookup-failed   exit non-zero, refusing because a lookup failed otherwise
#   runtime         exit non-zero, the runtime refusing the driver by name
#                   (cudaErrorInsufficientDriver), before any decision
sc_mc_case() {
	mc_want=$1 mc_out=$2 mc_rc=$(cat "$3" 2>/dev/null)
	shift 3
	mc_bad=0
	if [ ! -s "$mc_out" ] || [ -z "$mc_rc" ]; then
		echo "check: the multicast run left no output or no exit status"
		return 1
	fi
	case $mc_want in
	fallback | probe-fallback)
		[ "$mc_rc" = 0 ] || { echo "check: the multicast run exited $mc_rc, not 0"; mc_bad=1; }
		for mc_f in cuMulticastGetGranularity cuMulticastCreate cuMulticastAddDevice cuMulticastBindMem \
			cuMulticastUnbind; do
			grep -q "multicast: $mc_f is missing (.*, status [12] \(SYMBOL_NOT_FOUND\|VERSION_NOT_SUFFICIENT\))" \
				"$mc_out" || { echo "check: no driver answer proves $mc_f missing"; mc_bad=1; }
		done
		grep -q 'falling back to the unicast path' "$mc_out" || { echo "check: no fallback said"; mc_bad=1; }
		if [ "$mc_want" = fallback ] && ! grep -q '\] ok ' "$mc_out"; then
			echo "check: the fallback run reported no result"
			mc_bad=1
		fi
		if ! sc_trace_calls "$mc_out.calls" "$@"; then
			mc_bad=1
		elif ! grep -q 'cuGetProcAddress_v2(symbol="cuMulticastCreate"' "$@"; then
			echo "check: the trace shows no lookup of cuMulticastCreate"
			mc_bad=1
		fi ;;
	offered | lookup-failed)
		mc_why="is offered by the driver"
		[ "$mc_want" = lookup-failed ] && mc_why="could not be looked up"
		[ "$mc_rc" != 0 ] || { echo "check: the multicast run passed; it had to refuse"; mc_bad=1; }
		grep -q "multicast: REFUSING to run: cuMulticast[A-Za-z]* $mc_why" "$mc_out" ||
			{ echo "check: no refusal because a multicast entry point $mc_why"; mc_bad=1; } ;;
	runtime)
		[ "$mc_rc" != 0 ] || { echo "check: the multicast run passed; the runtime had to refuse the driver"; mc_bad=1; }
		case $(grep '^rtroute: ' "$mc_out" | head -n 1) in
		*") returned cudaErrorInsufficientDriver (35), status "*) ;;
		*) echo "check: the run did not fail by the runtime refusing the driver (cudaErrorInsufficientDriver)"
			mc_bad=1 ;;
		esac ;;
	*) echo "check: sc_mc_case: no such case $mc_want"; return 1 ;;
	esac
	if [ "$mc_want" != fallback ] && [ "$mc_want" != probe-fallback ] &&
		grep -q 'falling back to the unicast path' "$mc_out"; then
		echo "check: the run fell back to unicast; it had to refuse"
		mc_bad=1
	fi
	# (the fallback cases demanded a trace above; a refused run may leave none)
	if sc_trace_calls "$mc_out.calls" "$@" >/dev/null 2>&1; then
		sc_no_multicast "$mc_out.calls" || mc_bad=1
	fi
	return $mc_bad
}

# sc_undefined PROGRAM: the names of PROGRAM's undefined dynamic symbols, one
# a line, read by nm, or by readelf where there is no nm; neither: fails.
sc_undefined() {
	if command -v nm >/dev/null 2>&1; then
		nm -D --undefined-only "$1" | awk '{ n = $NF; sub(/@.*/, "", n); print n }'
	elif command -v readelf >/dev/null 2>&1; then
		readelf -W --dyn-syms "$1" | awk '$7 == "UND" && $8 != "" { sub(/@.*/, "", $8); print $8 }'
	else
		echo "check: neither nm nor readelf here to read the imports of $1" >&2
		return 1
	fi
}

# sc_links_no_driver PROGRAM: a runtime-route program imports no cu* symbol,
# so that every driver call it makes went through the runtime's entry points.
# Its imports must be readable, and must name at least one function.
sc_links_no_driver() {
	if ! sc_imports=$(sc_undefined "$1" 2>&1) || [ -z "$sc_imports" ]; then
		echo "check: cannot read the imports of $1${sc_imports:+: $sc_imports}"
		return 1
	fi
	if printf '%s\n' "$sc_imports" | grep -q '^cu[A-Z]'; then
		echo "check: $1 imports driver functions:"
		printf '%s\n' "$sc_imports" | grep '^cu[A-Z]' | head -n 5
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
