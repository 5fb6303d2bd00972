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
# inline frames, as prof-report resolves them; its time is the sum of the
# two runs and its peak RSS the larger. Runs alternate, SYMBOLIZE_REPS of
# each (default 5); the figure is the ratio of the medians.
#
# With BENCH_KV=FILE it appends its measurements to FILE as "KEY VALUE"
# lines (symbolize.prof.seconds, symbolize.llvm.rss_kib, ...), which is how
# bench/bench.sh takes them; it prints its summary either way.
#
# usage: bench/symbolize.sh [N]    (from the top of the tree, after make fixtures)
set -eu
N=${1:-20000}
REPS=${SYMBOLIZE_REPS:-5}
BUILD=${BUILD:-build}
BIN=${BIN:-.}
REPORT=${BIN%/}/prof-report
SYNTH=$BUILD/tests/tools/synth_trace
RUST=$BUILD/testdata/rust/shapes
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
. "$(dirname "$0")/lib.sh"

libc=$(ldd "$BUILD/testdata/split" | awk '/libc\.so/ { print $3 }')
lid=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
ldebug=/usr/lib/debug/.build-id/${lid:0:2}/${lid:2}.debug
rid=$(readelf -n "$RUST" 2> /dev/null | awk '/Build ID/ { print $3 }')
# What it needs and cannot find is exit status 2, any other failure 1.
for f in "$ldebug" "$RUST" "$SYNTH" "$REPORT"; do
	[ -e "$f" ] || { echo "bench/symbolize.sh: missing $f (libc6-dbg installed? make fixtures?)" >&2; exit 2; }
done
command -v llvm-symbolizer > /dev/null ||
	{ echo "bench/symbolize.sh: llvm-symbolizer is not installed (Debian package llvm)" >&2; exit 2; }

# N/2 addresses from each file: points inside every sized function, in
# address order, as many per function as it takes.
pick() { # FILE COUNT
	readelf -sW "$1" 2> /dev/null | awk -v want="$2" '
		function hex(h,  v, k) { v = 0; for (k = 1; k <= length(h); k++)
			v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1; return v }
		$4 == "FUNC" && $3 + 0 > 0 && $7 != "UND" { a[n] = hex($2); s[n] = $3 + 0; n++ }
		END { for (k = 0; k < want; k++) { i = k % n; r = int(k / n);
			printf "0x%x\n", a[i] + (r * 37 + 1) % s[i] } }' | sort -u
}
pick "$ldebug" $((N / 2)) > "$TMP/libc.addrs"
pick "$RUST" $((N / 2)) > "$TMP/rust.addrs"
LBIAS=0x7f0000000000 RBIAS=0x560000000000
# printf -v, not $(printf): a subshell per address took 10 s of a smoke
# run's 2000 addresses on a loaded machine.
args=()
while read -r a; do printf -v a '0x%x' $((a + LBIAS)); args+=(--sample "TID=1,STACK=$a"); done < "$TMP/libc.addrs"
while read -r a; do printf -v a '0x%x' $((a + RBIAS)); args+=(--sample "TID=1,STACK=$a"); done < "$TMP/rust.addrs"
"$SYNTH" -o "$TMP/t.trace" --os linux --arch x86_64 --command bench \
	--image "KIND=gnu-build-id,IDENT=$lid,PATH=$libc,START=$LBIAS,SIZE=0x1000000,BIAS=$LBIAS" \
	--image "KIND=gnu-build-id,IDENT=$rid,PATH=$(realpath "$RUST"),START=$RBIAS,SIZE=0x1000000,BIAS=$RBIAS" \
	--thread TID=1,NAME=main "${args[@]}"
total=$(($(wc -l < "$TMP/libc.addrs") + $(wc -l < "$TMP/rust.addrs")))

KV=${BENCH_KV:-$TMP/kv}
put() { echo "symbolize.$1 $2" >> "$KV"; }
put addresses "$total"
for i in $(seq "$REPS"); do
	read -r secs rss < <(timed "$TMP/p.out" "$REPORT" folded "$TMP/t.trace")
	put prof.seconds "$secs"
	put prof.rss_kib "$rss"
	read -r s1 r1 < <(timed "$TMP/l1.out" llvm-symbolizer --obj="$ldebug" --inlining < "$TMP/libc.addrs")
	read -r s2 r2 < <(timed "$TMP/l2.out" llvm-symbolizer --obj="$RUST" --inlining --demangle < "$TMP/rust.addrs")
	put llvm.seconds "$(awk -v a="$s1" -v b="$s2" 'BEGIN { print a + b }')"
	put llvm.rss_kib "$((r1 > r2 ? r1 : r2))"
done
unres=$(grep -c '+0x' "$TMP/p.out" || true)
put unresolved "$unres"

# median KEY, min KEY, max KEY over this run's values
pickv() { awk -v k="symbolize.$1" -v w="$2" '$1 == k { v[n++] = $2 } END {
	for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	print w == "min" ? v[0] : w == "max" ? v[n - 1] : n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }' "$KV"; }
printf 'addresses: %d (%d libc, %d rust); prof-report lines: %d, of them unresolved: %d\n' "$total" \
	"$(wc -l < "$TMP/libc.addrs")" "$(wc -l < "$TMP/rust.addrs")" "$(wc -l < "$TMP/p.out")" "$unres"
for t in prof llvm; do
	printf '%-19s median %.3f s (min %.3f, max %.3f), peak RSS %d KiB\n' \
		"$([ $t = prof ] && echo prof-report folded: || echo llvm-symbolizer:)" "$(pickv $t.seconds median)" \
		"$(pickv $t.seconds min)" "$(pickv $t.seconds max)" "$(pickv $t.rss_kib median)"
done
awk -v p="$(pickv prof.seconds median)" -v l="$(pickv llvm.seconds median)" -v n="$total" 'BEGIN {
	printf "prof-report is %.1fx the speed of llvm-symbolizer (%.0f vs %.0f addresses/s)\n", l / p, n / p, n / l }'
