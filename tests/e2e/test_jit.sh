#!/usr/bin/env bash
# End-to-end: code compiled at run time, and the vDSO, named in the
# report from what the trace alone keeps (its code records).
#
# testdata/jitcode.c compiles two loops into anonymous memory and calls
# them 3:1, announcing them in a perf map or in a jitdump; halfway it
# moves one and compiles the other where the first was. Its perf map
# holds malformed lines, a range over the whole region, a name of 100 KB,
# a line written in two halves 300 ms apart, and is truncated and written
# again; its jitdump has debug entries, an unwinding record, a record of
# an unknown id and a move. Recorded, the files deleted, the report must
# name both loops (jitdump's with V8's kind and tier trimmed and the file
# and line of its debug entry) with their 3:1 split, and nothing by a
# half line, the whole-region range or the old layout.
#
# node (20) runs testdata/js/split.js for a second, two top-level
# functions called 3:1, with --perf-basic-prof (a perf map) and with
# --perf-prof (a jitdump, in the working directory), each under `perf
# record -g`, which records prof-record and its node in the same run:
# both functions named after the map and dump are deleted, and hot's
# share of the two within 5 points of perf report's (--comm node; perf
# shows V8's names as written, every tier its own line, summed here).
# The sanitized suite leaves node out: jitcode has fed it the same
# records. The jitdump needs `perf inject --jit` for
# perf to name anything; --interpreted-frames-native-stack gives V8's
# interpreted frames a copy of the interpreter's entry of their own, so
# that they are named too.
#
# testdata/vdso.c calls clock_gettime in a loop: its vDSO function named
# as perf names it, with a self share (of the process's samples) within
# 5 points of perf's, under perf record in the same run.
#
# Unit tests (tests/unit/test_jit.c) hold the parsers to the hostile
# cases one by one: malformed lines, overlapping entries, names of 100 KB,
# growth while read, a jitdump cut at every byte, a bad magic, the other
# byte order, lying sizes.
. "$(dirname "$0")/lib.sh"

JITCODE=$FIX/jitcode
VDSO=$FIX/vdso
SPLIT_JS=$TOP/testdata/js/split.js

# The mode: cpu where perf_event is allowed, else the tick sampler's wall
# mode, else nothing can be recorded here.
mode=cpu
out=$("$RECORD" -q --mode cpu -f -o "$TMP/probe.trace" -- true 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q 'perf_event'; then
	if ! why=$(ptrace_ok); then
		skip "jit" "perf_event_open not permitted ($(echo "$out" | head -1)), and $why"
		exit 0
	fi
	mode=wall
fi
have_perf=1
if ! command -v perf > /dev/null 2>&1; then
	have_perf=0 no_perf="perf is not installed (Debian linux-perf)"
elif ! out=$(perf_record -q -o "$TMP/perf-probe.data" -- true 2>&1); then
	have_perf=0 no_perf="perf record cannot run here: $(echo "$out" | head -1)"
fi

within() { [ "$1" -ge $(($2 - $3)) ] && [ "$1" -le $(($2 + $3)) ]; }
heaviest() { sort -t' ' -k2 -nr "$1" | head -4 | cut -c1-200 | tr '\n' '|'; }
# split FOLDED HOT COLD: percent (rounded) of the samples with HOT or COLD
# anywhere in their stack that have HOT (the two never share a stack).
split() {
	awk -v h="$2" -v c="$3" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";"); hot = 0; cold = 0
		for (i = 2; i <= k; i++) { if (f[i] == h) hot = 1; if (f[i] == c) cold = 1 }
		if (hot) x += n; else if (cold) y += n }
	     END { if (x + y == 0) print -1; else printf "%d\n", x * 100 / (x + y) + 0.5 }' "$1"
}
# leaves FOLDED NAME: how many samples have NAME as their leaf.
leaves() { awk -v name="$2" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
	if (f[k] == name) x += n } END { print x + 0 }' "$1"; }
# rm_maps TRACE: deletes the perf maps of the trace's processes.
rm_maps() {
	"$REPORT" info "$1" 2> /dev/null | awk '$1 == "pid" { sub(/:$/, "", $2); print $2 }' |
		while read -r pid; do rm -f "/tmp/perf-$pid.map"; done
}

# --- jitcode, perf map ---
cd "$TMP" || exit 1
if ! "$RECORD" -q -v -f --mode $mode -o "$TMP/map.trace" -- "$JITCODE" perfmap 1 > "$TMP/map.out" 2> "$TMP/map.err"; then
	fail "jit-perfmap-record" "$(tail -3 "$TMP/map.err")"
else
	rm_maps "$TMP/map.trace"
	"$REPORT" folded "$TMP/map.trace" > "$TMP/map.folded" 2>&1
	s=$(split "$TMP/map.folded" jit_hot jit_cold)
	within "$s" 75 5 && ok "jit-perfmap-names-and-split (jit_hot ${s}% of the two, the map deleted)" \
		|| fail "jit-perfmap-names-and-split" "jit_hot ${s}% of the two, want 75: $(heaviest "$TMP/map.folded")"
	# A half line is no line: the runtime's next write completes it.
	n=$(grep -c ';jit_h[ ;]' "$TMP/map.folded")
	[ "$n" = 0 ] && ok "jit-perfmap-half-line-not-read" \
		|| fail "jit-perfmap-half-line-not-read" "$n stacks name 'jit_h'"
	# The whole-region range is overridden by later ones, and the old
	# layout's by the new from its time on (truncated and rewritten).
	n=$(leaves "$TMP/map.folded" jit_region)
	[ "$n" -le 2 ] && ok "jit-perfmap-overlap-and-rewrite ($n leaves in the whole-region range)" \
		|| fail "jit-perfmap-overlap-and-rewrite" "$n leaves in the whole-region range: $(heaviest "$TMP/map.folded")"
	line=$(grep 'code compiled at run time' "$TMP/map.err")
	echo "$line" | grep -q '4 malformed lines' && echo "$line" | grep -q 'names cut: 1' \
		&& ok "jit-perfmap-malformed-and-long-lines-counted" \
		|| fail "jit-perfmap-malformed-and-long-lines-counted" "prof-record -v says: $line"
fi

# Perf maps that are not the process's to give: one left behind by
# another process of the same pid (written before this one started), a
# symbolic link (to a file of perf map lines), a FIFO (never waited on).
# Each is read from nothing; a fresh one is read.
printf '1000 10 planted\n' > "$TMP/planted.map"
hostile=""
for kind in fresh stale symlink fifo; do
	case $kind in
	fresh) make='printf "1000 10 fresh\n" > /tmp/perf-$$.map' ;;
	# written and dated an hour back, then moved into place, so the
	# recorder never sees it new
	stale) make='printf "1000 10 stale\n" > /tmp/perf-$$.tmp; touch -d "1 hour ago" /tmp/perf-$$.tmp
		mv /tmp/perf-$$.tmp /tmp/perf-$$.map' ;;
	symlink) make="ln -s $TMP/planted.map /tmp/perf-\$\$.map" ;;
	fifo) make='mkfifo /tmp/perf-$$.map' ;;
	esac
	timeout 20 "$RECORD" -q -v -f --mode $mode -o "$TMP/$kind.trace" -- sh -c "$make; exec sleep 0.3" \
		> /dev/null 2> "$TMP/$kind.err"
	rc=$?
	rm_maps "$TMP/$kind.trace"
	n=$(sed -n 's/.*code compiled at run time: \([0-9]*\) ranges from.*/\1/p' "$TMP/$kind.err")
	want=0
	[ $kind = fresh ] && want=1
	[ $rc = 0 ] && [ "${n:-0}" = $want ] || hostile="$hostile $kind (exit $rc, ${n:-0} ranges)"
done
[ -z "$hostile" ] && ok "jit-perfmap-not-the-process-s-refused (left behind, a link, a FIFO)" \
	|| fail "jit-perfmap-not-the-process-s-refused" "$hostile"

# --- jitcode, jitdump ---
if ! "$RECORD" -q -f --mode $mode -o "$TMP/dump.trace" -- "$JITCODE" jitdump 1 > "$TMP/dump.out" 2> "$TMP/dump.err"; then
	fail "jit-jitdump-record" "$(tail -3 "$TMP/dump.err")"
else
	rm -f "$TMP"/jit-*.dump
	"$REPORT" folded "$TMP/dump.trace" > "$TMP/dump.folded" 2>&1
	s=$(split "$TMP/dump.folded" jitHot jitCold)
	within "$s" 75 5 && ok "jit-jitdump-names-and-split (jitHot ${s}% of the two, the dump deleted)" \
		|| fail "jit-jitdump-names-and-split" "jitHot ${s}% of the two, want 75: $(heaviest "$TMP/dump.folded")"
	"$REPORT" folded --lines "$TMP/dump.trace" > "$TMP/dump-lines.folded" 2>&1
	grep -q ';jitHot (jitcode\.js:10) [0-9]*$' "$TMP/dump-lines.folded" &&
		grep -q ';jitCold (jitcode\.js:20) [0-9]*$' "$TMP/dump-lines.folded" \
		&& ok "jit-jitdump-debug-lines" \
		|| fail "jit-jitdump-debug-lines" "$(heaviest "$TMP/dump-lines.folded")"
fi

# --colors lang: JavaScript's hue (42 to 58) for V8's names, JIT's (265
# to 295) for other code compiled at run time, both in the legend.
if [ -s "$TMP/dump.folded" ] && [ -s "$TMP/map.folded" ]; then
	"$REPORT" svg --colors lang "$TMP/dump.trace" -o "$TMP/dump.svg" 2> /dev/null
	"$REPORT" svg --colors lang "$TMP/map.trace" -o "$TMP/map.svg" 2> /dev/null
	h1=$(hue_of jitHot "$TMP/dump.svg")
	h2=$(hue_of jit_hot "$TMP/map.svg")
	[ "$h1" -ge 42 ] && [ "$h1" -le 58 ] && [ "$h2" -ge 265 ] && [ "$h2" -le 295 ] &&
		grep -q '<g id="legend">.*>JavaScript<.*>JIT<' "$TMP/dump.svg" \
		&& ok "jit-colors-lang" \
		|| fail "jit-colors-lang" "jitHot's hue $h1 (want 42 to 58), jit_hot's $h2 (want 265 to 295), or no legend"
	# The trace is all a report needs: a pack has nothing of these
	# frames, and the names stay.
	cp "$TMP/map.trace" "$TMP/packed.trace"
	if "$REPORT" pack --embed "$TMP/packed.trace" > /dev/null 2>&1 &&
	   "$REPORT" folded "$TMP/packed.trace" 2> /dev/null | cmp -s - "$TMP/map.folded"; then
		ok "jit-names-kept-by-the-trace-through-pack"
	else
		fail "jit-names-kept-by-the-trace-through-pack" "the packed trace's stacks differ"
	fi
fi

# --- node ---
# node_case NAME FLAGS...: records split.js under prof-record (under
# perf record -g where perf runs), deletes the map or dump, and checks
# both functions are named and their split against perf's.
node_case() {
	local name=$1 dir=$TMP/$1 s p pf
	shift
	mkdir -p "$dir" && cd "$dir" || return
	local rec=("$RECORD" -q -f --mode $mode -F 997 -o "$dir/node.trace" -- node "$@" "$SPLIT_JS" 1)
	if [ $have_perf = 1 ]; then
		perf_record -q -k mono -g -F 997 -o "$dir/perf.data" -- "${rec[@]}" > "$dir/node.out" 2> "$dir/node.err"
	else
		"${rec[@]}" > "$dir/node.out" 2> "$dir/node.err"
	fi || { fail "$name-record" "$(tail -3 "$dir/node.err")"; cd "$TMP"; return; }
	if [ $have_perf = 1 ]; then
		pf=$dir/perf.data
		if [ -n "$(ls "$dir"/jit-*.dump 2> /dev/null)" ]; then
			perf inject --jit -i "$dir/perf.data" -o "$dir/perf-jit.data" > /dev/null 2>&1
			pf=$dir/perf-jit.data
		fi
		perf report -i "$pf" --comm node --stdio --no-children --sort sym -g none 2> /dev/null > "$dir/perf.txt"
	fi
	# What the report reads is the trace alone.
	rm -f "$dir"/jit-*.dump "$dir"/jitted-*.so
	rm_maps "$dir/node.trace"
	"$REPORT" folded "$dir/node.trace" > "$dir/node.folded" 2> "$dir/report.err"
	s=$(split "$dir/node.folded" hot cold)
	if [ "$s" -lt 0 ]; then
		fail "$name-names" "neither hot nor cold is named: $(heaviest "$dir/node.folded")"
		cd "$TMP"
		return
	fi
	ok "$name-names (hot ${s}% of the two, $(awk '{ print $2, $3, $4, $5, $6 }' "$dir/node.out"))"
	if [ $have_perf = 0 ]; then
		skip "$name-split-against-perf" "$no_perf"
	else
		p=$(awk '$NF ~ /:[0-9]+:[0-9]+$/ && $3 ~ /^JS:.hot$/ { h += $1 }
			 $NF ~ /:[0-9]+:[0-9]+$/ && $3 ~ /^JS:.cold$/ { c += $1 }
			 END { if (h + c == 0) print -1; else printf "%d\n", h * 100 / (h + c) + 0.5 }' "$dir/perf.txt")
		if [ "$p" -lt 0 ]; then
			fail "$name-split-against-perf" "perf report names neither: $(grep -v '^#' "$dir/perf.txt" | head -3 | tr '\n' '|')"
		else
			within "$s" "$p" 5 && ok "$name-split-against-perf (prof ${s}%, perf ${p}%)" \
				|| fail "$name-split-against-perf" "prof ${s}%, perf report ${p}%"
		fi
	fi
	cd "$TMP"
}
if ! command -v node > /dev/null 2>&1; then
	skip "jit-node" "node is not installed (Debian nodejs)"
elif [[ $BUILD == *-san ]]; then
	# The sanitized suite has read the same records from jitcode.
	skip "jit-node" "a sanitized build; the plain suite runs node against perf"
else
	node_case jit-node-perf-basic-prof --perf-basic-prof
	node_case jit-node-perf-prof --perf-prof --interpreted-frames-native-stack
fi

# --- the vDSO ---
# Under perf record where perf runs, in the same run.
case $(uname -m) in
aarch64) fn=__kernel_clock_gettime ;;
*) fn=__vdso_clock_gettime ;;
esac
# 1.5 s: two tools' independent samples of a 12% share differ by 1.2
# points (one sd) then; at 0.5 s by 2, and 5 came once in ~40 runs.
vrec=("$RECORD" -q -f --mode $mode -F 997 -o "$TMP/vdso.trace" -- "$VDSO" 1.5)
if [ $have_perf = 1 ]; then
	perf_record -q -g -F 997 -o "$TMP/vdso.data" -- "${vrec[@]}" > /dev/null 2> "$TMP/vdso.err"
else
	"${vrec[@]}" > /dev/null 2> "$TMP/vdso.err"
fi
if [ $? -ne 0 ]; then
	fail "jit-vdso-record" "$(tail -3 "$TMP/vdso.err")"
else
	"$REPORT" folded "$TMP/vdso.trace" > "$TMP/vdso.folded" 2>&1
	grep -q ";$fn[; ]" "$TMP/vdso.folded" && ok "jit-vdso-named ($fn)" \
		|| fail "jit-vdso-named" "no $fn: $(heaviest "$TMP/vdso.folded")"
	# info says the trace names the vDSO, and pack --check does not
	# count it missing: no debug file is needed for it.
	"$REPORT" info "$TMP/vdso.trace" > "$TMP/vdso.info" 2>&1
	grep -A8 'image [0-9]*: \[vdso\]' "$TMP/vdso.info" | grep -q "symbols:  the trace's own: [1-9][0-9]* function" \
		&& ok "jit-vdso-info-names-its-source" \
		|| fail "jit-vdso-info-names-its-source" "$(grep -A8 '\[vdso\]' "$TMP/vdso.info" | grep symbols)"
	out=$("$REPORT" pack --check -o "$TMP/vdso.syms" "$TMP/vdso.trace" 2>&1) \
		&& ok "jit-vdso-pack-check-passes" || fail "jit-vdso-pack-check-passes" "$out"
	if [ $have_perf = 0 ]; then
		skip "jit-vdso-against-perf" "$no_perf"
	elif [[ $BUILD == *-san ]]; then
		skip "jit-vdso-against-perf" "the sanitized suite: the plain suite compares with perf"
	else
		p=$(perf report -i "$TMP/vdso.data" --comm vdso --stdio --no-children --sort sym -g none 2> /dev/null |
			awk -v fn="$fn" '$NF == fn { sub(/%/, "", $1); x = $1 } /^ +[0-9.]+%/ { sub(/%/, "", $1); t += $1 }
				END { if (!x || !t) print -1; else printf "%d\n", x * 100 / t + 0.5 }')
		q=$(awk -v fn="$fn" '{ n = $NF; t += n; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
			if (f[k] == fn) x += n } END { if (t == 0) print -1; else printf "%d\n", x * 100 / t + 0.5 }' "$TMP/vdso.folded")
		[ "$p" -ge 0 ] && within "$q" "$p" 5 && ok "jit-vdso-against-perf ($fn's self share: prof ${q}%, perf ${p}%)" \
			|| fail "jit-vdso-against-perf" "$fn's self share: prof ${q}%, perf ${p}%"
	fi
fi
exit 0
