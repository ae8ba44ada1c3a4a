#!/bin/sh
# The table tool and the generator on a made-up API (tests/table/fixture,
# headers written for this test): the names come from the declarations, a
# second version with no name of its own is a lookup-only row (never
# exported), a name whose typedef is gone is left out, a structure of floats
# passed by value is refused; built against an older toolkit (fixture/old),
# the union has the newer rows with ABI-equivalent generic types, and the
# stubs assemble with only the exported names global.
. "$top_srcdir/tests/table/defs.sh"
fx=$top_srcdir/tests/table/fixture
"$PYTHON" "$top_srcdir/tools/mktable.py" --include "$fx/new" --out "$T/t.tsv" --source fixture 2>"$T/mktable.err" ||
	{ cat "$T/mktable.err"; exit 1; }
grep '^fn\|^enum' "$T/t.tsv" >"$T/facts"
cmp -s "$T/facts" "$fx/expected.tsv" || fail "the facts differ from fixture/expected.tsv: $(diff "$fx/expected.tsv" "$T/facts")"
grep -q 'cuFxSet_v14020 has no exported name: lookup-only' "$T/mktable.err" || fail "no lookup-only note"
grep -q 'cuFxGone is declared but has no typedef' "$T/mktable.err" || fail "no note on cuFxGone"

CPP="$CPP -DFIXTURE_FLOAT_STRUCT" "$PYTHON" "$top_srcdir/tools/mktable.py" --include "$fx/new" --out "$T/f.tsv" \
	2>"$T/float.err" && fail "a structure of floats passed by value was accepted"
grep -q 'CUfxMix is passed by value and holds floating-point members' "$T/float.err" ||
	fail "no clear message for CUfxMix: $(cat "$T/float.err")"

mkdir "$T/gen"
"$PYTHON" "$top_srcdir/tools/gensyms.py" --include "$fx/old" --table "$T/t.tsv" --outdir "$T/gen" || fail "gensyms"
h=$T/gen/cushim-syms.h
grep -q '^CUSHIM_LOOKUP_ONLY(8, cuFxSet_v14020)$' "$h" || fail "cuFxSet_v14020 is not lookup-only"
grep -q '^typedef struct { uint32_t w\[2\]; } cushim_struct_8_4;' "$h" || fail "no generic structure"
grep -q '(CUfxStream \*a0, CUfxMode a1, cushim_struct_8_4 a2)' "$h" || fail "cuFxMake_v2 has not its generic prototype"
grep -q '(CUfxStream a0, CUfxAddr a1, const char \*a2, double a3)' "$h" || fail "cuFxRun_v2 lost its types"
grep -q '{4, "CU_FX_B", ""}, {5, "CU_FX_C", ""}' "$T/gen/cushim-enums.h" || fail "the table's enum values are not merged"
# the generated prototypes compile against the old toolkit, and the stubs assemble
cat >"$T/use.c" <<'EOC'
#include <cuda.h>
#include <stdint.h>
#include "cushim-syms.h"
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, ...) typedef CUresult fn_##name params;
#include "cushim-syms.h"
EOC
${CC:-cc} -c -I"$fx/old" -I"$T/gen" -o "$T/use.o" "$T/use.c" || fail "the generated prototypes do not compile"
${CC:-cc} -c -o "$T/stubs.o" "$T/gen/cushim-stubs.S" || fail "the stubs do not assemble"
nm "$T/stubs.o" >"$T/nm"
grep -q ' T cuFxMake_v2$' "$T/nm" || fail "cuFxMake_v2 is not exported"
grep -q ' t cuFxSet_v14020$' "$T/nm" || fail "cuFxSet_v14020 is not a local symbol: $(grep cuFxSet "$T/nm")"
[ "$(grep -c ' T cuFx' "$T/nm")" -eq 8 ] || fail "not 8 exports: $(grep ' T ' "$T/nm")"
finish
