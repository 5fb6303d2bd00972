#!/usr/bin/env bash
# End-to-end: complete stacks where frame pointers fail, in both modes. The
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

# cases MODE SUFFIX: every case, recorded in MODE, named with SUFFIX.
cases() {
	local mode=$1 sfx=$2 rc p trunc total longest
	# --- a frameless leaf: its caller is in >= 99% of its samples
	"$RECORD" -q $(args "$mode") -o "$TMP/$mode-frameless.trace" -- "$FIX/frameless" 2 > /dev/null
	rc=$?
	"$REPORT" folded "$TMP/$mode-frameless.trace" > "$TMP/$mode-frameless.folded"
	p=$(among "$TMP/$mode-frameless.folded" ';frameless_leaf(\.[a-z0-9.]+)?$' ';run;frameless_caller;frameless_leaf')
	if [ $rc -eq 0 ] && [ "$p" -ge 99 ]; then
		ok "frameless-leaf-caller$sfx (${p}% of the leaf's samples)"
	else
		fail "frameless-leaf-caller$sfx" "exit $rc, ${p}% of the leaf's samples have frameless_caller (want >= 99): $(sort -t' ' -k2 -nr "$TMP/$mode-frameless.folded" | head -3)"
	fi

	# --- a comparator called from libc's qsort: >= 95% reach qsort's caller
	"$RECORD" -q $(args "$mode") -o "$TMP/$mode-qsort.trace" -- "$FIX/qsort_cmp" 2 > /dev/null
	rc=$?
	"$REPORT" folded "$TMP/$mode-qsort.trace" > "$TMP/$mode-qsort.folded"
	p=$(among "$TMP/$mode-qsort.folded" ';qsort_compare$' ';main;run;sort_keys;[^;]*qsort')
	if [ $rc -eq 0 ] && [ "$p" -ge 95 ]; then
		ok "qsort-comparator-reaches-caller$sfx (${p}% of the comparator's samples)"
	else
		fail "qsort-comparator-reaches-caller$sfx" "exit $rc, ${p}% reach main;run;sort_keys;qsort (want >= 95): $(grep -v sort_keys "$TMP/$mode-qsort.folded" | head -3)"
	fi

	# --- recursion 10,000 deep: cut at --max-depth, marked truncated, no hang
	timeout 60 "$RECORD" -q $(args "$mode") --max-depth 300 -o "$TMP/$mode-deep.trace" -- "$FIX/deep" 1 > /dev/null
	rc=$?
	"$REPORT" info "$TMP/$mode-deep.trace" > "$TMP/$mode-deep.info"
	trunc=$(awk '/^truncated stacks:/ { print $3 }' "$TMP/$mode-deep.info")
	total=$(awk '/^samples:/ { print $2 }' "$TMP/$mode-deep.info")
	"$REPORT" folded --no-inline "$TMP/$mode-deep.trace" > "$TMP/$mode-deep.folded"
	longest=$(awk '{ line = $0; sub(/ [0-9]+$/, "", line); sub(/;\[kernel\]$/, "", line); k = split(line, a, ";"); if (k > m) m = k } END { print m + 0 }' "$TMP/$mode-deep.folded")
	# The root frame is the process name: 300 addresses give 301 frames
	# (a sample in the kernel has a [kernel] leaf besides, not counted).
	if [ $rc -eq 0 ] && [ "${trunc:-0}" -gt 0 ] && [ $((trunc * 100)) -ge $((${total:-1} * 90)) ] && { [ "$longest" -eq 301 ] || { [ "$mode" != ptrace ] && [ "$mode" != "$ptrace_wall" ] && [ "$longest" -ge 100 ] && [ "$longest" -le 301 ]; }; }; then
		ok "deep-recursion-truncated$sfx ($trunc of $total stacks truncated, $longest frames)"
	else
		fail "deep-recursion-truncated$sfx" "exit $rc, truncated ${trunc:-?} of ${total:-?}, longest stack $longest frames (want 301)"
	fi

	# --- Rust with frame pointers calling libm's sin: sin's caller is present
	if [ ! -x "$FIX/rust/sinloop" ]; then
		skip "rust-sin-caller$sfx" "no rustc, so $FIX/rust/sinloop was not built"
	else
		"$RECORD" -q $(args "$mode") -o "$TMP/$mode-sin.trace" -- "$FIX/rust/sinloop" 2 > /dev/null
		rc=$?
		"$REPORT" folded "$TMP/$mode-sin.trace" > "$TMP/$mode-sin.folded"
		p=$(among "$TMP/$mode-sin.folded" ';__sin[a-z_]*(;|$)' ';sinloop::sin_caller;')
		if [ $rc -eq 0 ] && [ "$p" -ge 95 ]; then
			ok "rust-sin-caller$sfx (${p}% of sin's samples have sinloop::sin_caller)"
		else
			fail "rust-sin-caller$sfx" "exit $rc, ${p}% of sin's samples have sin_caller (want >= 95)"
		fi
	fi
}

# The perf_event sampler (cpu mode, and wall mode where the kernel allows
# kernel sampling) gets the same stacks from the registers and the copy of
# the stack the kernel takes, walked with the same CFI; its walk past that
# copy is the kernel's frame-pointer chain, which ends at
# kernel.perf_event_max_stack, so the deep recursion is cut there. The
# ptrace sampler reads the whole stack: wall mode is also run with it,
# forced, where wall mode's default is perf_event.
args() { if [ "$1" = ptrace ]; then echo "--mode wall --sampler ptrace"; else echo "--mode $1"; fi; }
ptrace_wall=wall   # the mode name that samples with ptrace
if "$RECORD" -q --mode wall --sampler perf -o "$TMP/probe-wall.trace" -- true > /dev/null 2>&1; then
	ptrace_wall=
	cases ptrace "-ptrace"
fi
cases wall ""
if out=$("$RECORD" -q --mode cpu -o "$TMP/probe.trace" -- true 2>&1); then
	cases cpu "-cpu"
else
	skip "stacks-cpu" "perf_event_open not permitted here: $(echo "$out" | head -1)"
fi
exit 0
