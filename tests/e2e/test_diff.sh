#!/usr/bin/env bash
# End-to-end: prof-report diff on two real runs of the shift fixture, which
# moves time from path_a (80% -> 20%) to path_b (20% -> 80%), and on two
# synthetic traces of different sizes whose shares are known exactly.
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace

# --- exact: 300/100 samples against 200/600, so 75/25 becomes 25/75 ----
if [ ! -x "$SYNTH" ]; then
	skip "diff-exact" "no synth_trace in $BUILD/tests/tools"
else
	synth() { # FILE COUNT_A COUNT_B [COUNT_C]
		local extra=()
		[ -n "${4:-}" ] && extra=(--sample TID=1,STACK=0x1300:0x1050:0x1010 --count "$4")
		"$SYNTH" -o "$1" --os linux --command app \
			--image "KIND=gnu-build-id,IDENT=0102030405,PATH=/nonexistent/app,START=0x1000,SIZE=0x1000,BIAS=0x1000" \
			--thread TID=1,NAME=main --sample TID=1,STACK=0x1100:0x1050:0x1010 --count "$2" \
			--sample TID=1,STACK=0x1200:0x1050:0x1010 --count "$3" "${extra[@]}"
	}
	synth "$TMP/base.trace" 300 100
	synth "$TMP/new.trace" 200 600
	"$REPORT" diff --folded "$TMP/base.trace" "$TMP/new.trace" > "$TMP/d.folded"
	printf '%s\n' 'app;app+0x10;app+0x50;app+0x100 600 200' 'app;app+0x10;app+0x50;app+0x200 200 600' \
		| cmp -s - "$TMP/d.folded" && ok "diff-folded-normalised" || fail "diff-folded-normalised" "$(cat "$TMP/d.folded")"
	"$REPORT" diff "$TMP/base.trace" "$TMP/new.trace" > "$TMP/d.table"
	grep -A2 '^grew:' "$TMP/d.table" | grep -Eq '^ *\+50\.00pp +\+50\.00pp +25\.00%-> 75\.00% +\+400 +\+400  app\+0x200$' \
		&& grep -A2 '^shrank:' "$TMP/d.table" | grep -Eq '^ *-50\.00pp +-50\.00pp +75\.00%-> 25\.00% +-400 +-400  app\+0x100$' \
		&& ok "diff-table-exact" || fail "diff-table-exact" "$(cat "$TMP/d.table")"
		# A stack of only one run is kept, with 0 in the other (100 of 900
	# samples is 44 of 400).
	synth "$TMP/new3.trace" 200 600 100
	"$REPORT" diff --folded "$TMP/base.trace" "$TMP/new3.trace" | grep -qx 'app;app+0x10;app+0x50;app+0x300 0 100' \
		&& "$REPORT" diff --folded "$TMP/new3.trace" "$TMP/base.trace" | grep -qx 'app;app+0x10;app+0x50;app+0x300 44 0' \
		&& ok "diff-one-sided-stacks-kept" || fail "diff-one-sided-stacks-kept" "$("$REPORT" diff --folded "$TMP/base.trace" "$TMP/new3.trace")"
	"$REPORT" diff -o "$TMP/d.svg" "$TMP/base.trace" "$TMP/new3.trace" > /dev/null
	xmllint --noout "$TMP/d.svg" 2> /dev/null && ok "diff-svg-valid-xml" || fail "diff-svg-valid-xml" "$(xmllint --noout "$TMP/d.svg" 2>&1 | head -2)"
fi

if ! why=$(ptrace_ok); then
	skip "diff-recorded" "$why"
	exit 0
fi

# --- two real runs: time moves from path_a to path_b -------------------
"$RECORD" -q -o "$TMP/a.trace" -- "$FIX/shift" 1 8 > /dev/null
"$RECORD" -q -o "$TMP/b.trace" -- "$FIX/shift" 1 2 > /dev/null
"$REPORT" diff "$TMP/a.trace" "$TMP/b.trace" > "$TMP/r.table"
# path_b's self share is in fixture_spin, so path_b shows by its total,
# which grows by about 60 points while path_a's shrinks by as much.
"$REPORT" diff --limit 100 "$TMP/a.trace" "$TMP/b.trace" > "$TMP/r.all"
tb=$(awk '$NF == "path_b" { sub(/pp/, "", $2); print int($2) }' "$TMP/r.all" | head -1)
ta=$(awk '$NF == "path_a" { sub(/pp/, "", $2); print int($2) }' "$TMP/r.all" | head -1)
if [ -n "$tb" ] && [ -n "$ta" ] && [ "$tb" -ge 50 ] && [ "$tb" -le 70 ] && [ "$ta" -le -50 ] && [ "$ta" -ge -70 ]; then
	ok "diff-real-runs-total-moves (path_a ${ta}pp, path_b +${tb}pp)"
else
	fail "diff-real-runs-total-moves" "path_a '$ta', path_b '$tb': $(cat "$TMP/r.all")"
fi
# In the graph, path_b is red (grew) and path_a blue (shrank), and the
# blue is about as deep as the red.
"$REPORT" diff -o "$TMP/r.svg" "$TMP/a.trace" "$TMP/b.trace" > /dev/null
"$REPORT" diff --negate -o "$TMP/n.svg" "$TMP/a.trace" "$TMP/b.trace" > /dev/null
fill() { # SVG NAME: the fill of the first frame called NAME
	awk -v n="$2" 'index($0, ">" n "<") || index($0, "\"" n "\"") || index($0, ">" n " (") { if (match($0, /fill="#[0-9a-f]+"/)) { print substr($0, RSTART + 6, 7); exit } }' "$1"
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
exit 0
