#!/bin/sh
# The suite scripts' runtime-route checks can fail: samples/cufuture/cufuture.sh
# and samples/userbuffers/userbuffers.sh, run with SUITE_CHECK_DIR on crafted
# outputs (no GPU), pass a good set and fail each broken one: an empty trace,
# a missing summary, a cuMulticast* call in the trace, counts that differ
# between the traced and untraced runs, differing results, a function never
# called that the suite's header names or that rtroute-shared.h (which it
# includes) names, and a 12.0 run that failed without the runtime refusing the
# driver, or passed with other results, or was refused otherwise than by
# name; a two-GPU function uncalled where two GPUs ran. Then
# (suite-checks-more.sh) the multicast decision's runs, the import check
# without nm, make bench and tools/gpu-check.sh on crafted parts.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/suite-checks.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

# redirected HEADER: the functions HEADER names ("#define cuX RTROUTE_CALL").
redirected() {
	sed -n 's/^#define \(cu[A-Za-z0-9_]*\) RTROUTE_CALL(.*/\1/p' "$1"
}

# good DIR HEADER: outputs that every check accepts, for the functions HEADER
# and rtroute-shared.h name.
good() {
	rm -rf "$1"
	mkdir -p "$1"
	printf 'PASS one\nPASS two\n' >"$1/rt-plain.res"
	cp "$1/rt-plain.res" "$1/rt-masq.res"
	cp "$1/rt-plain.res" "$1/rt-masq-trace.res"
	echo 1 >"$1/rt-masq-12.0.rc"
	echo 'rtroute: cannot find the driver entry point cuInit: cudaGetDriverEntryPointByVersion(cuInit, 12000) returned cudaErrorInsufficientDriver (35), status -1' >"$1/rt-masq-12.0.err"
	names=$(redirected "$2"; redirected "$top_srcdir/samples/common/rtroute-shared.h")
	{
		echo '{"pid": 7, "calls": 99, "functions": ['
		k=0
		for f in $names; do
			k=$((k + 1))
			echo "  {\"name\": \"${f}_v2\", \"calls\": $k, \"errors\": $((k % 2)), \"total_ns\": 10, \"mean_ns\": 1.0, \"max_ns\": 3},"
		done
		echo '  {"name": "cuGetProcAddress_v2", "calls": 40, "errors": 0, "total_ns": 10, "mean_ns": 1.0, "max_ns": 3}'
		echo ']}'
	} >"$1/rt-masq.7.json"
	sed 's/"total_ns": 10/"total_ns": 99/' "$1/rt-masq.7.json" >"$1/rt-masq-trace.8.json"
	{
		echo 'cushim: 0.000100 8 8 cuGetProcAddress_v2(symbol="cuMulticastCreate", pfn=0x7ffd, cudaVersion=12010, flags=0, symbolStatus=0x7ffe) = CUDA_SUCCESS 0.300 us'
		for f in $names; do
			echo "cushim: 0.000200 8 9 ${f}_v2(x=0) = CUDA_SUCCESS 1.000 us"
		done
	} >"$1/rt-trace.8.log"
}

# sc_redirects_of HEADER: the header's lines and those it includes.
sc_redirects_of() {
	(. "$top_srcdir/samples/common/suite-checks.sh" && sc_redirects "$1")
}

# expect WANT WHAT SCRIPT DIR (NGPUS: the GPUs the runs used, default 1)
expect() {
	n=$((n + 1))
	SUITE_CHECK_DIR=$4 NGPUS=${NGPUS:-1} top_srcdir=$top_srcdir top_builddir=$tmp sh "$3" >"$tmp/out" 2>&1
	rc=$?
	if [ "$1" = pass ] && [ $rc -eq 0 ]; then
		echo "ok: $(basename "$3") passes $2"
	elif [ "$1" = fail ] && [ $rc -ne 0 ] && grep -q '^check: ' "$tmp/out"; then
		echo "ok: $(basename "$3") fails $2: $(grep '^check: ' "$tmp/out" | head -n 1)"
	else
		echo "FAIL: $(basename "$3") on $2: exit $rc, wanted $1"
		sed 's/^/    /' "$tmp/out"
		fail=$((fail + 1))
	fi
}

for suite in cufuture/cufuture.sh:cufuture/cufuture-rtroute.h userbuffers/userbuffers.sh:userbuffers/ub-rtroute.h; do
	script=$top_srcdir/samples/${suite%%:*} header=$top_srcdir/samples/${suite#*:}
	d=$tmp/d
	good "$d" "$header"
	expect pass "a good set of outputs" "$script" "$d"
	good "$d" "$header"
	: >"$d/rt-trace.8.log"
	expect fail "an empty trace" "$script" "$d"
	good "$d" "$header"
	rm "$d/rt-masq-trace.8.json"
	expect fail "a missing summary" "$script" "$d"
	good "$d" "$header"
	echo 'cushim: 0.000300 8 9 cuMulticastCreate(mcHandle=0x7ffd, prop=0x7ffe) = CUDA_ERROR_NOT_FOUND 0.100 us' >>"$d/rt-trace.8.log"
	expect fail "a cuMulticast* call in the trace" "$script" "$d"
	good "$d" "$header"
	sed -i 's/"calls": 40,/"calls": 41,/' "$d/rt-masq-trace.8.json"
	expect fail "counts that differ between traced and untraced runs" "$script" "$d"
	good "$d" "$header"
	echo 'FAIL three' >>"$d/rt-masq-trace.res"
	expect fail "results that differ" "$script" "$d"
	good "$d" "$header"
	shared=$(redirected "$top_srcdir/samples/common/rtroute-shared.h" | head -n 1)
	sed -i "/\"name\": \"${shared}_v2\"/d" "$d/rt-masq.7.json" "$d/rt-masq-trace.8.json"
	expect fail "$shared (rtroute-shared.h) never called" "$script" "$d"
	good "$d" "$header"
	own=$(redirected "$header" | head -n 1)
	sed -i "/\"name\": \"${own}_v2\"/d" "$d/rt-masq.7.json" "$d/rt-masq-trace.8.json"
	expect fail "$own ($(basename "$header")) never called" "$script" "$d"
	good "$d" "$header"
	: >"$d/rt-masq-12.0.err"
	expect fail "a 12.0 run that failed without the runtime refusing the driver" "$script" "$d"
	good "$d" "$header"
	echo 0 >"$d/rt-masq-12.0.rc"
	echo 'PASS one' >"$d/rt-masq-12.0.res"
	expect fail "a 12.0 run that passed with other results" "$script" "$d"
	good "$d" "$header"
	echo 0 >"$d/rt-masq-12.0.rc"
	cp "$d/rt-plain.res" "$d/rt-masq-12.0.res"
	expect pass "a 12.0 run that passed with the same results" "$script" "$d"
	good "$d" "$header"
	sed -i 's/returned cudaErrorInsufficientDriver (35)/returned cudaErrorInvalidValue (1)/' "$d/rt-masq-12.0.err"
	expect fail "a 12.0 run refused by another error (cudaErrorInvalidValue)" "$script" "$d"
	good "$d" "$header"
	sed -i 's/returned cudaErrorInsufficientDriver (35), status -1/returned cudaErrorSymbolNotFound (500), status 1/' \
		"$d/rt-masq-12.0.err"
	expect fail "a 12.0 run that lost cuInit (a 2.0 function) as not found" "$script" "$d"
	# the two-GPU functions: demanded where two GPUs ran, not where one did
	two=$(sc_redirects_of "$header" | sed -n 's/^#define \(cu[A-Za-z0-9_]*\) RTROUTE_CALL(.*two GPUs.*/\1/p' | head -n 1)
	if [ -n "$two" ]; then
		good "$d" "$header"
		sed -i "/\"name\": \"${two}_v2\"/d" "$d/rt-masq.7.json" "$d/rt-masq-trace.8.json"
		expect pass "$two (two GPUs) never called on one GPU" "$script" "$d"
		NGPUS=2 expect fail "$two (two GPUs) never called where two GPUs ran" "$script" "$d"
	fi
done
. "$top_srcdir/samples/common/suite-checks-more.sh"
echo "$((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]
