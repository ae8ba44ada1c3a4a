#!/bin/sh
# cushim check names C++ functions as their source does: a program carrying
# a statically linked CUDA runtime (as far as its marks go) whose C++
# function app::launch(int) calls cudaMalloc is said to use the runtime
# because "app::launch(int) calls cudaMalloc", not _ZN3app6launchEi.  A
# build without the C++ runtime's demangler (configure --without-demangler)
# names it mangled.  Skips (77) without a C++ compiler.
. "$top_srcdir/tests/harness/defs.sh"
CXX=${BUILD_CXX:-${CXX:-c++}}
command -v "$CXX" >/dev/null 2>&1 || { echo "SKIP: no C++ compiler ($CXX)"; exit 77; }
cat >"$T/app.cc" <<'CC'
extern "C" int cudaMalloc(void **p, unsigned long n) { *p = 0; return (int)n; }
extern "C" int libcudart_static_marker(void) { return 0; }
namespace app {
__attribute__((noinline)) int launch(int n) { void *p; return cudaMalloc(&p, (unsigned long)n); }
}
int main(int argc, char **argv) { (void)argv; return app::launch(argc); }
CC
"$CXX" -O0 -o "$T/app" "$T/app.cc" || exit 99
run_cmd app "$CUSHIM" check --driver-version=12.2 "$T/app"
expect_rc app 0
# configure names the library it links the demangler from, or none.
if ! grep -q "^DEMANGLE_LIBS=''\$" "$top_builddir/config.log"; then
	grep -q "^$T/app: the runtime is used: app::launch(int) calls cudaMalloc\$" "$T/app.out" ||
		fail "the C++ caller is not named as its source names it: $(cat "$T/app.out")"
else
	grep -q "^$T/app: the runtime is used: _ZN3app6launchEi calls cudaMalloc\$" "$T/app.out" ||
		fail "without a demangler, the caller is not named as the symbol table has it: $(cat "$T/app.out")"
fi
finish
