#!/usr/bin/env bash
# End-to-end: the marks and pauses (trace format 2.3) on the timeline of
# threads --split, in a synthetic trace of 300 samples at 100 Hz (sample k
# at k/100 s, the recording ending at 3.010 s) over two threads. Each mark
# in the timeline's span is a line at its time, with its name escaped above
# it unless that would run into the name before, and its name, time and
# source in a tooltip; a mark outside the span is left out; a pause is a
# hatched band with its times. Expected x positions come from the page's
# own geometry: the time axis runs from x1 (0.000 s, or --from) to x2 (its
# last label), and time T is at x1 + floor((T - from) * (x2 - x1) / span).
# testdata/golden/tables/split-marks-index.html holds a whole page
# (tests/e2e/test_tables.sh).
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
if [ ! -x "$SYNTH" ]; then
	skip "split-marks" "no synth_trace in $BUILD/tests/tools (make builds it)"
	exit 0
fi
if ! command -v xmllint > /dev/null 2>&1; then
	skip "split-marks" "no xmllint (libxml2-utils; make check installs it)"
	exit 0
fi
T=$TMP/m.trace
hostile=$(printf 'a"<b>&\001\377')
"$SYNTH" -o "$T" --os linux --arch x86_64 --rate 100 --command prog \
	--thread TID=1,NAME=main --thread TID=2,NAME=worker \
	--sample TID=1,STACK=0x1000:0x2000 --count 100 --sample TID=2,STACK=0x1100:0x2000 --count 100 \
	--sample TID=1,STACK=0x1000:0x2000 --count 100 \
	--mark AT=400,NAME=outside --mark AT=0,NAME=start --mark AT=100,NAME=phase-1 \
	--mark AT=101,NAME=dense --mark "AT=150,NAME=$hostile" --mark AT=250,NAME=late,SOURCE=app \
	--pause FROM=200,TO=220 \
	|| { fail "split-marks" "synth_trace failed"; exit 0; }

# split NAME ARGS...: threads --split into $TMP/NAME, its timeline in
# $TMP/NAME.svg; fails the case NAME-runs if anything goes wrong.
split() {
	local name=$1
	shift
	if "$REPORT" threads --split "$TMP/$name" "$@" "$T" > /dev/null 2> "$TMP/err" && [ ! -s "$TMP/err" ]; then
		sed -n '/^<svg /,/^<\/svg>/p' "$TMP/$name/index.html" > "$TMP/$name.svg"
		return 0
	fi
	fail "$name-runs" "$(head -3 "$TMP/err")"
	return 1
}

# x FILE FROM_MS MS: the x of MS milliseconds since the start, by the axis
# of the timeline in FILE, whose span starts at FROM_MS.
x() {
	local axis x1 x2 to
	axis=$(grep -o '^<line x1="[0-9]*" y1="[0-9]*" x2="[0-9]*" y2="[0-9]*" stroke="#666"/>$' "$1")
	x1=$(echo "$axis" | sed 's/.* x1="\([0-9]*\)".*/\1/')
	x2=$(echo "$axis" | sed 's/.* x2="\([0-9]*\)".*/\1/')
	to=$(grep -o '>[0-9.]* s</text>$' "$1" | tail -1 | tr -dc '0-9')
	echo $((x1 + ($3 - $2) * (x2 - x1) / (to - $2)))
}

# has NAME FILE TEXT: the case passes if FILE holds TEXT.
has() {
	grep -qF -- "$3" "$2" && ok "$1" || fail "$1" "no '$3' in the timeline"
}

split split-marks || exit 0
S=$TMP/split-marks.svg
xmllint --noout "$S" 2> "$TMP/err" && ok "split-marks-valid-xml" \
	|| fail "split-marks-valid-xml" "$(head -3 "$TMP/err")"

# A line across the strips at each mark's time, its tooltip first.
bad=
for m in "start 0 0.000 control" "phase-1 1000 1.000 control" "dense 1010 1.010 control" \
	"late 2500 2.500 app"; do
	# shellcheck disable=SC2086 # the words of m, split on purpose
	set -- $m
	want="<g class=\"mark\"><title>$1 at $3 s ($4)</title><line x1=\"$(x "$S" 0 "$2")\" y1="
	grep -qF -- "$want" "$S" || bad="$bad $1"
done
[ -z "$bad" ] && ok "split-marks-lines-at-their-times" || fail "split-marks-lines-at-their-times" "wrong or missing:$bad"
n=$(grep -c '<g class="mark">' "$S")
[ "$n" = 5 ] && ok "split-marks-outside-left-out" || fail "split-marks-outside-left-out" "$n marks drawn, want 5 of 6"

# Names above their lines, 3 pixels right; "dense", 1 pixel after
# "phase-1", would run into it and is left out.
has "split-marks-label" "$S" "<text x=\"$(($(x "$S" 0 1000) + 3))\" y=\"38\" font-size=\"11\" fill=\"#c0392b\">phase-1</text>"
if grep -q '>dense</text>' "$S"; then
	fail "split-marks-dense-label-left-out" "'dense' is drawn over 'phase-1'"
else
	ok "split-marks-dense-label-left-out"
fi

# A hostile name is escaped in its label and its tooltip alike.
esc='a&quot;&lt;b&gt;&amp;\x01\xff'
if grep -qF "<title>$esc at 1.500 s (control)</title><line x1=\"$(x "$S" 0 1500)\"" "$S" \
	&& grep -qF ">$esc</text>" "$S" && ! grep -qF 'a"<b>' "$TMP/split-marks/index.html"; then
	ok "split-marks-hostile-name-escaped"
else
	fail "split-marks-hostile-name-escaped" "$(grep -F '1.500 s' "$S" | head -1)"
fi

# The pause: a hatched band over the strips, from 2.000 to 2.200 s.
x1=$(x "$S" 0 2000)
has "split-marks-pause-band" "$S" "<rect class=\"paused\" x=\"$x1\" y=\"42\" width=\"$(($(x "$S" 0 2200) - x1))\" height=\"32\" fill=\"url(#paused)\"><title>paused 2.000 s to 2.200 s</title></rect>"
has "split-marks-pause-legend" "$S" '>paused</text>'

# --from and --to cut the timeline, and the marks and pauses with it: the
# axis runs from 1.200 s, a pause keeps its own times in its tooltip.
if split split-marks-window --from 1.2 --to 2.6; then
	S=$TMP/split-marks-window.svg
	got=$(grep -o '<g class="mark"><title>[^<]*</title><line x1="[0-9]*"' "$S" | sed 's/<g class="mark"><title>//; s/ at .*x1="/@/; s/"$//' | tr '\n' ' ')
	want="$esc@$(x "$S" 1200 1500) late@$(x "$S" 1200 2500) "
	[ "$got" = "$want" ] && ok "split-marks-window" || fail "split-marks-window" "got '$got', want '$want'"
	x1=$(x "$S" 1200 2000)
	has "split-marks-window-pause" "$S" "<rect class=\"paused\" x=\"$x1\" y=\"42\" width=\"$(($(x "$S" 1200 2200) - x1))\" height=\"32\" fill=\"url(#paused)\"><title>paused 2.000 s to 2.200 s</title></rect>"
fi

# 2000 marks, ten at each of 200 samples 1 ms apart at 1000 Hz: one line
# per pixel that has any, its tooltip naming eight and counting the rest,
# and names only where they do not run into the one before (the page
# guesses 7 pixels a character and keeps 4 between names).
args=()
for k in $(seq 1 200); do
	for i in 0 1 2 3 4 5 6 7 8 9; do args+=(--mark "AT=$k,NAME=m$k.$i"); done
done
T=$TMP/many.trace
if "$SYNTH" -o "$T" --os linux --arch x86_64 --rate 1000 --command prog --thread TID=1,NAME=main \
	--sample TID=1,STACK=0x1000:0x2000 --count 200 "${args[@]}" && split split-marks-many; then
	S=$TMP/split-marks-many.svg
	lines=$(grep -c '^and 2 more</title><line ' "$S")
	[ "$lines" = 200 ] && [ "$(grep -c '<g class="mark">' "$S")" = 200 ] \
		&& ok "split-marks-many-one-line-per-pixel" || fail "split-marks-many-one-line-per-pixel" "$lines lines for 200 instants"
	grep -o '<text x="[0-9]*" y="38" font-size="11" fill="#c0392b"[^>]*>[^<]*<' "$S" |
		sed 's/<text x="\([0-9]*\)".*>\([^<]*\)<$/\1 \2/' > "$TMP/labels"
	n=$(wc -l < "$TMP/labels")
	overlap=$(awk '{ if (NR > 1 && $1 < right) print; right = $1 + 7 * length($2) + 4 }' "$TMP/labels" | head -3)
	if [ "$n" -gt 10 ] && [ "$n" -lt 200 ] && [ -z "$overlap" ] && xmllint --noout "$S" 2> /dev/null; then
		ok "split-marks-many-labels-apart"
	else
		fail "split-marks-many-labels-apart" "$n labels; overlapping: $overlap"
	fi
else
	fail "split-marks-many-one-line-per-pixel" "synth_trace or threads --split failed"
fi
exit 0
