#!/bin/sh
# cushim's answers to cuGetProcAddress and cuGetProcAddress_v2 against the
# real drivers' own, lookup by lookup (gpa-probe: every base name of the
# table, at every version the table names, 11000 to 13050 and each driver's
# own, with the three stream flags), no GPU needed:
#   masquerade  cushim posing as libcuda.so.1 in front of each real driver
#               answers exactly as that driver;
#   emulated    cushim in front of the newest real driver, emulating an older
#               driver's version (CUSHIM_DRIVER_VERSION), answers exactly as
#               that older driver.
# Each cuGetProcAddress flavour a driver has is compared; an answer is the
# result, the query status and the exported name the pointer is.  Prints the
# counts of lookups and of differences; any difference fails.  Each driver's
# answers are kept, with the questions, in tests/realdrv/answers of the build
# folder (tests/gpu/emulation.sh holds a GPU's driver to them).  Skips (77)
# when no real driver with cuGetProcAddress (CUDA 11.3 on) is at hand.
. "$top_srcdir/tests/realdrv/realdrv-env.sh"
PROBE=$top_builddir/tests/realdrv/gpa-probe
drivers=$(fetched drivers)
mkdir "$T/masq" && ln -s "$SHIM" "$T/masq/libcuda.so.1" || exit 99

# The questions: the table's base names; its versions and the drivers' own.
awk -F'\t' '!/^#/ { print $2 }' "$top_builddir/src/cushim-syms.tsv" | sort -u > "$T/bases"
versions() {
	awk -F'\t' '!/^#/ { print $3 }' "$top_builddir/src/cushim-syms.tsv"
	printf '%s\n' 1000 11000 11030 11080 12000 12020 12040 12080 13000 13050 14000
	cat "$T/own"
}

# probe WHERE ABI OUT [VAR=VALUE...]: the answers, through the driver at
# WHERE (a folder put first on the loader's path).
probe() {
	where=$1 abi=$2 out=$3
	shift 3
	# shellcheck disable=SC2086
	env LD_LIBRARY_PATH="$where" "$@" $EXE_WRAPPER "$PROBE" "$abi" "$T/bases" "$T/versions" > "$out" 2> "$out.err"
}


# The drivers that have cuGetProcAddress, with their versions ("DIR CUDA").
: > "$T/own"
: > "$T/drivers"
for d in $drivers; do
	v=$(LD_LIBRARY_PATH=$d $EXE_WRAPPER "$PROBE" version 2>/dev/null) || continue
	[ "$v" -ge 11030 ] 2>/dev/null || continue
	echo "$v" >> "$T/own"
	echo "$d $v" >> "$T/drivers"
done
[ -s "$T/drivers" ] || { echo "lookups: no real driver with cuGetProcAddress at hand; skipping"; exit 77; }
versions | sort -un > "$T/versions"
ANSWERS=$top_builddir/tests/realdrv/answers
rm -rf "$ANSWERS" && mkdir -p "$ANSWERS" && cp "$T/bases" "$T/versions" "$ANSWERS/" || exit 99
newest=$(sort -k2,2n "$T/drivers" | tail -n 1)
ndir=${newest% *} nver=${newest#* }

printf '%-11s %-5s %-4s %8s %11s %s\n' driver CUDA abi lookups masquerade \
	"emulated on $(driver_version "$ndir")"
while read -r d v; do
	name=$(driver_version "$d")
	for abi in v1 v2; do
		probe "$d" $abi "$T/plain" || continue # (no cuGetProcAddress_v2 before CUDA 12.0)
		gzip -c "$T/plain" > "$ANSWERS/$v.$abi.gz" || exit 99
		probe "$T/masq:$d" $abi "$T/masq.out" CUSHIM_DRIVER="$d/libcuda.so.1" ||
			bad "$name" "the probe failed under masquerade: $(head -c 300 "$T/masq.out.err")"
		m=$(differ "$T/plain" "$T/masq.out" "$name $abi masquerade")
		e=-
		if [ "$d" != "$ndir" ]; then
			probe "$T/masq:$ndir" $abi "$T/emu.out" CUSHIM_DRIVER="$ndir/libcuda.so.1" \
				CUSHIM_DRIVER_VERSION="$v" || bad "$name" "the probe failed under emulation"
			e=$(differ "$T/plain" "$T/emu.out" "$name $abi emulated")
		fi
		printf '%-11s %-5s %-4s %8s %11s %s\n' "$name" "$((v / 1000)).$((v % 1000 / 10))" $abi \
			"$(wc -l < "$T/plain")" "$m" "$e"
		[ "$m" = 0 ] || bad "$name" "$m of cushim's $abi answers in masquerade differ from the driver's"
		[ "$e" = 0 ] || [ "$e" = - ] || bad "$name" "$e of cushim's $abi answers emulating $v differ"
	done
done < "$T/drivers"
echo "lookups: libcushim.so $SHIM"
exit $fail
