#!/usr/bin/env bash
# End-to-end: folded, top and threads on the committed golden trace
# testdata/golden/tables.trace, compared byte for byte with the expected
# outputs beside it; every filter on every subcommand (folded, top, threads,
# svg), checked to select the same samples everywhere; threads --split with
# hostile thread names, and on testdata/golden/marks.trace with marks and
# pauses; top --group line on a real recording; top and info on code no
# file holds (JIT code, anonymous memory).
#
# To regenerate the expected outputs after an intended change of format:
#   GOLDEN_UPDATE=1 bash tests/e2e/test_tables.sh
# and GOLDEN_UPDATE=traces rewrites the traces first, with
# testdata/golden/make-traces.sh and the synth_trace tool. Review the diff
# before committing it.
. "$(dirname "$0")/lib.sh"

G=$TOP/testdata/golden
TR=$G/tables.trace
UPDATE=${GOLDEN_UPDATE:-}

if [ "$UPDATE" = traces ]; then
	sh "$G/make-traces.sh" "$BUILD/tests/tools/synth_trace" || { fail "golden-make-traces" "make-traces.sh failed"; exit 0; }
fi
mkdir -p "$G/tables"

# golden FILE ARGS...: prof-report ARGS must succeed, say nothing on stderr
# and print exactly $G/tables/FILE.
golden() {
	local file=$1 rc
	shift
	"$REPORT" "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?
	if [ $rc -ne 0 ] || [ -s "$TMP/err" ]; then
		fail "golden-$file" "exit $rc: $(head -3 "$TMP/err")"
	elif [ -n "$UPDATE" ]; then
		cp "$TMP/out" "$G/tables/$file"
		ok "golden-$file (updated)"
	elif cmp -s "$TMP/out" "$G/tables/$file"; then
		ok "golden-$file"
	else
		fail "golden-$file" "differs from testdata/golden/tables/$file: $(diff "$G/tables/$file" "$TMP/out" | head -6 | tr '\n' '|')"
	fi
}

# The plain outputs and every option of top.
golden folded.out folded "$TR"
golden folded-thread-frames.out folded --thread-frames "$TR"
golden threads.out threads "$TR"
golden top.out top "$TR"
golden top-thread-frames.out top --thread-frames "$TR"
golden top-sort-total.out top --sort total "$TR"
golden top-sort-name.out top --sort name "$TR"
golden top-limit-3.out top --limit 3 "$TR"
golden top-group-image.out top --group image "$TR"
golden top-group-image-sort-name.out top --group image --sort name "$TR"
golden top-group-line.out top --group line "$TR"

# Each filter, on each subcommand. FILTERS is "name|options" lines; options
# are split on spaces (none of them holds one).
FILTERS='tid|--tid 101 --tid 102
thread|--thread ^worker$
window|--from 0.030 --to 0.060
state-idle|--state idle
state-running|--state running
focus|--focus libg\.so
exclude|--exclude ^app\+0x1300$
focus-exclude|--focus libg --exclude 0x600$'

# The frame names (not the root) of folded output, one a line, sorted.
names() { sed 's/ [0-9]*$//' "$1" | tr ';' '\n' | sed 1d | grep -v '^app$' | sort -u; }
# The sample count of the closing line of top ("N samples, ...") or threads
# ("N threads, M samples") output.
closing() { tail -1 "$1" | sed -n 's/^\([0-9]*\) samples*,.*/\1/p; s/^[0-9]* threads*, \([0-9]*\) samples*$/\1/p'; }

"$REPORT" folded "$TR" > "$TMP/all.folded"
names "$TMP/all.folded" > "$TMP/all.names"
while IFS='|' read -r name opts; do
	# shellcheck disable=SC2086 # options are words
	set -- $opts
	golden "folded-$name.out" folded "$@" "$TR"
	golden "top-$name.out" top "$@" "$TR"
	golden "threads-$name.out" threads "$@" "$TR"

	# The same samples everywhere: folded's sum, top's and threads' totals.
	"$REPORT" folded "$@" "$TR" > "$TMP/f"
	"$REPORT" top "$@" "$TR" > "$TMP/t"
	"$REPORT" threads "$@" "$TR" > "$TMP/h"
	nf=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/f")
	nt=$(closing "$TMP/t")
	nh=$(closing "$TMP/h")
	if [ "$nf" = "$nt" ] && [ "$nf" = "$nh" ] && [ "$nf" -lt 103 ]; then
		ok "filter-$name-same-samples ($nf)"
	else
		fail "filter-$name-same-samples" "folded $nf, top $nt, threads $nh (of 103)"
	fi

	# svg draws exactly the frames that folded has: every name of the
	# whole trace is in the graph if and only if it is in folded's output.
	if "$REPORT" svg --minwidth 0 "$@" "$TR" > "$TMP/s.svg" 2> "$TMP/err" && xmllint --noout "$TMP/s.svg" 2>> "$TMP/err"; then
		names "$TMP/f" > "$TMP/want"
		: > "$TMP/got"
		while read -r fr; do
			grep -qF -- "$fr" "$TMP/s.svg" && echo "$fr" >> "$TMP/got"
		done < "$TMP/all.names"
		if cmp -s "$TMP/want" "$TMP/got"; then
			ok "filter-$name-svg"
		else
			fail "filter-$name-svg" "frames drawn differ from folded: $(diff "$TMP/want" "$TMP/got" | tr '\n' '|')"
		fi
	else
		fail "filter-$name-svg" "$(head -3 "$TMP/err")"
	fi
done <<EOF
$FILTERS
EOF

# --tid keeps only those rows in threads; --focus keeps rows, with 0 samples.
"$REPORT" threads --tid 102 "$TR" | sed '1d;$d' | awk '{ print $1 }' > "$TMP/rows"
[ "$(cat "$TMP/rows")" = 102 ] && ok "threads-tid-rows" || fail "threads-tid-rows" "$(tr '\n' ' ' < "$TMP/rows")"

# top: usage and bad usage
"$REPORT" top -h > "$TMP/help"; rc=$?
[ $rc -eq 0 ] && grep -q -- '--sort KEY' "$TMP/help" && grep -q -- '--limit N' "$TMP/help" && grep -q -- '--group BY' "$TMP/help" \
	&& ok "top-help" || fail "top-help" "exit $rc: $(head -3 "$TMP/help")"
for bad in "--sort size" "--limit 0" "--limit x" "--group file"; do
	# shellcheck disable=SC2086
	"$REPORT" top $bad "$TR" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "option '${bad% *}'" "$TMP/err" && ok "top-bad-usage ($bad)" \
		|| fail "top-bad-usage ($bad)" "exit $rc: $(head -2 "$TMP/err")"
done
"$REPORT" top "$TR" > /dev/full 2> "$TMP/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'standard output' "$TMP/err" && ok "top-write-error-exit-1" || fail "top-write-error-exit-1" "exit $rc"

# threads --split: one folded and one SVG per sampled thread, named
# TID-NAME with the name made safe, and index.html; nothing outside DIR.
P=$TMP/split
mkdir -p "$P"
if "$REPORT" threads --split "$P/out" "$TR" > "$TMP/split.out" 2> "$TMP/err"; then
	ok "split-runs"
else
	fail "split-runs" "$(head -3 "$TMP/err")"
fi
cmp -s "$TMP/split.out" "$G/tables/threads.out" && ok "split-prints-the-table" || fail "split-prints-the-table" "stdout differs"
(cd "$P/out" && ls -A) > "$TMP/files"
cat > "$TMP/want" <<'EOF'
100-app.folded
100-app.svg
101-worker.folded
101-worker.svg
102-.._.._x.folded
102-.._.._x.svg
103-a_b.folded
103-a_b.svg
104.folded
104.svg
105-worker.folded
105-worker.svg
106-_b___x_.folded
106-_b___x_.svg
108.folded
108.svg
index.html
EOF
cmp -s "$TMP/want" "$TMP/files" && ok "split-file-names" || fail "split-file-names" "$(diff "$TMP/want" "$TMP/files" | tr '\n' '|')"
(cd "$P" && find . -mindepth 1 | sort) > "$TMP/all"
sed 's|^|./out/|' "$TMP/want" | { echo ./out; cat; } | sort > "$TMP/want.all"
cmp -s "$TMP/want.all" "$TMP/all" && ok "split-nothing-outside-dir" || fail "split-nothing-outside-dir" "$(diff "$TMP/want.all" "$TMP/all" | tr '\n' '|')"
[ ! -e "$TMP/x" ] && [ ! -e "$TMP/x.folded" ] && [ ! -e "$P/x.folded" ] && ok "split-no-escape-by-dotdot" || fail "split-no-escape-by-dotdot" "a file named after '../../x' escaped"
bad=
for tid in 100 101 102 103 104 105 106 108; do
	f=$(cd "$P/out" && ls "$tid"[.-]*folded)
	"$REPORT" folded --tid "$tid" "$TR" | cmp -s - "$P/out/$f" || bad="$bad $f"
done
[ -z "$bad" ] && ok "split-folded-is-folded-tid" || fail "split-folded-is-folded-tid" "differ:$bad"
bad=
for f in "$P"/out/*.svg; do xmllint --noout "$f" 2> /dev/null || bad="$bad ${f##*/}"; done
[ -z "$bad" ] && ok "split-svgs-valid-xml" || fail "split-svgs-valid-xml" "invalid:$bad"
if [ -n "$UPDATE" ]; then
	cp "$P/out/index.html" "$G/tables/split-index.html"; ok "golden-split-index.html (updated)"
else
	cmp -s "$P/out/index.html" "$G/tables/split-index.html" && ok "golden-split-index.html" \
		|| fail "golden-split-index.html" "$(diff "$G/tables/split-index.html" "$P/out/index.html" | head -6 | tr '\n' '|')"
fi
# Every name is escaped: the markup name never appears raw.
if grep -qF "&lt;b&gt;&amp;&quot;x&apos;" "$P/out/index.html" && ! grep -qF "<b>" "$P/out/index.html"; then
	ok "split-index-escapes-names"
else
	fail "split-index-escapes-names" "'<b>&\"x'' not escaped"
fi
sed -n '/^<svg /,/^<\/svg>/p' "$P/out/index.html" > "$TMP/timeline.svg"
if [ -s "$TMP/timeline.svg" ] && xmllint --noout "$TMP/timeline.svg" 2> "$TMP/err"; then
	n=$(grep -c ' text-anchor="end">' "$TMP/timeline.svg")
	[ "$n" -eq 9 ] && ok "split-timeline-one-strip-per-thread" || fail "split-timeline-one-strip-per-thread" "$n strips for 9 threads"
else
	fail "split-timeline-one-strip-per-thread" "not valid XML: $(head -2 "$TMP/err")"
fi
grep -q 'fill="#3c9a50"><title>running, ' "$TMP/timeline.svg" && grep -q 'fill="#8fb3de"><title>waiting, ' "$TMP/timeline.svg" \
	&& ok "split-timeline-shows-running-and-waiting" || fail "split-timeline-shows-running-and-waiting" "no running or waiting spans"

# The timeline of marks.trace, with its marks and pauses (test_split_marks.sh
# checks what they show).
if ! "$REPORT" threads --split "$P/marks" "$G/marks.trace" > /dev/null 2> "$TMP/err" || [ -s "$TMP/err" ]; then
	fail "golden-split-marks-index.html" "threads --split: $(head -3 "$TMP/err")"
elif [ -n "$UPDATE" ]; then
	cp "$P/marks/index.html" "$G/tables/split-marks-index.html"; ok "golden-split-marks-index.html (updated)"
else
	cmp -s "$P/marks/index.html" "$G/tables/split-marks-index.html" && ok "golden-split-marks-index.html" \
		|| fail "golden-split-marks-index.html" "$(diff "$G/tables/split-marks-index.html" "$P/marks/index.html" | head -6 | tr '\n' '|')"
fi

# A directory that is not empty is refused and left as it was; an empty
# one is used; a run into the same directory again is refused.
mkdir -p "$P/full" && echo keep > "$P/full/notes"
"$REPORT" threads --split "$P/full" "$TR" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "'$P/full'.*not empty" "$TMP/err" && [ "$(ls -A "$P/full")" = notes ] && [ ! -s "$TMP/out" ]; then
	ok "split-refuses-non-empty-dir"
else
	fail "split-refuses-non-empty-dir" "exit $rc: $(cat "$TMP/err"); $(ls -A "$P/full" | tr '\n' ' ')"
fi
"$REPORT" threads --split "$P/out" "$TR" > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "split-refuses-second-run" || fail "split-refuses-second-run" "exit $rc"
mkdir -p "$P/empty"
"$REPORT" threads --split "$P/empty" "$TR" > /dev/null 2> "$TMP/err" && [ -s "$P/empty/index.html" ] \
	&& ok "split-uses-empty-dir" || fail "split-uses-empty-dir" "$(head -2 "$TMP/err")"
"$REPORT" threads --split "$P/no/such/dir" "$TR" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot create '$P/no/such/dir'" "$TMP/err" && ok "split-missing-parent-exit-1" \
	|| fail "split-missing-parent-exit-1" "exit $rc: $(cat "$TMP/err")"

# Filters apply to the split too: with --focus, threads without a match get
# no files, and each file is 'folded --focus --tid'.
"$REPORT" threads --split "$P/focus" --focus 'libg\.so' "$TR" > /dev/null 2> "$TMP/err"
(cd "$P/focus" 2> /dev/null && ls -A) | tr '\n' ' ' > "$TMP/files"
if [ "$(cat "$TMP/files")" = "101-worker.folded 101-worker.svg 102-.._.._x.folded 102-.._.._x.svg 103-a_b.folded 103-a_b.svg 108.folded 108.svg index.html " ] \
	&& "$REPORT" folded --focus 'libg\.so' --tid 101 "$TR" | cmp -s - "$P/focus/101-worker.folded"; then
	ok "split-applies-filters"
else
	fail "split-applies-filters" "$(cat "$TMP/files") $(head -2 "$TMP/err")"
fi

# Code no file holds (lib.sh's synth_code): by image, code ranges name
# [jit] and the rest is [anon], the //anon image's too; by function, the
# unnamed addresses of anonymous memory are one [anon] row, each its own
# with --addresses; info accounts for every sample whose leaf is there,
# says what would name it, counts the stack that ends in JIT code, and the
# node at 0x9010, whose samples see JS:*hot and then JS:*late, is split.
if [ -x "$BUILD/tests/tools/synth_trace" ] && synth_code "$TMP/code.trace"; then
	"$REPORT" top --group image "$TMP/code.trace" > "$TMP/code-image" 2>&1
	if [ "$(awk 'NR > 1 && NF == 5 { print $5, $3, $4 }' "$TMP/code-image" | tr '\n' ' ')" = "app 9 20 [jit] 6 7 [anon] 5 5 " ]; then
		ok "top-group-image-jit-and-anon"
	else
		fail "top-group-image-jit-and-anon" "$(tr '\n' '|' < "$TMP/code-image")"
	fi
	"$REPORT" top "$TMP/code.trace" > "$TMP/code-top" 2>&1
	"$REPORT" top --addresses "$TMP/code.trace" > "$TMP/code-top-addr" 2>&1
	if grep -q '^ 25\.0%   25\.0%          5          5  \[anon\]$' "$TMP/code-top" \
	   && ! grep -Eq '\[unknown\]\+0xa0|anon\+0x' "$TMP/code-top" \
	   && grep -q '          3          3  \[unknown\]+0xa010$' "$TMP/code-top-addr" \
	   && grep -q '  anon+0x7000010$' "$TMP/code-top-addr" && ! grep -q '\[anon\]' "$TMP/code-top-addr"; then
		ok "top-anon-addresses-one-row"
	else
		fail "top-anon-addresses-one-row" "$(tr '\n' '|' < "$TMP/code-top") --addresses: $(tr '\n' '|' < "$TMP/code-top-addr")"
	fi
	"$REPORT" info "$TMP/code.trace" > "$TMP/code-info" 2>&1
	if grep -q '^in no image:      11 of 20 samples (55\.0%) have their leaf in code no$' "$TMP/code-info" \
	   && grep -q '^  JIT code:       6 (30\.0%), named by the trace.s 3 code ranges$' "$TMP/code-info" \
	   && grep -q '^                  (2 from perf maps, 1 from jitdumps, 0 of the vDSO)$' "$TMP/code-info" \
	   && grep -q '^  anonymous:      5 (25\.0%), which nothing names$' "$TMP/code-info" \
	   && grep -A3 '^  to name it:' "$TMP/code-info" | grep -q -- '--perf-basic-prof' \
	   && grep -q '^stopped in JIT:   1 of 20 stacks end in code no file holds' "$TMP/code-info" \
	   && grep -q '^leaf scans:       0 of 0 walks' "$TMP/code-info" \
	   && grep -q '^  stack nodes split  1 ' "$TMP/code-info"; then
		ok "info-accounts-for-code-no-file-holds"
	else
		fail "info-accounts-for-code-no-file-holds" "$(sed -n '/^incomplete/,/^in the kernel/p' "$TMP/code-info" | tr '\n' '|')"
	fi
	# A trace whose leaves are all in files: one line, no hint.
	synth_paths "$TMP/paths.trace" 300 100
	"$REPORT" info "$TMP/paths.trace" > "$TMP/paths-info" 2>&1
	if grep -q '^in no image:      0 of 400 samples (0\.0%) have their leaf in code no$' "$TMP/paths-info" \
	   && ! grep -Eq '^  (JIT code|anonymous|to name it):' "$TMP/paths-info"; then
		ok "info-no-code-outside-files"
	else
		fail "info-no-code-outside-files" "$(grep -A4 '^in no image' "$TMP/paths-info" | tr '\n' '|')"
	fi
else
	skip "top-group-image-jit-and-anon" "no synth_trace tool in $BUILD/tests/tools"
fi

# top --group line names source lines, on a real recording with DWARF.
if ! why=$(ptrace_ok); then
	skip "top-group-line-recorded" "$why"
elif "$RECORD" -q -o "$TMP/s.trace" -- "$FIX/split" 1 > /dev/null 2>&1; then
	"$REPORT" top --group line "$TMP/s.trace" > "$TMP/lines"
	if grep -Eq '  path_a \(split\.c:[0-9]+\)$' "$TMP/lines" && head -1 "$TMP/lines" | grep -q ' LINE$'; then
		ok "top-group-line-recorded"
	else
		fail "top-group-line-recorded" "$(head -5 "$TMP/lines" | tr '\n' '|')"
	fi
else
	fail "top-group-line-recorded" "prof-record failed"
fi
exit 0
