#!/usr/bin/env bash
# End-to-end: the interactive flame graph. The layouts and palettes on a
# synthetic profile of known shape; a recording of testdata/inject.S, whose
# function names try to break out of the SVG; the size and speed of graphs
# of 10k, 100k and 1M distinct stacks; and all of them in headless Chromium
# (tests/browser/flamegraph.mjs), if playwright-core and Chromium are there.
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
MANY=$BUILD/tests/tools/many_stacks
# The set-up (mk/setup.sh) installs playwright-core here.
PLAYWRIGHT_DIR=${PLAYWRIGHT_DIR:-$TOP/build/node}
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
export PLAYWRIGHT_DIR CHROMIUM

# The basic profile, 100 samples: app;A;B 30, app;A;C 10, app;D;B 40,
# app;D;A;B 20, where A is [unknown]+0xa000 and so on. The browser test
# relies on this shape.
s="TID=1,STATE=running,STACK"
"$SYNTH" -o "$TMP/basic.trace" --os linux --arch x86_64 --command app --thread TID=1,NAME=app \
	--sample "$s=0xb000:0xa000" --count 30 --sample "$s=0xc000:0xa000" --count 10 \
	--sample "$s=0xb000:0xd000" --count 40 --sample "$s=0xb000:0xa000:0xd000" --count 20 \
	|| { fail "svg-synth" "synth_trace failed"; exit 0; }
"$REPORT" svg "$TMP/basic.trace" -o "$TMP/basic.svg" || fail "svg-basic" "prof-report svg failed"
check "svg-basic-valid-xml" xmllint --noout "$TMP/basic.svg"
"$REPORT" svg "$TMP/basic.trace" | cmp -s - "$TMP/basic.svg" && ok "svg-deterministic" \
	|| fail "svg-deterministic" "two runs differ"
# frame F at depth D from sample X with N samples
has() { grep -qF "data-d=\"$2\" data-x=\"$3\" data-s=\"$4\"><title>$5 ($4 samples" "$1"; }
has "$TMP/basic.svg" 2 40 60 '[unknown]+0xd000' && has "$TMP/basic.svg" 4 40 20 '[unknown]+0xb000' \
	&& ok "svg-layout" || fail "svg-layout" "no D at depth 2 from 40, or no D;A;B at depth 4"
grep -q '<text id="subtitle"[^>]*>app, 0.1 s, 100 samples, wall mode at 1000 Hz</text>' "$TMP/basic.svg" \
	&& ok "svg-subtitle" || fail "svg-subtitle" "$(grep -o '<text id="subtitle".*' "$TMP/basic.svg")"
[ "$(grep -c '<script' "$TMP/basic.svg")" = 1 ] && ! grep -q 'http-equiv\|xlink:href\|href=' "$TMP/basic.svg" \
	&& ok "svg-self-contained" || fail "svg-self-contained" "links or more than one script"

# --reverse: leaves at the base, so B (90 samples) and C are the first row
"$REPORT" svg --reverse "$TMP/basic.trace" > "$TMP/rev.svg"
has "$TMP/rev.svg" 1 0 90 '[unknown]+0xb000' && has "$TMP/rev.svg" 1 90 10 '[unknown]+0xc000' \
	&& has "$TMP/rev.svg" 2 0 50 '[unknown]+0xa000' && has "$TMP/rev.svg" 3 0 20 '[unknown]+0xd000' && xmllint --noout "$TMP/rev.svg" \
	&& ok "svg-reverse" || fail "svg-reverse" "$(grep -o 'data-d="1"[^/]*' "$TMP/rev.svg")"
# --inverted: an icicle, "all" on top
"$REPORT" svg --inverted "$TMP/basic.trace" > "$TMP/inv.svg"
grep -q 'data-d="0" data-x="0" data-s="100"><title>all (100 samples, 100.00%)</title><rect x="10.00" y="60.0"' "$TMP/inv.svg" \
	&& grep -q '>Icicle Graph<' "$TMP/inv.svg" && xmllint --noout "$TMP/inv.svg" \
	&& ok "svg-inverted" || fail "svg-inverted" "$(grep -o '<title>all.*' "$TMP/inv.svg")"
# --width
"$REPORT" svg --width 600 "$TMP/basic.trace" > "$TMP/w.svg"
grep -q '<svg version="1.1" width="600"' "$TMP/w.svg" && grep -q 'width="580.00"' "$TMP/w.svg" \
	&& ok "svg-width" || fail "svg-width" "not 600 wide"
# palettes: a legend for lang; the frames' fills differ between palettes
for c in hot image lang; do
	"$REPORT" svg --colors $c "$TMP/basic.trace" > "$TMP/c-$c.svg" && xmllint --noout "$TMP/c-$c.svg" \
		|| fail "svg-colors-$c" "invalid"
done
grep -q '<g id="legend">.*>Rust<.*>C++<.*>C<.*>unresolved<' "$TMP/c-lang.svg" && ! cmp -s "$TMP/c-hot.svg" "$TMP/c-image.svg" \
	&& ok "svg-colors" || fail "svg-colors" "no lang legend, or image is hot"
"$REPORT" svg --colors nosuch "$TMP/basic.trace" > /dev/null 2>&1; [ $? = 2 ] && ok "svg-colors-bad-exit-2" \
	|| fail "svg-colors-bad-exit-2" "not 2"

# Injection: a recording of testdata/inject.S
inject=
if ! why=$(ptrace_ok); then
	skip "svg-inject" "$why"
elif ! "$RECORD" -q -o "$TMP/inject.trace" -- "$FIX/inject" > /dev/null; then
	fail "svg-inject-record" "prof-record failed"
else
	"$REPORT" folded "$TMP/inject.trace" > "$TMP/inject.folded"
	# the ';' in a name is escaped, so the name stays one frame, the last
	n=$(grep -cF ";main;</text><script>window.__pwned=1\\x3bdocument.title='pwned'</script> " "$TMP/inject.folded")
	m=$(grep -cF ";main;a\"b'c&d]]>e\\x3bf " "$TMP/inject.folded")
	[ "$n" -ge 1 ] && [ "$m" -ge 1 ] && ok "svg-inject-folded-one-frame" \
		|| fail "svg-inject-folded-one-frame" "$(grep main "$TMP/inject.folded" | head -3)"
	if "$REPORT" svg "$TMP/inject.trace" -o "$TMP/inject.svg" --title '</text><script>window.__pwned=5</script>]]>' \
		&& out=$(xmllint --noout "$TMP/inject.svg" 2>&1); then
		ok "svg-inject-valid-xml"
		inject="inject=$TMP/inject.svg"
	else
		fail "svg-inject-valid-xml" "$(echo "$out" | head -3)"
	fi
	# one script element and one CDATA end, both the writer's own
	[ "$(grep -c '<script' "$TMP/inject.svg")" = 1 ] && [ "$(grep -o ']]>' "$TMP/inject.svg" | wc -l)" = 1 ] \
		&& grep -qF '&lt;/text&gt;&lt;script&gt;window.__pwned=1;document.title=&apos;pwned&apos;&lt;/script&gt; (' "$TMP/inject.svg" \
		&& grep -qF 'x&quot; onload=&quot;window.__pwned=4 (' "$TMP/inject.svg" \
		&& ok "svg-inject-escaped" || fail "svg-inject-escaped" "$(grep -c '<script' "$TMP/inject.svg") scripts"
	# --colors lang on a real recording: main, an unmangled symbol, is green
	"$REPORT" svg --colors lang "$TMP/inject.trace" > "$TMP/inject-lang.svg"
	# (main may be drawn more than once, under different callers: the first)
	fill=$(grep -o '<title>main ([^<]*</title><rect [^>]*fill="#[0-9a-f]*"' "$TMP/inject-lang.svg" | head -1 | sed 's/.*fill="#//; s/"$//')
	if [ ${#fill} = 6 ] && [ $((16#${fill:2:2})) -gt $((16#${fill:0:2})) ] && [ $((16#${fill:2:2})) -gt $((16#${fill:4:2})) ]; then
		ok "svg-colors-lang-recorded"
	else
		fail "svg-colors-lang-recorded" "main is filled '#$fill'"
	fi
fi

# Scale: 10k, 100k and 1M distinct stacks, one sample each. Every drawn
# frame is at least --minwidth (0.1) px wide, so a row of the 1180 px wide
# drawing holds at most 11800 frames and the graph at most rows * 11800.
loads=()
for n in 10000 100000 1000000; do
	label=$((n / 1000))k
	[ $n = 1000000 ] && label=1M
	if ! "$MANY" -o "$TMP/m$n.trace" $n; then
		fail "svg-scale-$label" "many_stacks failed"
		continue
	fi
	t0=$(date +%s%N)
	"$REPORT" svg "$TMP/m$n.trace" -o "$TMP/m$n.svg" || { fail "svg-scale-$label" "prof-report svg failed"; continue; }
	t1=$(date +%s%N)
	bytes=$(stat -c %s "$TMP/m$n.svg")
	frames=$(grep -c '<g class="f' "$TMP/m$n.svg")
	rows=$(grep -o 'data-d="[0-9]*"' "$TMP/m$n.svg" | sort -u | wc -l)
	echo "  note  svg of $label stacks: $bytes bytes, $frames frames in $rows rows, written in $(( (t1 - t0) / 1000000 )) ms"
	if [ "$frames" -le $((rows * 11800)) ] && [ "$bytes" -lt $((64 << 20)) ] && xmllint --noout --huge "$TMP/m$n.svg"; then
		ok "svg-scale-$label"
	else
		fail "svg-scale-$label" "$bytes bytes, $frames frames in $rows rows"
	fi
	loads+=("load:$label=$TMP/m$n.svg")
done

# In a sanitized build the graphs are written by now, which is what the
# sanitizers check; the script they embed and what a browser makes of it
# are the same as the plain suite's, which lints it and runs it (13 s).
case $BUILD in *-san)
	skip "svg-script-lint" "a sanitized build; the plain suite lints the graphs' script"
	skip "browser" "a sanitized build; the plain suite opens the same graphs in the browser"
	exit 0 ;;
esac

# The script every graph embeds, linted.
eslint "svg-script-lint" report/output/flamegraph.js

# The browser
if ! command -v node > /dev/null; then
	skip "browser" "node is not installed"
	exit 0
fi
timeout 180 node "$TOP/tests/browser/flamegraph.mjs" "basic=$TMP/basic.svg" $inject "${loads[@]}" > "$TMP/browser.out" 2> "$TMP/browser.err"
rc=$?
browser_results "$TMP/browser.out"
[ $rc = 0 ] || fail "browser" "flamegraph.mjs exited $rc: $(tail -3 "$TMP/browser.err")"
exit 0
