#!/bin/sh
# What cannot be read, handed to the fake 13.0 driver under cushim's
# diagnostics (tests/hardening/bad-memory-app.c); each run must exit 0 with
# the driver's codes, within its timeout:
#   strings  cuModuleGetFunction with a name in a PROT_NONE page and one
#            that runs into it, under CUSHIM_TIMELINE, CUSHIM_LOG=errors and
#            CUSHIM_LOG=trace: the trace shows <unreadable ADDRESS> (after
#            what could be read), the timeline the same, as valid JSON;
#   paths    cuModuleLoad with such paths, refused (FAKE_MODULE_REFUSE), under
#            the same settings and the default: the module's cause says
#            the path cannot be read;
#   fifo     cuModuleLoad of a FIFO, and of a symlink to one, refused: no
#            hang; the cause says it is not a regular file;
#   huge     a refused fatbin whose header claims 200 MB, followed by 201 MB
#            of readable zeros: the peak resident size grows by less than
#            16 MiB, and the cause names the image header that is wrong.
. "$top_srcdir/tests/harness/defs.sh"
fake=$top_builddir/tests/fake
app=$top_builddir/tests/hardening/bad-memory-app
PYTHON=${PYTHON:-python3}
for d in drv-13.0 no-rt; do
	[ -d "$fake/$d" ] || { echo "no $fake/$d: the fake drivers are not built" >&2; exit 99; }
done
[ -x "$app" ] || { echo "no $app" >&2; exit 99; }
unset LD_PRELOAD CUSHIM_LOG CUSHIM_LOG_FILE CUSHIM_SUMMARY CUSHIM_TIMELINE CUSHIM_DRIVER_VERSION CUSHIM_HIDE \
	CUSHIM_DRIVER CUSHIM_CUDART FAKE_MODULE_REFUSE
export LD_LIBRARY_PATH=$fake/drv-13.0:$fake/no-rt FAKE_GPU_CC=9.0

# run NAME SECONDS VAR=VALUE... -- ARGS: the app preloaded with cushim.
run() {
	name=$1 secs=$2
	shift 2
	vars=
	while [ "$1" != -- ]; do
		vars="$vars $1"
		shift
	done
	shift
	run_cmd "$name" env LD_PRELOAD="$SHIMLIB" $vars timeout "$secs" $EXE_WRAPPER "$app" "$@"
	expect_rc "$name" 0
}

printed() { # NAME WORD: what the app printed after WORD
	sed -n "s/^$2 //p" "$T/$1.out"
}

has() { # NAME FILE TEXT
	grep -qF -- "$3" "$2" || fail "$1: no '$3' in $(head -c 2000 "$2")"
}

json_ok() { # NAME FILE
	$PYTHON -c 'import json, sys; json.load(open(sys.argv[1]))' "$2" || fail "$1: $2 is not valid JSON"
}

# ---- strings: cuModuleGetFunction before cuInit fails (3) ----
for how in timeline errors trace; do
	case $how in
	timeline) set -- CUSHIM_TIMELINE="$T/strings.json" ;;
	*) set -- CUSHIM_LOG=$how ;;
	esac
	run "strings-$how" 30 "$@" -- none strings
	g=$(printed "strings-$how" guard)
	[ "$(printed "strings-$how" unreadable)" = "3 $g" ] && [ -n "$g" ] ||
		fail "strings-$how: $(cat "$T/strings-$how.out")"
	[ "$(printed "strings-$how" partial | cut -d' ' -f1)" = 3 ] || fail "strings-$how: $(cat "$T/strings-$how.out")"
	if [ $how = timeline ]; then
		json_ok strings-timeline "$T/strings.json"
		has strings-timeline "$T/strings.json" "\"name\":\"<unreadable $g>\""
		has strings-timeline "$T/strings.json" "\"name\":\"\\\"xxx\\\"<unreadable $g>\""
	else
		has "strings-$how" "$T/strings-$how.err" "hmod=0x0, name=<unreadable $g>) = CUDA_ERROR_NOT_INITIALIZED"
		has "strings-$how" "$T/strings-$how.err" "hmod=0x0, name=\"xxx\"<unreadable $g>) = CUDA_ERROR_NOT_INITIALIZED"
	fi
done

# ---- paths: cuModuleLoad refused (209) ----
for how in default timeline errors trace; do
	case $how in
	default) set -- FAKE_MODULE_REFUSE=209 ;;
	timeline) set -- FAKE_MODULE_REFUSE=209 CUSHIM_TIMELINE="$T/paths.json" ;;
	*) set -- FAKE_MODULE_REFUSE=209 CUSHIM_LOG=$how ;;
	esac
	run "paths-$how" 30 "$@" -- none paths
	g=$(printed "paths-$how" guard)
	p=$(printed "paths-$how" partial)
	[ "$(printed "paths-$how" unreadable)" = "209 $g" ] && [ "${p%% *}" = 209 ] ||
		fail "paths-$how: $(cat "$T/paths-$how.out")"
	for at in "$g" "${p#* }"; do
		has "paths-$how" "$T/paths-$how.err" "cuModuleLoad returned CUDA_ERROR_NO_BINARY_FOR_GPU for a path at $at: it cannot be read (its path is not readable memory)"
	done
	case $how in
	timeline)
		json_ok paths-timeline "$T/paths.json"
		has paths-timeline "$T/paths.json" "\"fname\":\"<unreadable $g>\""
		has paths-timeline "$T/paths.json" "\"fname\":\"\\\"xxx\\\"<unreadable $g>\"" ;;
	errors | trace)
		has "paths-$how" "$T/paths-$how.err" "fname=<unreadable $g>) = CUDA_ERROR_NO_BINARY_FOR_GPU" ;;
	esac
done

# ---- fifo: refused, never opened for blocking ----
mkfifo "$T/fifo" && ln -s fifo "$T/link" || exit 99
for f in fifo link; do
	run "fifo-$f" 10 FAKE_MODULE_REFUSE=209 -- none fifo "$T/$f"
	[ "$(printed "fifo-$f" fifo)" = 209 ] || fail "fifo-$f: $(cat "$T/fifo-$f.out")"
	has "fifo-$f" "$T/fifo-$f.err" "for $T/$f: it cannot be read (not a regular file)"
done

# ---- huge: only the headers are copied ----
run huge 60 FAKE_MODULE_REFUSE=209 -- none huge
grew=$(printed huge grew)
echo "huge: the peak resident size grew by ${grew:-?} KiB"
[ "$(printed huge huge)" = 209 ] || fail "huge: $(cat "$T/huge.out")"
[ -n "$grew" ] && [ "$grew" -lt 16384 ] || fail "huge: the peak resident size grew by ${grew:-?} KiB"
has huge "$T/huge.err" "cushim cannot read it either: the image at offset 0x60 has a header size of 0 bytes"
finish
