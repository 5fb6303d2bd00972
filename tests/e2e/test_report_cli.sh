#!/usr/bin/env bash
# End-to-end: prof-report's subcommands, exit codes and outputs on a real
# recording of the split fixture.
. "$(dirname "$0")/lib.sh"

# Each command takes exactly the options its -h lists: an option of any
# other command is refused, exit 2, with a message that names it. The
# sanitized suite tries every seventh such option of each command (one
# parser reads every table; 280 runs took 25 s there), the plain suite
# every one.
TR=$TOP/testdata/golden/tables.trace
# help_options CMD: "OPTION ARG?" for each option in CMD's -h.
help_options() {
	"$REPORT" "$1" -h | grep -E '^  -' | sed -E 's/^  //; s/  .*//; s/,//g' |
		awk '{ arg = ($NF ~ /^-/) ? "" : " x"; for (i = 1; i <= NF; i++) if ($i ~ /^-/) print $i arg }'
}
refused() { # refused NAME CMD ARGS...: exit 2, "prof-report CMD: unknown option 'OPT'"
	local name=$1 c=$2 o=$3 rc
	shift 2
	"$REPORT" "$c" "$@" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q "^prof-report $c: unknown option '$o'" "$TMP/err"; then
		return 0
	fi
	fail "$name" "exit $rc: $(head -1 "$TMP/err")"
	return 1
}
commands=$("$REPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
all=$(for c in $commands; do help_options "$c"; done | sort -u)
every=1
[[ $BUILD == *-san ]] && every=7
for c in $commands; do
	n=0 tried=0 bad=0 own=$(help_options "$c")
	while read -r o arg; do
		grep -q -- "^$o\( x\)\?$" <<< "$own" && continue
		n=$((n + 1))
		[ $((n % every)) -eq 0 ] || [ $every -eq 1 ] || continue
		tried=$((tried + 1))
		refused "options-$c-refuses-$o" "$c" "$o" $arg "$TR" || bad=1
	done <<< "$all"
	[ $bad -eq 0 ] && ok "options-$c-refuses-others ($tried of the $n options of other commands)"
done
refused "folded-refuses-embed" folded --embed "$TR" && ok "folded-refuses-embed"
refused "folded-refuses-negate" folded --negate "$TR" && ok "folded-refuses-negate"
refused "top-refuses-split" top --split "$TMP/d" "$TR" && ok "top-refuses-split"
refused "threads-refuses-format" threads --format pprof "$TR" && ok "threads-refuses-format"

# With no TRACE, a command reads prof.trace, as perf report reads
# perf.data; without one, the error says how to get one.
mkdir "$TMP/here"
(cd "$TMP/here" && "$REPORT" folded > /dev/null 2> ../err); rc=$?
[ $rc -eq 1 ] && grep -q "no 'prof.trace' here.*'prof-record -- COMMAND'" "$TMP/err" \
	&& ok "default-trace-missing-names-the-fix" || fail "default-trace-missing-names-the-fix" "exit $rc: $(cat "$TMP/err")"
cp "$TR" "$TMP/here/prof.trace"
bad=""
for c in $commands; do
	[ "$c" = diff ] && continue
	args=""
	[ "$c" = export ] && args="--format speedscope"
	(cd "$TMP/here" && "$REPORT" "$c" $args > ../default.out 2> ../default.err &&
		rm -f prof.trace.syms && "$REPORT" "$c" $args prof.trace > ../named.out 2> ../named.err &&
		rm -f prof.trace.syms) && cmp -s "$TMP/default.out" "$TMP/named.out" &&
		cmp -s "$TMP/default.err" "$TMP/named.err" || bad="$bad $c"
done
[ -z "$bad" ] && ok "default-trace-read-by-every-command" || fail "default-trace-read-by-every-command" "not by:$bad"

# --list-options, which completion reads: each command's options as its -h
# lists them, those that take a value with its name and words.
bad=""
for c in $commands; do
	"$REPORT" "$c" --list-options | awk '{ print $1 }' | sort > "$TMP/list"
	help_options "$c" | awk '{ print $1 }' | sort > "$TMP/help"
	cmp -s "$TMP/list" "$TMP/help" || bad="$bad $c"
done
[ -z "$bad" ] && "$REPORT" top --list-options | grep -qx -- '--sort KEY self total name' \
	&& ok "list-options-as-help" || fail "list-options-as-help" "differs for:$bad"

# PROF_REPORT_TIMING: one line on standard error with every stage, whose
# times add up to the total (each stage's own time), and the same output
stages="open locate symbols decompress index units lookups profile output release other"
PROF_REPORT_TIMING=1 "$REPORT" folded "$TR" > "$TMP/timed.out" 2> "$TMP/timed.err"
"$REPORT" folded "$TR" > "$TMP/untimed.out" 2> "$TMP/untimed.err"
line=$(grep '^prof-report: timing: ' "$TMP/timed.err")
if [ "$(grep -c '^prof-report: timing: ' "$TMP/timed.err")" -eq 1 ] &&
	cmp -s "$TMP/timed.out" "$TMP/untimed.out" && [ ! -s "$TMP/untimed.err" ] &&
	echo "$line" | awk -v stages="$stages" '{
		n = split(stages, want, " ")
		for (i = 1; i <= NF; i++) if ($(i + 2) == "s," || $(i + 2) == "s;") t[$i] = $(i + 1)
		for (i = 1; i <= n; i++) { if (!(want[i] in t)) exit 1; sum += t[want[i]] }
		if (!match($0, /total [0-9.]+ s/)) exit 1
		total = substr($0, RSTART + 6, RLENGTH - 8)
		exit !(sum <= total + 0.000011 * n && sum >= total * 0.99 - 0.001 && /peak RSS [0-9]+ KiB$/) }'; then
	ok "timing-stages-add-up"
else
	fail "timing-stages-add-up" "$(cat "$TMP/timed.err")"
fi
PROF_REPORT_TIMING=0 "$REPORT" folded "$TR" > /dev/null 2> "$TMP/timed.err"
[ ! -s "$TMP/timed.err" ] && ok "timing-off-with-0" || fail "timing-off-with-0" "$(cat "$TMP/timed.err")"

# -o -: standard output, for every command that takes -o, and never a
# file named "-"; diff's table goes to standard error then, and its
# --folded stacks cannot share standard output with the graph.
mkdir "$TMP/dash"
if (cd "$TMP/dash" && "$REPORT" svg -o - "$TR" > ../svg.out && xmllint --noout ../svg.out &&
	"$REPORT" diff -o - "$TR" "$TR" > ../diff.out 2> ../diff.err && xmllint --noout ../diff.out &&
	grep -q '^no significant change' ../diff.err &&
	"$REPORT" export --format speedscope -o - "$TR" > ../export.out && grep -q '^{' ../export.out &&
	"$REPORT" pack -o - "$TR" > ../pack.out 2> /dev/null &&
	"$REPORT" pack -o ../pack.file "$TR" 2> /dev/null && cmp -s ../pack.out ../pack.file) &&
	[ -z "$(ls -A "$TMP/dash")" ]; then
	ok "output-dash-is-standard-output (svg, diff, export, pack)"
else
	fail "output-dash-is-standard-output" "$(ls -A "$TMP/dash"; head -2 "$TMP/diff.err")"
fi
"$REPORT" diff --folded -o - "$TR" "$TR" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "options '--folded' and '-o -' both write to standard output" "$TMP/err" \
	&& ok "diff-folded-and-graph-on-standard-output-refused" \
	|| fail "diff-folded-and-graph-on-standard-output-refused" "exit $rc: $(head -1 "$TMP/err")"

if ! why=$(ptrace_ok); then
	skip "report-cli" "$why"
	exit 0
fi
"$RECORD" -q -o "$TMP/s.trace" -- "$FIX/split" 1 > /dev/null || { fail "report-cli-record" "prof-record failed"; exit 0; }

# svg: a valid XML document whose frames carry the fixture's names
if "$REPORT" svg "$TMP/s.trace" -o "$TMP/s.svg" --title 'a <b> & "c"' && xmllint --noout "$TMP/s.svg"; then
	ok "svg-is-valid-xml"
else
	fail "svg-is-valid-xml" "$(xmllint --noout "$TMP/s.svg" 2>&1 | head -3)"
fi
grep -q '<title>path_a (' "$TMP/s.svg" && ok "svg-has-frames" || fail "svg-has-frames" "no path_a frame"
grep -q 'a &lt;b&gt; &amp; &quot;c&quot;' "$TMP/s.svg" && ok "svg-title-escaped" || fail "svg-title-escaped" "title not escaped"
"$REPORT" svg "$TMP/s.trace" --title 'a <b> & "c"' | cmp -s - "$TMP/s.svg" && ok "svg-to-stdout-and-deterministic" \
	|| fail "svg-to-stdout-and-deterministic" "stdout output differs from -o output"

# --minwidth takes pixels, fractions allowed, as flamegraph.pl's does: a wide
# bound hides the narrow frames, 0 draws them all
n_def=$(grep -c '<rect' "$TMP/s.svg")
n_all=$("$REPORT" svg --minwidth 0 "$TMP/s.trace" | grep -c '<rect')
n_wide=$("$REPORT" svg --minwidth 600.5 "$TMP/s.trace" | grep -c '<rect')
[ "$n_all" -ge "$n_def" ] && [ "$n_wide" -lt "$n_def" ] && ok "svg-minwidth-pixels ($n_all, $n_def, $n_wide rects)" \
	|| fail "svg-minwidth-pixels" "rects at 0, 0.1, 600.5: $n_all $n_def $n_wide"
"$REPORT" svg --minwidth 1e 2> "$TMP/err" "$TMP/s.trace"; rc=$?
[ $rc -eq 2 ] && grep -q "'--minwidth': '1e' is not a number" "$TMP/err" && ok "svg-minwidth-junk-exit-2" \
	|| fail "svg-minwidth-junk-exit-2" "exit $rc: $(cat "$TMP/err")"

# outputs are deterministic
"$REPORT" folded "$TMP/s.trace" > "$TMP/f1"; "$REPORT" folded "$TMP/s.trace" > "$TMP/f2"
cmp -s "$TMP/f1" "$TMP/f2" && ok "folded-deterministic" || fail "folded-deterministic" "two runs differ"
sort -c "$TMP/f1" 2>/dev/null && ok "folded-sorted" || fail "folded-sorted" "not sorted"

# --thread-frames puts "NAME [TID]" under the root
"$REPORT" folded --thread-frames "$TMP/s.trace" | grep -Eq '^split;split \[[0-9]+\];' \
	&& ok "folded-thread-frames" || fail "folded-thread-frames" "$("$REPORT" folded --thread-frames "$TMP/s.trace" | head -2)"

# exit codes: 0 ok, 1 runtime error, 2 bad usage
"$REPORT" --version | grep -q 'trace format 2\.' && ok "version-names-format" || fail "version-names-format" "$("$REPORT" --version)"
"$REPORT" -h > /dev/null; [ $? -eq 0 ] && ok "help-exit-0" || fail "help-exit-0" "non-zero"
"$REPORT" nosuch 2> /dev/null; [ $? -eq 2 ] && ok "unknown-command-exit-2" || fail "unknown-command-exit-2" "not 2"
"$REPORT" folded --state sideways "$TMP/s.trace" 2> /dev/null; [ $? -eq 2 ] && ok "bad-option-exit-2" || fail "bad-option-exit-2" "not 2"
out=$("$REPORT" info "$TMP/missing.trace" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "missing.trace" && ok "missing-trace-exit-1" || fail "missing-trace-exit-1" "exit $rc: $out"
head -c 100 /dev/urandom > "$TMP/junk.trace"
out=$("$REPORT" folded "$TMP/junk.trace" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -qi "not a prof trace" && ok "junk-trace-clear-error" || fail "junk-trace-clear-error" "exit $rc: $out"
if [ -w /dev/full ]; then
	"$REPORT" folded "$TMP/s.trace" > /dev/full 2> "$TMP/full.err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'standard output' "$TMP/full.err" && ok "stdout-write-error-exit-1" || fail "stdout-write-error-exit-1" "exit $rc: $(cat "$TMP/full.err")"
fi
exit 0
