#!/bin/sh
# make check-reliability: runs every hardening check and prints the table of
# doc/HARDENING.md (what was tested, how long, the result).  Exit 1 if
# any row failed.
: "${top_builddir:?}" "${top_srcdir:?}" "${MAKE:=make}" "${FUZZ_SECONDS:=60}"
cd "$top_builddir" || exit 99
status=0
log=$top_builddir/reliability.log
: >"$log"
row() { # row WHAT TARGET [MAKE ARGS...]: run a make target, print one row
	what=$1 target=$2; shift 2
	start=$(date +%s)
	if $MAKE "$target" "$@" >"$log.row" 2>&1; then res=pass; else res=FAIL; status=1; fi
	secs=$(( $(date +%s) - start ))
	# a run whose tests all skipped (no root, no clang) proved nothing
	if [ $res = pass ] && grep -q '^SKIP: ' "$log.row" && ! grep -q '^PASS: ' "$log.row"; then res=skip; fi
	cat "$log.row" >>"$log"; rm -f "$log.row"
	printf '| %-62s | %5ss | %-6s |\n' "$what" "$secs" "$res"
}
echo "cushim reliability, $(date -u +%Y-%m-%d), $(uname -m), $(${CC:-gcc} --version | head -n 1)"
echo
printf '| %-62s | %6s | %-6s |\n' "what" "time" "result"
printf '|%s|%s|%s|\n' "----------------------------------------------------------------" "--------" "--------"
row "faults injected: 13 driver/runtime failures (tests/hardening/faults)" check TESTS=tests/hardening/faults
row "constructor, fork storm (8x25 forks), vfork+exec, signals" check TESTS=tests/hardening/threads
row "masquerade's runtime gate: ctor in dlopen, PROT_NONE page" check TESTS=tests/hardening/gate
row "secure execution: AT_SECURE copy reads no CUSHIM_*" check TESTS=tests/hardening/secure.sh
row "fuzzing: 8 libFuzzer targets, ${FUZZ_SECONDS} s each" check-fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
row "ASan+UBSan: the CPU suite (Check programs, cli scripts)" check-asan
row "TSan: lazy bootstrap, diagnostics, threads, signals, gate" check-tsan
row "valgrind: unit, diag and fault tests, every child" check-valgrind
echo
echo "(full log: reliability.log in the build folder)"
exit $status
