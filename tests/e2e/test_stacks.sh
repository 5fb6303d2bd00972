#!/usr/bin/env bash
# End-to-end: complete stacks where frame pointers fail, in wall mode. The
# .eh_frame CFI must find the caller of a frameless leaf, walk through
# libc's qsort and libm's sin (built without frame pointers), and a very
# deep recursion must be cut at --max-depth and marked truncated.
. "$(dirname "$0")/lib.sh"

if ! why=$(ptrace_ok); then
	skip "stacks" "$why"
	exit 0
fi

# among FOLDED WITH PAT: percent (integer) of the samples matching the
# regex WITH that also match PAT; -1 if none match WITH.
among() {
	awk -v with="$2" -v pat="$3" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line);
	       if (line ~ with) { total += n; if (line ~ pat) hit += n } }
	     END { if (total == 0) print -1; else printf "%d\n", hit * 100 / total }' "$1"
}

# --- a frameless leaf: its caller is in >= 99% of its samples
"$RECORD" -q --mode wall -o "$TMP/frameless.trace" -- "$FIX/frameless" 2 > /dev/null
rc=$?
"$REPORT" folded "$TMP/frameless.trace" > "$TMP/frameless.folded"
p=$(among "$TMP/frameless.folded" ';frameless_leaf(\.[a-z0-9.]+)?$' ';run;frameless_caller;frameless_leaf')
if [ $rc -eq 0 ] && [ "$p" -ge 99 ]; then
	ok "frameless-leaf-caller (${p}% of the leaf's samples)"
else
	fail "frameless-leaf-caller" "exit $rc, ${p}% of the leaf's samples have frameless_caller (want >= 99): $(sort -t' ' -k2 -nr "$TMP/frameless.folded" | head -3)"
fi

# --- a comparator called from libc's qsort: >= 95% reach qsort's caller
"$RECORD" -q --mode wall -o "$TMP/qsort.trace" -- "$FIX/qsort_cmp" 2 > /dev/null
rc=$?
"$REPORT" folded "$TMP/qsort.trace" > "$TMP/qsort.folded"
p=$(among "$TMP/qsort.folded" ';qsort_compare$' ';main;run;sort_keys;[^;]*qsort')
if [ $rc -eq 0 ] && [ "$p" -ge 95 ]; then
	ok "qsort-comparator-reaches-caller (${p}% of the comparator's samples)"
else
	fail "qsort-comparator-reaches-caller" "exit $rc, ${p}% reach main;run;sort_keys;qsort (want >= 95): $(grep -v sort_keys "$TMP/qsort.folded" | head -3)"
fi

# --- recursion 10,000 deep: cut at --max-depth, marked truncated, no hang
timeout 60 "$RECORD" -q --mode wall --max-depth 300 -o "$TMP/deep.trace" -- "$FIX/deep" 1 > /dev/null
rc=$?
"$REPORT" info "$TMP/deep.trace" > "$TMP/deep.info"
trunc=$(awk '/^truncated stacks:/ { print $3 }' "$TMP/deep.info")
total=$(awk '/^samples:/ { print $2 }' "$TMP/deep.info")
"$REPORT" folded --no-inline "$TMP/deep.trace" > "$TMP/deep.folded"
longest=$(awk '{ line = $0; sub(/ [0-9]+$/, "", line); k = split(line, a, ";"); if (k > m) m = k } END { print m + 0 }' "$TMP/deep.folded")
# The root frame is the process name: 300 addresses give 301 frames.
if [ $rc -eq 0 ] && [ "${trunc:-0}" -gt 0 ] && [ $((trunc * 100)) -ge $((${total:-1} * 90)) ] && [ "$longest" -eq 301 ]; then
	ok "deep-recursion-truncated ($trunc of $total stacks truncated, $longest frames)"
else
	fail "deep-recursion-truncated" "exit $rc, truncated ${trunc:-?} of ${total:-?}, longest stack $longest frames (want 301)"
fi

# --- Rust with frame pointers calling libm's sin: sin's caller is present
if [ ! -x "$FIX/rust/sinloop" ]; then
	skip "rust-sin-caller" "no rustc, so $FIX/rust/sinloop was not built"
else
	"$RECORD" -q --mode wall -o "$TMP/sin.trace" -- "$FIX/rust/sinloop" 2 > /dev/null
	rc=$?
	"$REPORT" folded "$TMP/sin.trace" > "$TMP/sin.folded"
	p=$(among "$TMP/sin.folded" ';__sin[a-z_]*(;|$)' ';sinloop::sin_caller;')
	if [ $rc -eq 0 ] && [ "$p" -ge 95 ]; then
		ok "rust-sin-caller (${p}% of sin's samples have sinloop::sin_caller)"
	else
		fail "rust-sin-caller" "exit $rc, ${p}% of sin's samples have sin_caller (want >= 95)"
	fi
fi
