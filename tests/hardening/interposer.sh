#!/bin/sh
# cushim stacked with an interposer that overrides dlsym and hooks the driver
# as HAMi-core's libvgpu.so does (tests/fake/fake-vgpu.c: a memory limit from
# CUDA_DEVICE_MEMORY_LIMIT, hooked cuLaunchKernel and cuGetProcAddress), on
# the fake 13.0 driver.  cuGetExportTable, which profilers, sanitizers and
# the runtimes use, reaches the driver with the program's own arguments and
# its answer comes back as given.  Every configuration must give the program the
# results it gets with the interposer alone, with no recursion and no crash:
#   cushim first       the limit holds, cushim counts every call, and each
#                      export goes on to the interposer's function of that
#                      exact name where it has one, else to the driver's;
#                      CUSHIM_HIDE and emulation act; no warning;
#   interposer first   the limit holds; one warning names the interposer and
#                      the order that works;
#   cushim run --masquerade with the interposer preloaded: the limit holds,
#                      cushim counts what the interposer passes on, HIDE and
#                      emulation act through it; no warning; the same
#                      where the interposer also overrides dlopen and answers
#                      "libcuda.so.N" with itself, as Nsight Compute's does;
#   both preloaded, cushim first, and masquerade: no recursion; one warning
#                      (the interposer cannot be forwarded through);
# and a fork storm in the first and third.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/hardening/interposer-app
vgpu=$(realpath "$fake/vgpu/libfakevgpu.so" 2>/dev/null) || { echo "no fake interposer: make fake" >&2; exit 99; }
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART FAKE_VGPU_REDIRECT FAKE_VGPU_DLOPEN
export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt CUDA_DEVICE_MEMORY_LIMIT=64m
export APP_DRIVER=$(realpath "$fake/drv-13.0/libcuda.so.1")

# run NAME PRELOAD [masquerade] -- MODE: the app's results in $T/NAME.res, the
# cushim lines of its stderr in $T/NAME.cushim, its summary in $T/NAME.json.
run() {
	name=$1 pre=$2 how=$3 mode=$4
	if [ "$how" = masquerade ]; then
		LD_PRELOAD=$pre CUSHIM_SUMMARY=$T/$name.json run_cmd "$name" timeout 60 $CUSHIM run --masquerade -- \
			$EXE_WRAPPER "$app" "$mode"
	else
		LD_PRELOAD=$pre CUSHIM_SUMMARY=$T/$name.json run_cmd "$name" timeout 60 $EXE_WRAPPER "$app" "$mode"
	fi
	expect_rc "$name" 0
	grep -q 'fakevgpu:' "$T/$name.err" && fail "$name: $(grep 'fakevgpu:' "$T/$name.err")"
	grep -v '^where ' "$T/$name.out" >"$T/$name.res"
	grep '^cushim: ' "$T/$name.err" | grep -v '^cushim: summary\|^cushim: *[0-9]\|^cushim: *calls' >"$T/$name.cushim"
}

same_results() { # NAME: the results the interposer alone gave
	cmp -s "$T/alone.res" "$T/$1.res" ||
		fail "$1: results differ from the interposer alone: $(diff "$T/alone.res" "$T/$1.res" | tr '\n' ' ')"
}

calls() { # NAME FUNCTION: cushim's count from the JSON summary (a row a line; 0 if absent)
	n=$(sed -n "s/.*\"name\": \"$2\", \"calls\": \([0-9]*\),.*/\1/p" "$T/$1.json")
	echo "${n:-0}"
}

# The allocation over the limit, refused by the interposer below cushim,
# is named once with the interposer's figures (the limit as the device).
oom_named() {
	grep -q 'cuMemAlloc_v2 returned CUDA_ERROR_OUT_OF_MEMORY asking for 1.00 GiB of device memory: the device has [0-9.]* MiB free of 64.00 MiB (cuMemGetInfo)\.' "$T/$1.cushim" ||
		fail "$1: the allocation over the limit is not named: $(cat "$T/$1.cushim")"
	grep -v 'returned CUDA_ERROR_OUT_OF_MEMORY' "$T/$1.cushim" >"$T/$1.rest"
	mv "$T/$1.rest" "$T/$1.cushim"
}

no_warning() {
	[ -s "$T/$1.cushim" ] && fail "$1: cushim said: $(cat "$T/$1.cushim")"
}

one_warning() { # NAME TEXT
	[ "$(wc -l <"$T/$1.cushim")" -eq 1 ] && grep -qF "$2" "$T/$1.cushim" ||
		fail "$1: wanted one warning with '$2', got: $(cat "$T/$1.cushim")"
}

# The interposer alone: its limit refuses the allocation above it, by name,
# through cuGetProcAddress and by the runtime's route, and it sees every call.
LD_PRELOAD=$vgpu run_cmd alone timeout 60 $EXE_WRAPPER "$app" run
expect_rc alone 0
cp "$T/alone.out" "$T/alone.res"
for k in alloc_small=0 alloc_over=2 gpa_over=2 runtime_over=2 "vgpu_alloc=4 vgpu_launch=10" driver_launch=10 \
	"export_table=801 table=NULL args=the program's"; do
	grep -qx "$k" "$T/alone.res" || fail "the fake interposer alone: no '$k' in $(tr '\n' ' ' <"$T/alone.res")"
done

# cushim first.
run first "$SHIMLIB $vgpu" plain where
same_results first
oom_named first
no_warning first
for f in cuMemAlloc_v2:4 cuLaunchKernel:10 cuInit:1; do
	[ "$(calls first "${f%:*}")" = "${f#*:}" ] || fail "first: cushim counted $(calls first "${f%:*}") ${f%:*}, wanted ${f#*:}"
done
while IFS='=:' read -r _ name file sym hooked; do
	want=libcuda.so.1
	[ "$hooked" = hooked ] && want=libfakevgpu.so
	[ "$file:$sym" = "$want:${name#where }" ] || fail "first: ${name#where } forwards to $file:$sym, wanted $want:${name#where }"
done <<EOF
$(grep '^where ' "$T/first.out" | sed 's/^where /where=/')
EOF
CUSHIM_HIDE='cuMemGetInfo*' run first-hide "$SHIMLIB $vgpu" plain run
grep -qx meminfo=36 "$T/first-hide.res" || fail "first: CUSHIM_HIDE did not hide cuMemGetInfo_v2"
CUSHIM_DRIVER_VERSION=12.0 run first-emul "$SHIMLIB $vgpu" plain run
grep -qx 'version_rc=0 version=12000' "$T/first-emul.res" || fail "first: CUSHIM_DRIVER_VERSION=12.0 not seen"

# The interposer first: the limit holds, cushim says once what is lost.
run second "$vgpu $SHIMLIB" plain where
same_results second
one_warning second "libfakevgpu.so is preloaded ahead of libcushim.so"
one_warning second 'LD_PRELOAD="libcushim.so libfakevgpu.so"'

# cushim run --masquerade with the interposer preloaded.
run masq "$vgpu" masquerade where
same_results masq
no_warning masq
for f in cuMemAlloc_v2:1 cuLaunchKernel:10 cuInit:1 cuGetProcAddress_v2:2; do
	[ "$(calls masq "${f%:*}")" = "${f#*:}" ] || fail "masquerade: cushim counted $(calls masq "${f%:*}") ${f%:*}, wanted ${f#*:}"
done
CUSHIM_HIDE='cuMemGetInfo*' run masq-hide "$vgpu" masquerade run
grep -qx meminfo=36 "$T/masq-hide.res" || fail "masquerade: CUSHIM_HIDE did not act behind the interposer"
CUSHIM_DRIVER_VERSION=12.0 run masq-emul "$vgpu" masquerade run
grep -qx 'version_rc=0 version=12000' "$T/masq-emul.res" || fail "masquerade: emulation did not act behind the interposer"

# Both preloaded, cushim first, and masquerade: the interposer forwards to
# cushim, so cushim cannot forward through it; no recursion, one warning.
run both "$SHIMLIB $vgpu" masquerade run
one_warning both "libfakevgpu.so is preloaded after libcushim.so, which is also the process's libcuda.so.1"

# Installed as HAMi-core installs it, the interposer's dlsym answers every
# "cu..." name, whatever the handle, with its own hook: cushim is unmoved.
FAKE_VGPU_REDIRECT=$vgpu run first-redirect "$SHIMLIB $vgpu" plain run
same_results first-redirect
oom_named first-redirect
no_warning first-redirect
FAKE_VGPU_REDIRECT=$vgpu run masq-redirect "$vgpu" masquerade run
same_results masq-redirect
no_warning masq-redirect

# An interposer that also overrides dlopen and answers "libcuda.so.N" with
# itself, as Nsight Compute's libcuda-injection.so does: cushim still knows
# it is the process's libcuda.so.1 and opens the real driver below it, so
# the chain stays the interposer, cushim, the driver; through the tool's
# dlopen it would forward to the tool, and the tool back to cushim.
FAKE_VGPU_DLOPEN=1 run masq-dlopen "$vgpu" masquerade where
same_results masq-dlopen
no_warning masq-dlopen
for f in cuMemAlloc_v2:1 cuLaunchKernel:10 cuInit:1 cuGetProcAddress_v2:2; do
	[ "$(calls masq-dlopen "${f%:*}")" = "${f#*:}" ] ||
		fail "masquerade, dlopen overridden: cushim counted $(calls masq-dlopen "${f%:*}") ${f%:*}, wanted ${f#*:}"
done

# A runtime program: the runtime initialises the driver and, still inside
# its initialisation, asks for a private table by a name that the
# interposer's dlsym answers from the global scope, where cushim comes next.
# cushim's first call is then made inside the runtime's initialisation, with
# the driver initialised: it must not ask that runtime for entry points
# (the runtime would wait on its own initialisation for ever).
LD_LIBRARY_PATH=$fake/drv-13.0:$fake/rt-13.0 LD_PRELOAD=$vgpu run_cmd alone-rt timeout 60 $EXE_WRAPPER "$app" runtime
expect_rc alone-rt 0
cp "$T/alone-rt.out" "$T/alone-rt.res"
grep -qx 'runtime_entry=0 status=0 found=yes' "$T/alone-rt.res" ||
	fail "the fake runtime behind the interposer alone: $(head -1 "$T/alone-rt.res")"
for order in second-rt:"$vgpu $SHIMLIB" first-rt:"$SHIMLIB $vgpu"; do
	LD_LIBRARY_PATH=$fake/drv-13.0:$fake/rt-13.0 CUSHIM_LOG=info run "${order%%:*}" "${order#*:}" plain runtime
	cmp -s "$T/alone-rt.res" "$T/${order%%:*}.res" ||
		fail "${order%%:*}: results differ from the interposer alone: $(diff "$T/alone-rt.res" "$T/${order%%:*}.res" | tr '\n' ' ')"
done
grep -q "called from inside the CUDA runtime .*rt-13.0/libcudart.so.13" "$T/second-rt.err" ||
	fail "second-rt: cushim did not say it left the initialising runtime alone: $(grep '^cushim' "$T/second-rt.err")"

# Fork storms.
run first-fork "$SHIMLIB $vgpu" plain fork
grep -qx fork_children_failed=0 "$T/first-fork.res" || fail "first: fork storm: $(grep fork_ "$T/first-fork.res")"
run masq-fork "$vgpu" masquerade fork
grep -qx fork_children_failed=0 "$T/masq-fork.res" || fail "masquerade: fork storm: $(grep fork_ "$T/masq-fork.res")"
finish
