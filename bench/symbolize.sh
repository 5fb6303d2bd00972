#!/usr/bin/env bash
# bench/symbolize.sh: symbolication throughput of prof-report against
# llvm-symbolizer, on the same addresses of the same debug files.
#
# The addresses are N instruction addresses spread over the functions of
# libc (through its libc6-dbg debug file) and of the Rust fixture (a 4 MB
# binary with 1 MB of DWARF). prof-report gets them as a synthetic trace,
# one unique leaf address per sample, and writes folded stacks, so the
# time includes loading the trace, locating and opening both files,
# resolving every address once and writing the output. llvm-symbolizer
# gets the same link-time addresses on stdin, one run per file, with
# inline frames, as prof-report resolves them. Runs alternate, five of
# each; the figure is the ratio of the medians.
#
# usage: bench/symbolize.sh [N]    (from the top of the tree, after make fixtures)
set -eu
N=${1:-20000}
BUILD=${BUILD:-build}
SYNTH=$BUILD/tests/tools/synth_trace
RUST=$BUILD/testdata/rust/shapes
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

libc=$(ldd "$BUILD/testdata/split" | awk '/libc\.so/ { print $3 }')
lid=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
ldebug=/usr/lib/debug/.build-id/${lid:0:2}/${lid:2}.debug
rid=$(readelf -n "$RUST" | awk '/Build ID/ { print $3 }')
for f in "$ldebug" "$RUST" "$SYNTH"; do
	[ -e "$f" ] || { echo "bench/symbolize.sh: missing $f (libc6-dbg installed? make fixtures?)" >&2; exit 1; }
done

# N/2 addresses from each file: points inside every sized function, in
# address order, as many per function as it takes.
pick() { # FILE COUNT
	readelf -sW "$1" | awk -v want="$2" '
		function hex(h,  v, k) { v = 0; for (k = 1; k <= length(h); k++)
			v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1; return v }
		$4 == "FUNC" && $3 + 0 > 0 && $7 != "UND" { a[n] = hex($2); s[n] = $3 + 0; n++ }
		END { for (k = 0; k < want; k++) { i = k % n; r = int(k / n);
			printf "0x%x\n", a[i] + (r * 37 + 1) % s[i] } }' | sort -u
}
pick "$ldebug" $((N / 2)) > "$TMP/libc.addrs"
pick "$RUST" $((N / 2)) > "$TMP/rust.addrs"
LBIAS=0x7f0000000000 RBIAS=0x560000000000
args=()
while read -r a; do args+=(--sample "TID=1,STACK=$(printf '0x%x' $((a + LBIAS)))"); done < "$TMP/libc.addrs"
while read -r a; do args+=(--sample "TID=1,STACK=$(printf '0x%x' $((a + RBIAS)))"); done < "$TMP/rust.addrs"
"$SYNTH" -o "$TMP/t.trace" --os linux --arch x86_64 --command bench \
	--image "KIND=gnu-build-id,IDENT=$lid,PATH=$libc,START=$LBIAS,SIZE=0x1000000,BIAS=$LBIAS" \
	--image "KIND=gnu-build-id,IDENT=$rid,PATH=$(realpath "$RUST"),START=$RBIAS,SIZE=0x1000000,BIAS=$RBIAS" \
	--thread TID=1,NAME=main "${args[@]}"
total=$(($(wc -l < "$TMP/libc.addrs") + $(wc -l < "$TMP/rust.addrs")))

now() { date +%s.%N; }
prof=() llvm=()
for i in 1 2 3 4 5; do
	t0=$(now); ./prof-report folded "$TMP/t.trace" > "$TMP/p.out"; t1=$(now)
	llvm-symbolizer --obj="$ldebug" --inlining < "$TMP/libc.addrs" > "$TMP/l1.out"
	llvm-symbolizer --obj="$RUST" --inlining --demangle < "$TMP/rust.addrs" > "$TMP/l2.out"; t2=$(now)
	prof+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
	llvm+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
done
med() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
mp=$(med "${prof[@]}") ml=$(med "${llvm[@]}")
unres=$(grep -c '+0x' "$TMP/p.out" || true)
printf 'addresses: %d (%d libc, %d rust); prof-report lines: %d, of them unresolved: %d\n' "$total" \
	"$(wc -l < "$TMP/libc.addrs")" "$(wc -l < "$TMP/rust.addrs")" "$(wc -l < "$TMP/p.out")" "$unres"
printf 'prof-report folded: median %.3f s (min %.3f, max %.3f)\n' "$mp" "$(printf '%s\n' "${prof[@]}" | sort -n | head -1)" "$(printf '%s\n' "${prof[@]}" | sort -n | tail -1)"
printf 'llvm-symbolizer:    median %.3f s (min %.3f, max %.3f)\n' "$ml" "$(printf '%s\n' "${llvm[@]}" | sort -n | head -1)" "$(printf '%s\n' "${llvm[@]}" | sort -n | tail -1)"
awk -v p="$mp" -v l="$ml" -v n="$total" 'BEGIN {
	printf "prof-report is %.1fx the speed of llvm-symbolizer (%.0f vs %.0f addresses/s)\n", l / p, n / p, n / l }'
