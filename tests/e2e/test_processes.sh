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
