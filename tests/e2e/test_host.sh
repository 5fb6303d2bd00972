#!/usr/bin/env bash
# End-to-end: examples/host.py, the example host, drives the real
# prof-record through --events and --control on the split fixture.
# - host-launch: `-- split` with --seconds 1 and two --mark, exit 0;
# - host-launch-progress: stderr is no terminal, so a line per progress
#   event: at least 2 in the second;
# - host-launch-table: the table by total names path_a and path_b;
# - host-launch-marks: info lists both marks the host sent;
# - host-attach, host-attach-target-runs: -p on a running split for a
#   second, its table, and the target still runs afterwards;
# - host-error: -o into a missing folder: prof-record's error event,
#   said by the host, which exits 1;
# - host-recorder-killed: prof-record SIGKILLed past its first flush: the host
#   says there was no end event, exits 1, and still reports the trace.
. "$(dirname "$0")/lib.sh"

HOST=$TOP/examples/host.py
case $BUILD in *-san)
	# .ci/run's sanitized suite: host.py drives the recorder as
	# test_control.sh does, which runs there; the plain suite runs this.
	skip "host" "a sanitized build; test_control covers its recorder paths"
	exit 0 ;;
esac
if ! command -v python3 > /dev/null; then
	skip "host" "python3 is not installed"
	exit 0
fi
if ! why=$(ptrace_ok); then
	skip "host" "$why"
	exit 0
fi
host() { python3 "$HOST" --prof-bin "${RECORD%/*}" "$@"; }
pids=""
trap 'kill $pids 2> /dev/null; rm -rf "$TMP"' EXIT
# launched ERRFILE: the pid of the command host.py says it launched.
launched() { sed -n 's/^host.py: launched \([0-9]*\),.*/\1/p' "$1"; }

# --- launch ------------------------------------------------------------
host --seconds 1 --mark one@0.3 --mark two@0.6 --sort total -n 12 -o "$TMP/l.trace" \
	-- "$FIX/split" 5 > "$TMP/l.out" 2> "$TMP/l.err" < /dev/null
rc=$?
pids="$pids $(launched "$TMP/l.err")" # a stopped command runs on
[ $rc = 0 ] && grep -q "(stop)$" "$TMP/l.err" && ok "host-launch" \
	|| fail "host-launch" "exit $rc: $(tail -3 "$TMP/l.err")"
n=$(grep -c '^host.py: [0-9.]* s, [0-9]* samples, [0-9]* lost$' "$TMP/l.err")
[ "$n" -ge 2 ] && ok "host-launch-progress ($n lines)" || fail "host-launch-progress" "$n progress lines"
grep -q ' path_a$' "$TMP/l.out" && grep -q ' path_b$' "$TMP/l.out" && ok "host-launch-table" \
	|| fail "host-launch-table" "$(head -14 "$TMP/l.out")"
marks=$("$REPORT" info "$TMP/l.trace" 2> /dev/null | grep -c '"\(one\|two\)" (control)')
[ "$marks" = 2 ] && ok "host-launch-marks" || fail "host-launch-marks" "info lists $marks of the 2 marks"

# --- attach ------------------------------------------------------------
if why=$(ptrace_ok attach); then
	"$FIX/split" 30 > /dev/null &
	target=$!
	pids="$pids $target"
	sleep 0.2
	host -p $target --seconds 1 --sort total -n 12 -o "$TMP/a.trace" > "$TMP/a.out" 2> "$TMP/a.err" < /dev/null
	rc=$?
	[ $rc = 0 ] && grep -q "^host.py: attached to $target," "$TMP/a.err" && grep -q ' path_a$' "$TMP/a.out" \
		&& ok "host-attach" || fail "host-attach" "exit $rc: $(tail -3 "$TMP/a.err")"
	sleep 0.1
	kill -0 $target 2> /dev/null && ok "host-attach-target-runs" \
		|| fail "host-attach-target-runs" "the target is gone"
else
	skip "host-attach" "$why"
fi

# --- an error before the start -----------------------------------------
host -o "$TMP/none/x.trace" -- "$FIX/split" 1 > /dev/null 2> "$TMP/e.err" < /dev/null
rc=$?
[ $rc = 1 ] && grep -q "^host.py: cannot create '.*none/x.trace': No such file or directory$" "$TMP/e.err" \
	&& ok "host-error" || fail "host-error" "exit $rc: $(cat "$TMP/e.err")"

# --- prof-record killed ------------------------------------------------
if ! command -v pgrep > /dev/null; then
	skip "host-recorder-killed" "needs pgrep (Debian package procps)"
else
	python3 "$HOST" --prof-bin "${RECORD%/*}" -o "$TMP/k.trace" -- "$FIX/split" 3 \
		> "$TMP/k.out" 2> "$TMP/k.err" < /dev/null &
	h=$!
	# Past its first flush (at most a second in): five progress lines.
	for _ in $(seq 50); do
		[ "$(grep -c ' samples, ' "$TMP/k.err")" -ge 5 ] && break
		sleep 0.1
	done
	kill -9 $(pgrep -P $h -x prof-record) 2> /dev/null
	wait $h
	rc=$?
	pids="$pids $(launched "$TMP/k.err")"
	[ $rc = 1 ] && grep -q "^host.py: prof-record ended without an end event (killed by signal 9)$" "$TMP/k.err" \
		&& grep -q ' fixture_spin$' "$TMP/k.out" && ok "host-recorder-killed" \
		|| fail "host-recorder-killed" "exit $rc: $(tail -2 "$TMP/k.err"; head -3 "$TMP/k.out")"
fi
exit 0
