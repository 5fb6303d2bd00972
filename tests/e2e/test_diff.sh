#!/usr/bin/env bash
# End-to-end: prof-report diff on two synthetic traces of different sizes
# whose shares are known exactly; on two real runs of the shift fixture,
# which moves time from path_a (80% -> 20%) to path_b (20% -> 80%); the
# rates at which it flags recorded runs of the split fixture of about
# 1000 samples: identical runs (75/25) and runs shifted to 67/33, one and
# three a side; --check with every output form; the differential graph
# of a recorded pair in Chromium; and what each --normalize compares, on
# recorded runs of different lengths.
. "$(dirname "$0")/lib.sh"

PLAYWRIGHT_DIR=${PLAYWRIGHT_DIR:-$TOP/build/node}
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
export PLAYWRIGHT_DIR CHROMIUM
# browser_checks PREFIX ARG...: tests/browser/flamegraph.mjs on the graphs
# ARG... name, its lines turned into results; without node, playwright-core
# or Chromium, one skip named PREFIX-browser says which is missing.
browser_checks() {
	local prefix=$1 rc kind rest
	shift
	# A sanitized build has written the graphs, which is what the
	# sanitizers check; the plain suite opens the same graphs.
	case $BUILD in *-san)
		skip "$prefix-browser" "a sanitized build; the plain suite opens the same graphs in the browser"
		return ;;
	esac
	if ! command -v node > /dev/null; then
		skip "$prefix-browser" "node is not installed"
		return
	fi
	timeout 120 node "$TOP/tests/browser/flamegraph.mjs" "$@" > "$TMP/browser.out" 2> "$TMP/browser.err"
	rc=$?
	while read -r kind rest; do
		case $kind in
		pass) ok "${rest%%: *}" ;;
		fail) fail "${rest%%: *}" "${rest#*: }" ;;
		skip) skip "$prefix-${rest%%: *}" "${rest#*: }" ;;
		esac
	done < "$TMP/browser.out"
	[ $rc = 0 ] || fail "$prefix-browser" "flamegraph.mjs exited $rc: $(tail -3 "$TMP/browser.err")"
}

SYNTH=$BUILD/tests/tools/synth_trace

# --- exact: 300/100 samples against 200/600, so 75/25 becomes 25/75 ----
if [ ! -x "$SYNTH" ]; then
	skip "diff-exact" "no synth_trace in $BUILD/tests/tools"
else
	synth_paths "$TMP/base.trace" 300 100
	synth_paths "$TMP/new.trace" 200 600
	"$REPORT" diff --folded "$TMP/base.trace" "$TMP/new.trace" > "$TMP/d.folded"
	printf '%s\n' 'app;app+0x10;app+0x50;app+0x100 600 200' 'app;app+0x10;app+0x50;app+0x200 200 600' \
		| cmp -s - "$TMP/d.folded" && ok "diff-folded-normalised" || fail "diff-folded-normalised" "$(cat "$TMP/d.folded")"
	"$REPORT" diff "$TMP/base.trace" "$TMP/new.trace" > "$TMP/d.table"
	# 75% of 400 against 25% of 800: +50 points, far beyond noise.
	grep -A3 '^grew:' "$TMP/d.table" | grep -Eq '^ +\+50\.00pp \[\+4[0-9]\.[0-9]{2}pp, \+5[0-9]\.[0-9]{2}pp\] +25\.00% +75\.00% +<0\.0001 +yes +total +app\+0x200$' \
		&& grep -A3 '^shrank:' "$TMP/d.table" | grep -Eq '^ +-50\.00pp \[-5[0-9]\.[0-9]{2}pp, -4[0-9]\.[0-9]{2}pp\] +75\.00% +25\.00% +<0\.0001 +yes +self +app\+0x100$' \
		&& ok "diff-table-exact" || fail "diff-table-exact" "$(cat "$TMP/d.table")"
	# the same traces compared with themselves: nothing, in one line
	"$REPORT" diff "$TMP/base.trace" "$TMP/base.trace" > "$TMP/same.table"
	[ "$(wc -l < "$TMP/same.table")" = 1 ] && grep -Eq '^no significant change \(q < 0\.05\) in the self or total share of 4 functions; the smallest change detectable at this sample size is [0-9]+\.[0-9]{2}pp \(80% power for a lone change among [0-9]+ tests\)$' "$TMP/same.table" \
		&& ok "diff-nothing-one-line" || fail "diff-nothing-one-line" "$(cat "$TMP/same.table")"
	"$REPORT" diff --all "$TMP/base.trace" "$TMP/base.trace" | grep -Eq '^ +\+0\.00pp .* no +total +app\+0x100$' \
		&& ok "diff-all-marks-not-significant" || fail "diff-all-marks-not-significant" "$("$REPORT" diff --all "$TMP/base.trace" "$TMP/base.trace")"
	# --check: 3 and one line naming the biggest changes, 0 for none;
	# --threshold 60 ignores the 50-point changes, and says so
	out=$("$REPORT" diff --check "$TMP/base.trace" "$TMP/new.trace"); rc=$?
	out0=$("$REPORT" diff --check "$TMP/base.trace" "$TMP/base.trace"); rc0=$?
	out60=$("$REPORT" diff --check --threshold 60 "$TMP/base.trace" "$TMP/new.trace"); rc60=$?
	if [ $rc = 3 ] && [ $rc0 = 0 ] && [ $rc60 = 0 ] && echo "$out" | grep -Eq '^4 significant changes \(q < 0\.05\): app\+0x[12]00 total [-+]50\.00pp ' \
		&& echo "$out0" | grep -q '^no significant change (q < 0\.05) ' \
		&& echo "$out60" | grep -Eq '^no significant change of 60\.00pp or more \(q < 0\.05\) .*; 4 significant changes are below --threshold, the largest app\+0x[12]00 total [-+]50\.00pp '; then
		ok "diff-check-exit-status"
	else
		fail "diff-check-exit-status" "exit $rc, $rc0, $rc60: $out / $out0 / $out60"
	fi
	# --normalize none compares counts: 300 against 200 samples of app+0x100
	# (synth_trace's traces have no length: duration is tested on recorded
	# runs below)
	"$REPORT" diff --normalize none "$TMP/base.trace" "$TMP/new.trace" | grep -Eq '^ +-100\.0 \[-1[0-9]{2}\.[0-9], -[0-9]{2}\.[0-9]\] +300\.0 +200\.0 .* total +app\+0x100$' \
		&& ok "diff-normalize-none" || fail "diff-normalize-none" "$("$REPORT" diff --normalize none "$TMP/base.trace" "$TMP/new.trace")"
	"$REPORT" diff a 2> "$TMP/usage.err"; rc=$?
	"$REPORT" diff a b c 2>> "$TMP/usage.err"; rc2=$?
	"$REPORT" diff -- "$TMP/base.trace" "$TMP/new.trace" 2>> "$TMP/usage.err"; rc3=$?
	[ $rc = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] && grep -q "missing operands" "$TMP/usage.err" \
		&& grep -q "give two traces" "$TMP/usage.err" && grep -q "no BASE trace before '--'" "$TMP/usage.err" \
		&& ok "diff-usage-operands" || fail "diff-usage-operands" "exit $rc, $rc2, $rc3: $(cat "$TMP/usage.err")"
	# A stack of only one run is kept, with 0 in the other (100 of 900
	# samples is 44 of 400).
	synth_paths "$TMP/new3.trace" 200 600 100
	"$REPORT" diff --folded "$TMP/base.trace" "$TMP/new3.trace" | grep -qx 'app;app+0x10;app+0x50;app+0x300 0 100' \
		&& "$REPORT" diff --folded "$TMP/new3.trace" "$TMP/base.trace" | grep -qx 'app;app+0x10;app+0x50;app+0x300 44 0' \
		&& ok "diff-one-sided-stacks-kept" || fail "diff-one-sided-stacks-kept" "$("$REPORT" diff --folded "$TMP/base.trace" "$TMP/new3.trace")"
	"$REPORT" diff -o "$TMP/d.svg" "$TMP/base.trace" "$TMP/new3.trace" > /dev/null
	xmllint --noout "$TMP/d.svg" 2> /dev/null && ok "diff-svg-valid-xml" || fail "diff-svg-valid-xml" "$(xmllint --noout "$TMP/d.svg" 2>&1 | head -2)"
	# In Chromium: 60/20/20 against 20/60/20, app+0x300 held and is grey,
	# the others are red and blue, with the interval in the tooltip and a
	# legend (tests/browser/flamegraph.mjs).
	synth_paths "$TMP/gb.trace" 300 100 100
	synth_paths "$TMP/gn.trace" 200 600 200
	"$REPORT" diff -o "$TMP/g.svg" "$TMP/gb.trace" "$TMP/gn.trace" > /dev/null
	xmllint --noout "$TMP/g.svg" 2> /dev/null || fail "diff-svg-browser-valid-xml" "$(xmllint --noout "$TMP/g.svg" 2>&1 | head -2)"
	browser_checks diff "diff=$TMP/g.svg"
fi

if ! why=$(ptrace_ok); then
	skip "diff-recorded" "$why"
	exit 0
fi

# --- two real runs: time moves from path_a to path_b -------------------
"$RECORD" -q -o "$TMP/a.trace" -- "$FIX/shift" 1 8 > /dev/null
"$RECORD" -q -o "$TMP/b.trace" -- "$FIX/shift" 1 2 > /dev/null
# path_b's self share is in fixture_spin, so path_b shows by its total,
# which grows by about 60 points while path_a's shrinks by as much.
"$REPORT" diff --limit 100 "$TMP/a.trace" "$TMP/b.trace" > "$TMP/r.all"
tb=$(awk '$NF == "path_b" && $(NF - 1) == "total" { sub(/pp/, "", $1); print int($1) }' "$TMP/r.all" | head -1)
ta=$(awk '$NF == "path_a" && $(NF - 1) == "total" { sub(/pp/, "", $1); print int($1) }' "$TMP/r.all" | head -1)
if [ -n "$tb" ] && [ -n "$ta" ] && [ "$tb" -ge 50 ] && [ "$tb" -le 70 ] && [ "$ta" -le -50 ] && [ "$ta" -ge -70 ]; then
	ok "diff-real-runs-total-moves (path_a ${ta}pp, path_b +${tb}pp)"
else
	fail "diff-real-runs-total-moves" "path_a '$ta', path_b '$tb': $(cat "$TMP/r.all")"
fi
# In the graph, path_b is red (grew) and path_a blue (shrank), and the
# blue is about as deep as the red.
"$REPORT" diff -o "$TMP/r.svg" "$TMP/a.trace" "$TMP/b.trace" > /dev/null
"$REPORT" diff --negate -o "$TMP/n.svg" "$TMP/a.trace" "$TMP/b.trace" > /dev/null
# SVG NAME: the fill of the widest frame called NAME (a function can have
# narrower frames elsewhere, as under a stack whose outermost frames the
# unwinder missed, sorted first and too small for any change to show)
fill() {
	awk -v n="$2" '
		index($0, "<title>" n " (") && match($0, /data-s="[0-9]+"/) { s = substr($0, RSTART + 8, RLENGTH - 9) + 0; want = 1 }
		want && match($0, /fill="#[0-9a-f]+"/) { if (s > best) { best = s; f = substr($0, RSTART + 6, 7) } want = 0 }
		END { print f }' "$1"
}
fa=$(fill "$TMP/r.svg" path_a) fb=$(fill "$TMP/r.svg" path_b)
na=$(fill "$TMP/n.svg" path_a) nb=$(fill "$TMP/n.svg" path_b)
red() { case $1 in '#ff'*) [ "${1:5:2}" != ff ] ;; *) false ;; esac; }
blue() { case $1 in *ff) [ "${1:1:2}" != ff ] ;; *) false ;; esac; }
if red "$fb" && blue "$fa" && red "$na" && blue "$nb"; then
	ok "diff-colours (path_a $fa, path_b $fb; negated $na, $nb)"
else
	fail "diff-colours" "path_a '$fa', path_b '$fb'; negated '$na', '$nb'"
fi

# --- what each --normalize compares, on runs of different lengths -----
# split for 0.5 s and for 1 s in wall mode at 1000 Hz, which ticks in
# time: compared by the total of run, the fixture's loop, which holds all
# but the start-up (whose wall time follows the machine's load), so about
# the same share and samples per second, and twice the samples. (path_a's
# share would vary more: a thread preempted under load is sampled in the
# function it stopped in, tick after tick.) Each value is checked against
# its definition, from the runs' folded stacks and durations: run's
# samples over all the samples (share), its samples (none), its samples
# over the seconds (duration).
"$RECORD" -q --mode wall -F 1000 -o "$TMP/short.trace" -- "$FIX/split" 0.5 > /dev/null 2>&1
"$RECORD" -q --mode wall -F 1000 -o "$TMP/long.trace" -- "$FIX/split" 1 > /dev/null 2>&1
# defined TRACE: run's samples, all the samples, the seconds
defined() {
	"$REPORT" folded "$1" | awk '{ n = $NF; s += n; line = $0; sub(/ [0-9]+$/, "", line)
		if (line ~ /(^|;)run(;|$)/) a += n } END { printf "%d %d ", a, s }'
	"$REPORT" info "$1" | awk '$1 == "duration:" { print $2 }'
}
read -r as ns ss <<< "$(defined "$TMP/short.trace")"
read -r al nl sl <<< "$(defined "$TMP/long.trace")"
# row HOW: run's total's base, new and SIG, without their units
row() {
	"$REPORT" diff --all --limit 1000 --normalize "$1" "$TMP/short.trace" "$TMP/long.trace" \
		| awk '$NF == "run" && $(NF - 1) == "total" { gsub(/[%\/s]/, "", $4); gsub(/[%\/s]/, "", $5); print $4, $5, $7; exit }'
}
# near A B TOLERANCE: |A - B| <= TOLERANCE
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
if [ -z "$as" ] || [ -z "$al" ] || [ -z "$ss" ] || [ -z "$sl" ] || [ "$as" = 0 ] || [ "$al" = 0 ]; then
	fail "diff-normalize-recorded" "short run: run '$as' of '$ns' samples in '$ss' s; long: '$al' of '$nl' in '$sl' s"
else
	read -r b n sig <<< "$(row share)"
	near "$b" "$(awk -v a="$as" -v n="$ns" 'BEGIN { print 100 * a / n }')" 0.006 \
		&& near "$n" "$(awk -v a="$al" -v n="$nl" 'BEGIN { print 100 * a / n }')" 0.006 && near "$b" "$n" 10 \
		&& ok "diff-normalize-share-recorded (run ${b}% in 0.5 s, ${n}% in 1 s)" \
		|| fail "diff-normalize-share-recorded" "run '$b'% and '$n'%, $as of $ns and $al of $nl samples"
	read -r b n sig <<< "$(row none)"
	[ "$b" = "$as.0" ] && [ "$n" = "$al.0" ] && [ "$sig" = yes ] \
		&& ok "diff-normalize-none-recorded (run $b samples in 0.5 s, $n in 1 s, significant)" \
		|| fail "diff-normalize-none-recorded" "run '$b' and '$n' samples ($sig), $as and $al in the traces"
	read -r b n sig <<< "$(row duration)"
	# the rates within 1% of their definition (a duration has 3 decimals)
	near "$b" "$(awk -v a="$as" -v s="$ss" 'BEGIN { print a / s }')" "$(awk -v b="$b" 'BEGIN { print b / 100 }')" \
		&& near "$n" "$(awk -v a="$al" -v s="$sl" 'BEGIN { print a / s }')" "$(awk -v n="$n" 'BEGIN { print n / 100 }')" \
		&& awk -v b="$b" -v n="$n" 'BEGIN { exit !(n > 0.8 * b && n < 1.25 * b) }' \
		&& ok "diff-normalize-duration-recorded (run $b/s in 0.5 s, $n/s in 1 s)" \
		|| fail "diff-normalize-duration-recorded" "run '$b'/s and '$n'/s, $as samples in $ss s and $al in $sl s"
fi

# --- rates over recorded runs of the split fixture --------------------
# 10 base runs (75/25), 10 more the same and 10 shifted to 67/33, three
# at a time, each of about 1000 samples at 4000 Hz, in cpu mode: it
# samples CPU time, so a fixed amount of work takes as many samples
# whatever the machine's load. Every run makes 1000 calls of the same
# mean cost (250 units of 3 calls to path_a and 1 to path_b, or 333 of 2
# and 1; about 0.23 ms each on 2026-12-05's machines, where 840 calls
# gave 712 to 943 samples in a loaded run, 1060 gave 1103 to 1161 in a
# quiet one), so
# that the shifted runs are as long as the others and what they share
# (the start-up, run) keeps its share. Wall mode, where perf_event is not
# allowed, counts a run's start-up in wall time, which follows the load:
# there diff rightly finds the noise too large for the shift (wall-mode
# runs of the same work, three at a time at a load of 6, took 1700 to
# 6000 samples, the smallest change detectable was 19 to 40 points, and
# the shift was flagged in 1 pair of 6).
if ! "$RECORD" -q --mode cpu -o "$TMP/probe.trace" -- true > /dev/null 2>&1; then
	skip "diff-rates-recorded" "cpu mode (perf_event) is not allowed here: $("$RECORD" -q --mode cpu -o "$TMP/probe2.trace" -- true 2>&1 | head -1)"
	exit 0
fi
record_split() { # NAME WORK...
	local name=$1
	shift
	"$RECORD" -q --mode cpu -F 4000 -o "$TMP/$name.trace" -- "$FIX/split" "$@" > /dev/null 2>&1
}
export -f record_split
export RECORD FIX TMP
# The sanitized suite records one run of each, for the --check forms and
# the colours below: the rates are statistics of the plain suite's runs,
# and a sanitized fixture (its runtime's frames among the samples, each
# run ten times the cost) would only measure the sanitizers.
runs=10
case $BUILD in *-san) runs=1 ;; esac
for i in $(seq $runs); do printf 'base%s -n 250\nsame%s -n 250\nshift%s -n 333 2\n' $i $i $i; done \
	| xargs -P 3 -L 1 bash -c 'record_split "$@"' _
missing=$(for i in $(seq $runs); do for k in base same shift; do [ -s "$TMP/$k$i.trace" ] || echo "$k$i"; done; done)
if [ -n "$missing" ]; then
	fail "diff-rates-recorded" "no trace for $(echo $missing)"
	exit 0
fi
# rates: the runs' sample counts, and how often diff flags the shift and
# identical runs, one run and three a side.
rates() {
	samples=$(for i in 1 2 3 4 5 6 7 8 9 10; do for k in base same shift; do "$REPORT" folded "$TMP/$k$i.trace" | awk '{ s += $NF } END { print s + 0 }'; done; done | sort -n | sed -n '1p;$p' | paste -sd-)
	# About 1000 samples a run, the case the rates below are for: 700 to
	# 1400. The work is fixed, so the count follows the machine's speed, not
	# its load: 960 to 1170 in 60 cpu mode runs at a load of 5, 1122 to 1251
	# in a CI run on a slower machine on 2026-12-05.
	if [ "${samples%-*}" -ge 700 ] && [ "${samples#*-}" -le 1400 ]; then
		ok "diff-runs-about-1000-samples ($samples samples a run)"
	else
		fail "diff-runs-about-1000-samples" "runs of $samples samples, not 700 to 1400"
	fi
	# flagged A... -- B...: 1 if --check finds a significant change; its
	# line is in $TMP/flagged.out
	flagged() {
		local out rc
		out=$("$REPORT" diff --check "$@"); rc=$?
		echo "$out" > "$TMP/flagged.out"
		case $rc in 0) echo 0 ;; 3) echo 1 ;; *) echo "error $rc" ;; esac
	}
	fp=0 tp=0 both=0
	: > "$TMP/fp.out"
	: > "$TMP/tp.out"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		n=$(flagged "$TMP/base$i.trace" "$TMP/same$i.trace")
		fp=$((fp + n))
		[ "$n" = 0 ] || echo "pair $i: $(cat "$TMP/flagged.out")" >> "$TMP/fp.out"
		tp=$((tp + $(flagged "$TMP/base$i.trace" "$TMP/shift$i.trace")))
		if grep -q ' path_a total -' "$TMP/flagged.out" && grep -q ' path_b total +' "$TMP/flagged.out"; then
			both=$((both + 1))
		else
			echo "pair $i: $(cat "$TMP/flagged.out")" >> "$TMP/tp.out"
		fi
	done
	[ $fp -le 1 ] && ok "diff-identical-runs-rarely-flagged ($fp of 10 pairs)" \
		|| fail "diff-identical-runs-rarely-flagged" "$fp of 10 identical pairs flagged: $(cat "$TMP/fp.out")"
	[ $tp = 10 ] && [ $both = 10 ] && ok "diff-shift-always-flagged ($tp of 10 pairs, $both naming path_a and path_b)" \
		|| fail "diff-shift-always-flagged" "$tp of 10 flagged, $both naming both: $(cat "$TMP/tp.out")"
	# three runs a side: the shift is flagged, identical sets are not
	side() { for i in "$@"; do printf '%s\n' "$TMP/$k$i.trace"; done; }
	set3=0 same3=0
	: > "$TMP/set3.out"
	: > "$TMP/same3.out"
	for g in "1 2 3" "4 5 6" "7 8 9"; do
		k=base; b=$(side $g); k=shift; t=$(side $g); k=same; s=$(side $g)
		# shellcheck disable=SC2086
		n=$(flagged $b -- $t)
		if [ "$n" = 1 ] && grep -q ' path_a total -' "$TMP/flagged.out" && grep -q ' path_b total +' "$TMP/flagged.out"; then
			set3=$((set3 + 1))
		else
			echo "runs $g: $(cat "$TMP/flagged.out")" >> "$TMP/set3.out"
		fi
		# shellcheck disable=SC2086
		n=$(flagged $b -- $s)
		same3=$((same3 + n))
		[ "$n" = 0 ] || echo "runs $g: $(cat "$TMP/flagged.out")" >> "$TMP/same3.out"
	done
	[ $set3 = 3 ] && ok "diff-three-a-side-shift-flagged ($set3 of 3 sets)" \
		|| fail "diff-three-a-side-shift-flagged" "$set3 of 3 sets flagged naming both: $(cat "$TMP/set3.out")"
	[ $same3 = 0 ] && ok "diff-three-a-side-identical-not-flagged (0 of 3 sets)" \
		|| fail "diff-three-a-side-identical-not-flagged" "$same3 of 3 identical sets flagged: $(cat "$TMP/same3.out")"
}
if [ $runs = 10 ]; then
	rates
else
	skip "diff-rates" "a sanitized build: the plain suite measures diff's rates on its runs"
fi

# --check decides the exit status whatever is written: with --folded, the
# stacks alone go to standard output, as without --check, and the line to
# standard error, as --check alone prints it; with -o, the graph is
# written too.
check_forms() { # NAME BASE NEW WANT: WANT the exit status, or "same" as --check's
	local name=$1 rc rcf rco
	"$REPORT" diff --check "$2" "$3" > "$TMP/check.line"; rc=$?
	"$REPORT" diff --folded "$2" "$3" > "$TMP/plain.folded"
	"$REPORT" diff --check --folded "$2" "$3" > "$TMP/check.folded" 2> "$TMP/check.err"; rcf=$?
	rm -f "$TMP/check.svg"
	"$REPORT" diff --check -o "$TMP/check.svg" "$2" "$3" > /dev/null; rco=$?
	if { [ "$4" = same ] || [ $rc = "$4" ]; } && { [ $rc = 0 ] || [ $rc = 3 ]; } && [ $rcf = $rc ] && [ $rco = $rc ] \
		&& [ -s "$TMP/plain.folded" ] && cmp -s "$TMP/plain.folded" "$TMP/check.folded" \
		&& cmp -s "$TMP/check.line" "$TMP/check.err" && [ -s "$TMP/check.svg" ]; then
		ok "$name (exit $rc: $(cat "$TMP/check.line"))"
	else
		fail "$name" "exit $rc, with --folded $rcf, with -o $rco (want $4); line '$(cat "$TMP/check.line")', standard error with --folded '$(cat "$TMP/check.err")'; folded output $(cmp -s "$TMP/plain.folded" "$TMP/check.folded" && echo same || echo differs)"
	fi
}
check_forms diff-check-folded-shift "$TMP/base1.trace" "$TMP/shift1.trace" 3
check_forms diff-check-folded-identical "$TMP/base1.trace" "$TMP/same1.trace" same

# A frame whose change is not significant is grey, as Chromium draws it
# too, with the interval in every tooltip and the legend.
"$REPORT" diff -o "$TMP/same.svg" "$TMP/base1.trace" "$TMP/same1.trace" > /dev/null
"$REPORT" diff -o "$TMP/shift.svg" "$TMP/base1.trace" "$TMP/shift1.trace" > /dev/null
ga=$(fill "$TMP/same.svg" path_a) sa=$(fill "$TMP/shift.svg" path_a) sb=$(fill "$TMP/shift.svg" path_b)
[ "$ga" = "#dcdcdc" ] && blue "$sa" && red "$sb" \
	&& ok "diff-not-significant-grey (identical path_a $ga; shifted path_a $sa, path_b $sb)" \
	|| fail "diff-not-significant-grey" "identical path_a '$ga'; shifted path_a '$sa', path_b '$sb'"
browser_checks diff-recorded "diff-same=$TMP/same.svg" "diff-shift=$TMP/shift.svg"

exit 0
