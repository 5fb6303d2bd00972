#!/usr/bin/env bash
# End-to-end: prof-record's failures before the recording starts, and what
# each leaves at -o, by the one rule of session_run() (record/session.c,
# prof-record.1): a start that fails leaves no file it created, and an
# existing file (-f) as it was unless the failure came after the session
# was written (the command's exec, or that write itself); once the
# recording has started, a failure keeps the trace. Each case also checks
# the exit status and the message, and, in a sanitized build
# (BUILD=build-san BIN=build-san/), that no sanitizer spoke: a leak on a
# failure's path fails the case, since every path now returns through
# session_run's one cleanup.
. "$(dirname "$0")/lib.sh"

if ! why=$(ptrace_ok); then
	skip "start" "$why"
	exit 0
fi
OUT=$TMP/x.trace

# rec ARGS...: runs prof-record, its stdout and stderr into $TMP/err through
# a pipe (the cases under RLIMIT_FSIZE do the same by hand: the limit must
# not reach the file); sets rc.
rec() {
	"$RECORD" "$@" 2>&1 | cat > "$TMP/err"
	rc=${PIPESTATUS[0]}
}
# old_file: puts a file at $OUT that a failed start must leave as it was.
old_file() {
	rm -f "$OUT"
	echo "old trace" > "$OUT"
	chmod 644 "$OUT"
}
# expect NAME RC MESSAGE STATE: the last rec exited RC and said MESSAGE,
# no sanitizer reported anything, and $OUT is as STATE says: "absent",
# "old" (old_file's, content and mode 0644 whole) or "trace" (a trace
# prof-report reads). $OUT is removed afterwards.
expect() {
	local name=$1 want=$2 msg=$3 state=$4 bad=
	[ "$rc" = "$want" ] || bad="exit $rc, want $want"
	[ -z "$msg" ] || grep -qF -- "$msg" "$TMP/err" || bad="$bad; no '$msg'"
	grep -q 'Sanitizer\|runtime error' "$TMP/err" \
		&& bad="$bad; sanitizer: $(grep -m1 'Sanitizer\|runtime error' "$TMP/err")"
	case $state in
	absent)
		[ -e "$OUT" ] && bad="$bad; the file was left ($(stat -c %s "$OUT") bytes)" ;;
	old)
		if [ ! -e "$OUT" ]; then
			bad="$bad; the existing file was removed"
		elif [ "$(cat "$OUT")" != "old trace" ] || [ "$(stat -c %a "$OUT")" != 644 ]; then
			bad="$bad; the existing file was changed ($(stat -c '%s bytes, mode %a' "$OUT"))"
		fi ;;
	trace)
		"$REPORT" info "$OUT" > /dev/null 2>&1 || bad="$bad; no readable trace left" ;;
	esac
	if [ -z "$bad" ]; then ok "$name"; else fail "$name" "${bad#; }: $(head -c 300 "$TMP/err")"; fi
	rm -f "$OUT"
}

# --- the output cannot be opened: nothing touched, nothing made
rec -q -o "$TMP/no/dir/x.trace" -- true
OUT=$TMP/no/dir/x.trace expect start-output-dir-missing 1 "cannot create '$TMP/no/dir/x.trace'" absent
[ ! -e "$TMP/no" ] && ok "start-output-dir-not-made" || fail "start-output-dir-not-made" "$(ls -la "$TMP/no")"
old_file
rec -q -o "$OUT" -- true
expect start-existing-file-without-f 1 "use -f to overwrite it" old

# --- the command cannot be run (its exec fails: 127 not found, 126
# otherwise): after the session was written, so the file is removed, an
# existing one (-f) too
rec -q -o "$OUT" -- "$TMP/no-such-command"
expect start-exec-not-found 127 "cannot run '$TMP/no-such-command'" absent
printf 'not a program\n' > "$TMP/not-executable"
chmod 644 "$TMP/not-executable"
rec -q -o "$OUT" -- "$TMP/not-executable"
expect start-exec-not-executable 126 "cannot run '$TMP/not-executable': Permission denied" absent
old_file
rec -q -f -o "$OUT" -- "$TMP/no-such-command"
expect start-exec-not-found-f 127 "cannot run" absent

# --- the session cannot be written (trace_writer_new fails): the file
# created for it is removed, and the command never runs
rm -f "$TMP/ran"
(ulimit -f 0; exec "$RECORD" -q -o "$OUT" -- touch "$TMP/ran") 2>&1 | cat > "$TMP/err"
rc=${PIPESTATUS[0]}
expect start-session-write-fails-file-size-limit 1 "cannot write '$OUT': File too large" absent
[ ! -e "$TMP/ran" ] && ok "start-session-write-fails-command-not-run" \
	|| fail "start-session-write-fails-command-not-run" "the command ran"
# More arguments than a trace records (TRACE_MAX_ARGS, 4096).
rec -q -o "$OUT" -- true $(seq 5000)
expect start-session-write-fails-too-many-args 1 "cannot write '$OUT'" absent

# --- no process to attach to, or not its thread: before the session, so
# an existing file (-f) is left as it was
rec -q -o "$OUT" -p 999999999
expect start-no-such-process 1 "no such process" absent
old_file
rec -q -f -o "$OUT" -p 999999999
expect start-no-such-process-f 1 "no such process" old
if why=$(ptrace_ok attach); then
	sleep 30 &
	pid=$!
	rec -q -o "$OUT" -p $pid -t 1
	expect start-not-a-thread 1 "option '-t': 1 is not a thread of process $pid" absent
	old_file
	rec -q -f -o "$OUT" -p $pid -t 1
	expect start-not-a-thread-f 1 "is not a thread" old
	kill $pid
	wait $pid 2> /dev/null
else
	skip "start-not-a-thread" "$why"
fi

# --- the launch fails after the fork, for a reason other than the exec:
# the go-ahead to the held child cannot be written. strace makes that
# write (the recorder's second, after the session's, with -q and the
# ptrace sampler) fail with EPIPE, as a child killed before it would. A
# traced recorder cannot run LeakSanitizer: leaks are not looked for here.
if command -v strace > /dev/null 2>&1; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -o /dev/null -e trace=write -e inject=write:error=EPIPE:when=2 \
		"$RECORD" -q --mode wall --sampler ptrace -o "$OUT" -- true 2>&1 | cat > "$TMP/err"
	rc=${PIPESTATUS[0]}
	expect start-launch-fails-after-fork 1 "cannot launch 'true': Broken pipe" absent
else
	skip "start-launch-fails-after-fork" "strace is not installed"
fi

# --- once the recording has started, a failure keeps the trace: the file
# size limit reached after the session (8 KiB, within a second at 9973 Hz)
(ulimit -f 8; exec "$RECORD" -q -F 9973 -o "$OUT" -- "$FIX/split" 1 2>&1 > /dev/null) | cat > "$TMP/err"
rc=${PIPESTATUS[0]}
expect started-write-fails-trace-kept 1 "what was written is kept" trace

# --- and a recording that succeeds is kept, of course
rec -q -o "$OUT" -- true
expect started-and-finished 0 "" trace
