#!/usr/bin/env bash
# End-to-end on arm64: the static aarch64 prof-record (make arm64) records
# the static aarch64 fixtures in an emulated arm64 machine
# (tests/vm/run-arm64), in each mode of $MODES (ptrace: wall mode with
# --sampler ptrace), in one boot
# (arm64_guest.sh); prof-report on this host reports the traces, with
# --symbols pointing at the fixtures' build, as a user would after
# bringing traces back from a device. Checked:
#   - cpu and wall mode sample with perf_event (root in the machine),
#     --sampler ptrace with the tick sampler;
#   - the frameless leaf's caller (in lr, not in any frame record) and
#     qsort's caller in >= 95% of those samples, with and without
#     pointer authentication (NAME-pac), and without frame records in
#     the program's own functions (qsort_cmp-nofp: main and run are
#     reached only through CFI);
#   - the thread blocked in read(2) with its blocked path in wall mode
#     (both samplers), and waiting in >= 95% of its perf_event samples;
#     the threads followed and named in cpu mode;
#   - split's 75/25 share, within a bound its sample count sets;
#   - a 10,000-deep recursion cut at --max-depth and marked truncated;
#   - a signal handler's samples whole (>= 99%) through the kernel's
#     signal frame, also on an alternate signal stack;
#   - info: an arm64 trace, each fixture's image by the build-id readelf
#     reads, served by its DWARF;
#   - every name of every report: the folded stacks of --addresses,
#     symbolized by llvm-symbolizer on the arm64 binaries, are exactly the
#     folded stacks prof-report writes;
#   - annotate --asm: the instructions of the annotate fixture's loops,
#     from its trace (recorded once, in cpu mode), are llvm-objdump's,
#     the same addresses and mnemonics (tests/e2e/asm.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asm.sh"

case $BUILD in *-san)
	# .ci/run's sanitized suite: the arm64 tree is never sanitized, and
	# the plain suite has run it.
	skip "arm64" "a sanitized build; the plain suite runs the arm64 suite, whose binaries are not sanitized"
	exit 0 ;;
esac
cd "$TOP" || exit 1
ARM64=$TOP/build/arm64
MODES="wall cpu ptrace"
export MAKEFLAGS=

# What this machine cannot have is a skip with the reason: the set-up's
# "unavailable" (not root and a host package missing, no arm64 package
# list reachable), or a qemu that can run nothing. Any other failure of
# the set-up (an installation or a download that fails as root) or of
# the build is a failure.
if ! out=$(make -s arm64-setup 2>&1); then
	if echo "$out" | grep -q '^arm64-setup: unavailable:'; then
		skip "arm64" "$(echo "$out" | grep '^arm64-setup:' | tail -2 | tr '\n' ' ')"
	else
		fail "arm64-setup" "$(echo "$out" | tail -5 | tr '\n' ' ')"
	fi
	exit 0
fi
if ! qemu-system-aarch64 -accel help 2>/dev/null | grep -qx -e tcg -e kvm; then
	skip "arm64" "qemu-system-aarch64 has neither TCG nor KVM here"
	exit 0
fi
if ! out=$(make -s -j2 arm64 arm64-fixtures arm64-vm 2>&1); then
	fail "arm64-build" "$(echo "$out" | tail -5)"
	exit 0
fi
file "$ARM64/prof-record" | grep -q 'ARM aarch64.*statically linked' && ok "arm64-static-prof-record" \
	|| fail "arm64-static-prof-record" "$(file "$ARM64/prof-record")"

# --- in the machine --------------------------------------------------------
dev=$TMP/device
mkdir -p "$dev"
cp "$ARM64/prof-record" "$ARM64"/testdata/* tests/e2e/arm64_guest.sh "$dev/"
tests/vm/run-arm64 "$dev" sh arm64_guest.sh $MODES > "$TMP/vm.out" 2> "$TMP/vm.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "arm64-vm-run" "exit $rc: $(tail -5 "$TMP/vm.err")"
	exit 0
fi
# run-arm64's last line: "run-arm64: boot to command S s (...), T s in all".
ok "arm64-vm-run ($(tail -1 "$TMP/vm.err" | sed 's/^run-arm64: //'); the longest recording $(sort -k3 -nr "$dev/recorded.txt" | awk 'NR == 1 { print $3 " s, " $1 }'))"
grep -qw paca "$dev/cpu-features.txt" && ok "arm64-cpu-has-pointer-authentication" \
	|| fail "arm64-cpu-has-pointer-authentication" "$(cat "$dev/cpu-features.txt")"
# Both the leaf and its caller of frameless-pac sign their return address.
signers=$(aarch64-linux-gnu-objdump -d "$ARM64/testdata/frameless-pac" |
	awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } /[[:space:]]paciasp$/ && fn ~ /^<frameless_(leaf|caller)/ { print fn }' | sort -u | wc -l)
[ "$signers" -eq 2 ] && ok "arm64-pac-fixture-signs-return-addresses" \
	|| fail "arm64-pac-fixture-signs-return-addresses" "paciasp in $signers of frameless_leaf and frameless_caller"
# aarch64's C library keeps frame records in qsort (__qsort_r, which
# qsort jumps to, and msort_with_tmp begin with stp x29, x30 and mov
# x29, sp), and the comparator's caller is in lr, so qsort_cmp's walk
# needs no CFI. In qsort_cmp-nofp no instruction of main, run or
# sort_keys names x29: the record __qsort_r pushes holds x29 as they
# left it, __libc_start_call_main's, and a frame-pointer walk goes from
# sort_keys straight there. run and main are found only through the CFI
# of sort_keys and run, whose rows take the CFA from sp, an sp that only
# the rows of every frame below, the C library's too, give.
framed=$(aarch64-linux-gnu-objdump -d "$ARM64/testdata/qsort_cmp-nofp" |
	awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } /x29/ && fn ~ /^<(main|run|sort_keys)>:$/ { print fn }' | sort -u | tr '\n' ' ')
[ -z "$framed" ] && ok "arm64-nofp-fixture-keeps-no-frame-records" \
	|| fail "arm64-nofp-fixture-keeps-no-frame-records" "x29 in $framed"

# among FOLDED WITH PAT: "P N": N samples match the regex WITH, and P
# percent (integer) of them also match PAT; P is -1 if N is 0.
among() {
	awk -v with="$2" -v pat="$3" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line);
	       if (line ~ with) { total += n; if (line ~ pat) hit += n } }
	     END { printf "%d %d\n", total ? hit * 100 / total : -1, total }' "$1"
}

# share_ok NAME DETAIL P N: ok if P >= 95 of at least 20 samples.
share_ok() {
	if [ "$3" -ge 95 ] && [ "$4" -ge 20 ]; then
		ok "$1 ($3% of $4 samples)"
	else
		fail "$1" "$3% of $4 samples (want >= 95% of >= 20): $2"
	fi
}

# recorded NAME: true if NAME's recording exited 0 and left a trace;
# otherwise fails CASE with what it said.
recorded() {
	local name=$1 case=$2 st
	st=$(awk -v n="$name" '$1 == n { print $2 }' "$dev/recorded.txt")
	if [ "$st" = 0 ] && [ -s "$dev/$name.trace" ]; then
		"$REPORT" folded --symbols "$ARM64/testdata" "$dev/$name.trace" > "$TMP/$name.folded" 2> "$TMP/$name.rerr"
		return
	fi
	fail "$case" "prof-record exited ${st:-?}: $(tail -3 "$dev/$name.err" 2>/dev/null)"
	return 1
}

# chain: llvm-symbolizer's answers, one an address, as one line each:
# its functions outermost first, joined with ';' as folded has them, or
# an empty line where it knows no function.
chain() {
	awk -v RS= -F'\n' '{ s = ""; for (k = 1; k < NF; k += 2) if ($k != "??") s = $k (s == "" ? "" : ";") s
	       print s }'
}

# oracle NAME: every frame of NAME.trace named by llvm-symbolizer on the
# arm64 binary its image is, compared with prof-report's folded stacks.
oracle() {
	local name=$1
	"$REPORT" folded --addresses "$dev/$name.trace" > "$TMP/$name.addrs" 2>&1
	# Each distinct frame as "IMAGE ADDRESS": return addresses (all but
	# the leaf) looked up at address - 1, as prof-report does. A tick in
	# the kernel ends in a [kernel] frame, above the leaf.
	awk '{ line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";"); leaf = f[n] == "[kernel]" ? n - 1 : n;
	       for (k = 2; k <= n; k++) { i = index(f[k], "+0x"); if (!i) continue;
	           print substr(f[k], 1, i - 1), substr(f[k], i + 1), (k == leaf ? 0 : 1) } }' \
		"$TMP/$name.addrs" | sort -u > "$TMP/$name.frames"
	: > "$TMP/$name.names"
	local img
	for img in $(awk '{ print $1 }' "$TMP/$name.frames" | sort -u); do
		awk -v i="$img" '$1 == i' "$TMP/$name.frames" > "$TMP/$name.img"
		if [ ! -f "$ARM64/testdata/$img" ]; then
			# No file: prof-report leaves the address, but for the
			# vDSO, whose functions the trace names (the recorder read
			# them from the device's memory), which no oracle here can
			# read: both sides' vDSO frames are compared as "[vdso]", and
			# arm64-vdso-named checks the names apart.
			awk '{ print $1 "+" $2 "\t" $3 "\t" ($1 == "[vdso]" ? $1 : $1 "+" $2) }' \
				"$TMP/$name.img" >> "$TMP/$name.names"
			continue
		fi
		while read -r _ a ret; do printf '0x%x\n' $((a - ret)); done < "$TMP/$name.img" > "$TMP/$name.at"
		# Names as prof-report takes them: the function and its inline
		# chain from DWARF (llvm-symbolizer's short names), else the
		# symbol table's (its linkage names), else the address.
		llvm-symbolizer --obj="$ARM64/testdata/$img" --inlining --functions=short < "$TMP/$name.at" |
			chain > "$TMP/$name.short"
		llvm-symbolizer --obj="$ARM64/testdata/$img" --no-inlines < "$TMP/$name.at" |
			chain > "$TMP/$name.linkage"
		# The PLT has no symbol of its own: llvm-symbolizer stretches the
		# size-less _init before it over it, prof-report gives addresses.
		plt=$(readelf -SW "$ARM64/testdata/$img" | sed 's/^ *\[ *[0-9]*\] *//' |
			awk '$1 == ".plt" { print "0x" $3, "0x" $5 }')
		paste "$TMP/$name.img" "$TMP/$name.short" "$TMP/$name.linkage" |
			while IFS=$'\t' read -r key short linkage; do
				set -- $key
				if [ -n "$plt" ] && (( $2 >= ${plt% *} && $2 < ${plt% *} + ${plt#* } )); then
					short= linkage=
				fi
				printf '%s+%s\t%s\t%s\n' "$1" "$2" "$3" "${short:-${linkage:-$1+$2}}"
			done >> "$TMP/$name.names"
	done
	# The --addresses stacks in names, merged as folded merges them.
	awk 'FILENAME == ARGV[1] { split($0, p, "\t"); name[p[1] "\t" p[2]] = p[3]; next }
	     { n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";"); s = f[1];
	       leaf = f[k] == "[kernel]" ? k - 1 : k;
	       for (j = 2; j <= k; j++) s = s ";" (j > leaf ? f[j] : name[f[j] "\t" (j == leaf ? 0 : 1)]);
	       count[s] += n }
	     END { for (s in count) print s " " count[s] }' "$TMP/$name.names" "$TMP/$name.addrs" \
		| LC_ALL=C sort > "$TMP/$name.want"
	# A vDSO function (arm64's are __kernel_*) or address is "[vdso]",
	# and stacks that then read alike are merged.
	sed -E 's/;(__kernel_[A-Za-z0-9_]+|\[vdso\]\+0x[0-9a-f]+)(;| )/;[vdso]\2/g' "$TMP/$name.folded" |
		awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); count[line] += n }
		     END { for (s in count) print s " " count[s] }' | LC_ALL=C sort > "$TMP/$name.got"
	if [ -s "$TMP/$name.want" ] && cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
		ok "arm64-names-$name ($(wc -l < "$TMP/$name.frames") frames, as llvm-symbolizer names them)"
	else
		fail "arm64-names-$name" "$(diff "$TMP/$name.want" "$TMP/$name.got" | head -4 | tr '\n' ' ')"
	fi
}

# info NAME FIXTURE: the trace is arm64's, and FIXTURE's image has the
# build-id readelf reads, served by its DWARF from --symbols.
info() {
	local name=$1 fix=$2 id
	id=$(readelf -n "$ARM64/testdata/$fix" | awk '/Build ID/ { print $3 }')
	"$REPORT" info --symbols "$ARM64/testdata" "$dev/$name.trace" > "$TMP/$name.info"
	if grep -qx 'arch: *arm64' "$TMP/$name.info" &&
		awk -v id="$id" -v f="$ARM64/testdata/$fix" '
		     /^  image / { img = $3; ok = 0 } img == "/mnt/'"$fix"'" && $1 == "ident:" && $3 == id { ok = 1 }
		     img == "/mnt/'"$fix"'" && ok && $1 == "range:" && /arm64\)$/ { ok = 2 }
		     img == "/mnt/'"$fix"'" && ok == 2 && $1 == "symbols:" && $2 == f && $3 == "(DWARF," { found = 1 }
		     END { exit !found }' "$TMP/$name.info"; then
		ok "arm64-info-$name (build-id $id)"
	else
		fail "arm64-info-$name" "want arch arm64 and /mnt/$fix with build-id $id from its DWARF: $(grep -A4 "/mnt/$fix\$" "$TMP/$name.info" | tr '\n' ' ')"
	fi
}

# sampler_of NAME: what took NAME's samples, as info names it (perf or
# tick).
sampler_of() {
	"$REPORT" info "$dev/$1.trace" | awk '$1 == "sampler:" { print $2 }'
}

# callers CASE WITH PAT FIXTURE...: in each FIXTURE's trace of this mode,
# the samples matching WITH that match PAT, then info and the names.
callers() {
	local case=$1 with=$2 pat=$3 f name
	shift 3
	for f in "$@"; do
		name=$mode-$f
		recorded "$name" "arm64-$case-$name" || continue
		share_ok "arm64-$case-$name" "$(sort -t' ' -k2 -nr "$TMP/$name.folded" | head -2)" \
			$(among "$TMP/$name.folded" "$with" "$pat")
		info "$name" "$f"
		oracle "$name"
	done
}

for mode in $MODES; do
	# The recorder is root in the machine: cpu and wall mode sample with
	# perf_event, and only --sampler ptrace with the tick sampler. A wall
	# mode fallen back to ptrace (announced on a device) fails here.
	want=$([ $mode = ptrace ] && echo tick || echo perf)
	got=$(for t in "$dev/$mode"-*.trace; do t=${t##*/}; sampler_of "${t%.trace}"; done |
		sort | uniq -c | awk '{ printf "%s%s in %d", (NR > 1 ? ", " : ""), $2, $1 }')
	[ "$got" = "$want in $(ls "$dev/$mode"-*.trace | wc -l)" ] && ok "arm64-sampler-$mode ($got traces)" \
		|| fail "arm64-sampler-$mode" "want $want in every trace, got: $got"
	callers frameless-leaf-caller ';frameless_leaf(\.[a-z0-9.]+)?$' ';run;frameless_caller;frameless_leaf' \
		frameless frameless-pac
	callers qsort-caller ';qsort_compare$' ';main;run;sort_keys;[^;]*qsort' qsort_cmp qsort_cmp-pac qsort_cmp-nofp
	name=$mode-split
	if recorded "$name" "arm64-split-$name"; then
		# path_a's share of the N samples in path_a or path_b, P, and
		# the bound B on P - 75: four standard deviations of the share
		# of N independent samples, 400 sqrt(0.75 * 0.25 / N) points,
		# which a sound profile exceeds about once in 15,000 runs. It
		# narrows as samples grow (12.2 points at 200, 7.7 at 500, 5.5
		# at 1000), where a fixed 75 +- 8 is too tight for a run of 200
		# samples and too loose for one of 1000; split runs 6 s for
		# several hundred, and fewer than 200 are a failure. The
		# samples of neither path are not the 3:1 work: most are the
		# program's start before main, whose wall time in the machine
		# is 2 to 3% of wall mode's samples (72.4% of all 4353 were in
		# path_a, 74.9% of those in either path), which failed a run
		# that counted them (72.3% of 4080, 75 +- 2.7).
		set -- $(awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
			        if (line ~ /;path_a;/) pa += n; else if (line ~ /;path_b;/) pb += n }
			END { t = pa + pb; p = t ? pa * 100 / t : 0; b = t ? 400 * sqrt(0.75 * 0.25 / t) : 0
			      printf "%.1f %.1f %d %d\n", p, b, t, (t >= 200 && p >= 75 - b && p <= 75 + b) }' "$TMP/$name.folded")
		[ "$4" = 1 ] && ok "arm64-split-$name (path_a $1% of $3 samples in either path, 75 +- $2)" \
			|| fail "arm64-split-$name" "path_a $1% of $3 samples in either path (want >= 200 and 75 +- $2)"
		oracle "$name"
	fi
	name=$mode-deep
	if recorded "$name" "arm64-deep-recursion-truncated-$name"; then
		trunc=$("$REPORT" info "$dev/$name.trace" | awk '/^truncated stacks:/ { print $3 }')
		# Of the samples in the recursion, those cut (their outermost
		# frame is deep_down, not _start) at 300 addresses (and the
		# process name) or, where perf_event took them (cpu mode, and
		# wall mode where the kernel allows), where the kernel's
		# callchain past the stack copy ends
		# (kernel.perf_event_max_stack): "CUT DEEP LONGEST", not
		# counting the [kernel] leaf of a tick in the kernel. A sample
		# in the recursion's first levels, on its way down or up, is
		# whole and not cut, however many frames it has.
		set -- $(awk -v lo=$([ "$(sampler_of "$name")" = perf ] && echo 100 || echo 301) '{ n = $NF; line = $0;
			sub(/ [0-9]+$/, "", line); k = split(line, a, ";"); k -= a[k] == "[kernel]"; if (k > m) m = k
			if (line ~ /;deep_down;/) { deep += n; if (a[2] == "deep_down" && k >= lo && k <= 301) cut += n } }
			END { print cut + 0, deep + 0, m + 0 }' "$TMP/$name.folded")
		if [ "$2" -ge 20 ] && [ $(($1 * 100)) -ge $(($2 * 90)) ] && [ "${trunc:-0}" -ge "$1" ] && [ "$3" -le 301 ]; then
			ok "arm64-deep-recursion-truncated-$name ($1 of the recursion's $2 samples cut, $trunc truncated, $3 frames at most)"
		else
			fail "arm64-deep-recursion-truncated-$name" "$1 of the recursion's $2 samples cut, ${trunc:-?} truncated, $3 frames at most"
		fi
		oracle "$name"
	fi
	# A handler's samples go through the kernel's signal frame, at the
	# vDSO's trampoline (no CFI: its rt_sigframe is read), to the
	# interrupted code and on to _start, on the thread's stack and off an
	# alternate one.
	for name in $mode-sig $mode-sig-alt; do
		recorded "$name" "arm64-signal-handler-$name" || continue
		set -- $(among "$TMP/$name.folded" ';hx_in_handler' '^[^;]*;_start;.*;main;.*;\[signal handler called\];hx_in_handler')
		if [ "$1" -ge 99 ] && [ "$2" -ge 100 ]; then
			ok "arm64-signal-handler-$name ($1% of $2 samples in the handler whole, through [signal handler called])"
		else
			fail "arm64-signal-handler-$name" "$1% of $2 (want >= 99% of >= 100): $(grep hx_in_handler "$TMP/$name.folded" | grep -v ';_start;' | sort -t' ' -k2 -nr | head -2)"
		fi
	done
	name=$mode-threads
	if recorded "$name" "arm64-threads-$name"; then
		oracle "$name"
		"$REPORT" threads "$dev/$name.trace" > "$TMP/$name.threads"
		if [ $mode != cpu ]; then
			"$REPORT" folded --thread '^blocked$' --symbols "$ARM64/testdata" "$dev/$name.trace" > "$TMP/$name.blocked"
			share_ok "arm64-blocked-in-read-path-$name" "$(head -3 "$TMP/$name.blocked")" \
				$(among "$TMP/$name.blocked" '' ';start_thread;blocked;blocked_wait;[^;]*read$')
			# Waiting: its samples of --state idle among all of them,
			# in wall mode's perf_event samples, which are the kernel's
			# own account of the thread. The ptrace sampler has no
			# such check: each PTRACE_INTERRUPT takes the thread out of
			# read(2), which it restarts, runnable until a CPU takes it,
			# so the state its next tick reads is the machine's
			# scheduling delay after the sampler's own wake-up, not the
			# thread's (85 to 100% waiting in the machine, 78 to 89%
			# natively at a load of 12): no bound holds it on a busy host.
			if [ $mode = wall ]; then
				all=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/$name.blocked")
				idle=$("$REPORT" folded --thread '^blocked$' --state idle "$dev/$name.trace" |
					awk '{ n += $NF } END { print n + 0 }')
				share_ok "arm64-blocked-waiting-$name" "$(grep -w blocked "$TMP/$name.threads")" \
					$((all ? idle * 100 / all : -1)) "$all"
			fi
		else
			grep -qw compute-2 "$TMP/$name.threads" && grep -qw sleeper "$TMP/$name.threads" \
				&& ok "arm64-threads-followed-$name" || fail "arm64-threads-followed-$name" "$(cat "$TMP/$name.threads")"
		fi
	fi
done
# The vDSO's functions, which the recorder keeps in the trace: every
# fixture reads the clock through __kernel_clock_gettime.
named=$(cat "$TMP"/*.folded 2> /dev/null | grep -c ';__kernel_clock_gettime[; ]')
[ "$named" -gt 0 ] && ok "arm64-vdso-named ($named stacks through __kernel_clock_gettime)" \
	|| fail "arm64-vdso-named" "no stack names __kernel_clock_gettime: $(grep -ho ';\[vdso\][^;]*' "$TMP"/*.folded | sort | uniq -c | head -3 | tr '\n' ' ')"

# The annotate fixture's instruction listing, by prof-report annotate
# --asm from the trace and the binary --symbols finds by its build-id,
# against llvm-objdump's of the same binary.
name=cpu-annotate
if recorded "$name" "arm64-annotate-asm-objdump"; then
	if ! command -v llvm-objdump > /dev/null || ! command -v python3 > /dev/null; then
		skip "arm64-annotate-asm-objdump" "llvm-objdump (Debian package llvm) or python3 is not installed"
	else
		"$REPORT" annotate --asm --json --function '^loops$' --symbols "$ARM64/testdata" "$dev/$name.trace" \
			> "$TMP/$name.json" 2> "$TMP/$name.aerr"
		json_insns "$TMP/$name.json" loops 2>> "$TMP/$name.aerr" | asm_norm arm64 > "$TMP/$name.asm-got"
		objdump_listing "$ARM64/testdata/annotate" loops | asm_norm arm64 > "$TMP/$name.asm-want"
		range=$(symbol_range "$ARM64/testdata/annotate" loops)
		loops=$(awk '/;loops(;| )/ { n += $NF } END { print n + 0 }' "$TMP/$name.folded")
		if [ ! -s "$TMP/$name.asm-got" ]; then
			fail "arm64-annotate-asm-objdump" "no instructions of loops ($loops samples in it): $(head -3 "$TMP/$name.aerr" | tr '\n' ' ')"
		elif [ -z "$range" ] || [ ! -s "$TMP/$name.asm-want" ]; then
			fail "arm64-annotate-asm-objdump" "no loops in $ARM64/testdata/annotate for llvm-objdump and readelf: range '$range'"
		elif diffs=$(asm_compare "$TMP/$name.asm-want" "$TMP/$name.asm-got" $range); then
			ok "arm64-annotate-asm-objdump ($(wc -l < "$TMP/$name.asm-got") instructions of loops, 0x${range% *}-0x${range#* }, as llvm-objdump's; $loops samples in it)"
		else
			fail "arm64-annotate-asm-objdump" "$(echo "$diffs" | head -6 | tr '\n' ' ')"
		fi
	fi
	oracle "$name"
fi
exit 0
