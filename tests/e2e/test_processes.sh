#!/usr/bin/env bash
# End-to-end: the processes of a recording (format 2.0). A command that
# execs another program is one process with two programs: info lists both
# commands, each read when its exec was handled, and the samples after the
# exec are rooted at the new program's name, in cpu mode, in wall mode and
# with the ptrace sampler; the launch's own exec is not listed twice.
. "$(dirname "$0")/lib.sh"

# exec_case PREFIX OPTIONS...: sh -c 'exec split 0.3' recorded with OPTIONS.
exec_case() {
	local pre=$1 out
	shift
	if ! out=$("$RECORD" "$@" -q -f -o "$TMP/exec.trace" -- sh -c "exec $FIX/split 0.3" 2>&1 > /dev/null); then
		fail "$pre-exec-recorded" "$out"
		return
	fi
	"$REPORT" info "$TMP/exec.trace" > "$TMP/info" 2>&1
	execs=$(sed -n '/^processes:/,/^threads:/p' "$TMP/info" | grep -c '^    exec ')
	if [ "$execs" = 2 ] && grep -q "exec [0-9.]* s: \"sh\" \"-c\"" "$TMP/info" &&
	   grep -q "exec [0-9.]* s: \"$FIX/split\" \"0.3\"" "$TMP/info"; then
		ok "$pre-exec-info-lists-both-programs"
	else
		fail "$pre-exec-info-lists-both-programs" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/info" | tr '\n' '|')"
	fi
	"$REPORT" folded "$TMP/exec.trace" > "$TMP/f" 2>&1
	s=$(share "$TMP/f" '^split;.*;path_[ab];')
	if [ "$s" -ge 90 ]; then
		ok "$pre-exec-rooted-at-new-program (${s}% under split)"
	else
		fail "$pre-exec-rooted-at-new-program" "${s}% under split: $(sort -t' ' -k2 -nr "$TMP/f" | head -3 | tr '\n' '|')"
	fi
}

probe=$("$RECORD" -q -f -o "$TMP/probe.trace" -- true 2>&1)
if "$REPORT" info "$TMP/probe.trace" 2> /dev/null | grep -q '^sampler:    perf'; then
	exec_case cpu --mode cpu
	exec_case wall --mode wall
else
	skip "perf-exec" "the perf_event sampler is not allowed here: $probe"
fi
if why=$(ptrace_ok); then
	exec_case ptrace --sampler ptrace --mode wall
else
	skip "ptrace-exec" "$why"
fi

# --- a process tree: sh -c 'A; A; B', each child computing for 0.6 s. The
# two programs' shares of the running samples within 5 points of perf's
# on the same command, each rooted at its own name, with every sampler;
# info lists sh and its three children, each a child of sh. --no-inherit
# records sh alone.
tree_cmd="$FIX/split 0.6; $FIX/split 0.6; $FIX/shift 0.6 5"

# tree_case PREFIX OPTIONS...
tree_case() {
	local pre=$1 out a b pa pb
	shift
	if ! out=$("$RECORD" "$@" -q -f -o "$TMP/tree.trace" -- sh -c "$tree_cmd" 2>&1 > /dev/null); then
		fail "$pre-tree-recorded" "$out"
		return
	fi
	"$REPORT" info "$TMP/tree.trace" > "$TMP/tree.info" 2>&1
	"$REPORT" folded --state running "$TMP/tree.trace" > "$TMP/tree.folded" 2>&1
	a=$(share "$TMP/tree.folded" '^split;')
	b=$(share "$TMP/tree.folded" '^shift;')
	if grep -q '^processes: 4$' "$TMP/tree.info" && [ "$(grep -c '^    pid ' "$TMP/tree.info")" = 3 ] &&
	   [ "$(grep -c "^      exec [0-9.]* s: \"$FIX/split\" \"0.6\"$" "$TMP/tree.info")" = 2 ]; then
		ok "$pre-tree-info-lists-four-processes"
	else
		fail "$pre-tree-info-lists-four-processes" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/tree.info" | tr '\n' '|')"
	fi
	if [ -n "${perf_a:-}" ] && [ "$a" -ge $((perf_a - 5)) ] && [ "$a" -le $((perf_a + 5)) ] &&
	   [ "$b" -ge $((perf_b - 5)) ] && [ "$b" -le $((perf_b + 5)) ]; then
		ok "$pre-tree-shares-as-perf (split ${a}%, shift ${b}%; perf ${perf_a}%, ${perf_b}%)"
	elif [ -z "${perf_a:-}" ] && [ "$a" -ge 61 ] && [ "$a" -le 72 ] && [ "$b" -ge 28 ] && [ "$b" -le 39 ]; then
		ok "$pre-tree-shares-as-computed (split ${a}%, shift ${b}%; perf cannot record here: $perf_why)"
	else
		fail "$pre-tree-shares" "split ${a}%, shift ${b}%; perf ${perf_a:-none}%, ${perf_b:-none}%: $(sort -t' ' -k2 -nr "$TMP/tree.folded" | head -4 | tr '\n' '|')"
	fi
}

# perf's shares of the same command: its samples by command name.
perf_a= perf_b= perf_why=
if command -v perf > /dev/null 2>&1 &&
   perf_why=$(perf record -q -g -F 997 -o "$TMP/perf.data" -- sh -c "$tree_cmd" 2>&1 > /dev/null); then
	read -r perf_a perf_b < <(perf script -i "$TMP/perf.data" -F comm 2> /dev/null |
		awk '{ n++ } $1 == "split" { a++ } $1 == "shift" { b++ } END { if (n) printf "%d %d\n", a * 100 / n, b * 100 / n }')
else
	perf_why=${perf_why:-perf is not installed}
fi

if "$REPORT" info "$TMP/probe.trace" 2> /dev/null | grep -q '^sampler:    perf'; then
	tree_case cpu --mode cpu
	tree_case wall --mode wall
	"$RECORD" --no-inherit -q -f -o "$TMP/alone.trace" -- sh -c "$tree_cmd" > /dev/null 2>&1
	"$REPORT" info "$TMP/alone.trace" > "$TMP/alone.info" 2>&1
	"$REPORT" folded "$TMP/alone.trace" > "$TMP/alone.folded" 2>&1
	if grep -q '^processes: 1$' "$TMP/alone.info" && ! grep -q '^split;\|^shift;' "$TMP/alone.folded"; then
		ok "no-inherit-records-the-process-alone ($(awk '{ n += $NF } END { print n + 0 }' "$TMP/alone.folded") samples)"
	else
		fail "no-inherit-records-the-process-alone" "$(sed -n '/^processes:/,/^threads:/p' "$TMP/alone.info" | tr '\n' '|') $(head -3 "$TMP/alone.folded" | tr '\n' '|')"
	fi
else
	skip "perf-tree" "the perf_event sampler is not allowed here: $probe"
fi
if why=$(ptrace_ok); then
	tree_case ptrace --sampler ptrace --mode wall
else
	skip "ptrace-tree" "$why"
fi
