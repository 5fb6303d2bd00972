#!/usr/bin/env bash
# End-to-end: prof-record --control, on the split fixture attached with -p
# (its default mode and sampler), driven through a FIFO.
# - control-pause-no-samples: mark a, 1 s, pause, 1 s, resume, mark b,
#   1 s, stop: the paused second, as info lists it, has no samples;
# - control-marks-window: --from mark:a --to mark:b keeps about one second
#   (0.6 to 1.5 times the samples of the second after b);
# - control-stop-fast: stop ends the recorder within 0.5 s (2.5 s for a
#   sanitized build, whose exit scans for leaks);
# - control-target-runs: the attached target still runs after it;
# - control-cancel-removes: cancel leaves no trace file;
# - control-hostile-input: a 1 MB line, binary garbage and a writer that
#   closes and comes back: each refused or taken in turn (the first ten
#   refusals said), the recording goes on (no sample lost, and 40% of its
#   rate or more while the target shares the CPU with the writers), a
#   later mark and stop are heard;
# - control-paused-start: --paused samples nothing until resume.
# - events-order, events-progress, events-end-samples: a 2 s recording
#   with --events: start first, end last, at least 4 progress events with
#   samples never decreasing, end's samples those of info, every line
#   JSON (checked by python3's json, if there is one);
# - events-acks: an ack for each control command, ok or not;
# - events-epipe: a reader gone (EPIPE) does not stop the recording;
# - events-error-before-start: an error event with the exit code;
# - events-fd1-shared: --events fd:1 shares standard output with the
#   launched command, which keeps it;
# - events-full-reader: a reader whose pipe is full from the start: the
#   recording ends on time, with every mark and no sample lost;
# - events-fd-flags-kept: the host's descriptors are still blocking;
# - control-before-start-after-end: commands in the FIFO before the start
#   are carried out, and a writer going on after the end holds nothing;
# - events-fifo-unread: a FIFO with no reader is an error that says so;
# - events-warning-codes-documented: every warning code is in the man page.
# The first five again as tick-*, with the tick sampler (--sampler
# ptrace), which stops its clock for a pause where perf_event's kernel
# samples on and the recorder drops what it takes.
. "$(dirname "$0")/lib.sh"

if ! why=$(ptrace_ok attach); then
	skip "control" "$why"
	exit 0
fi

# count TRACE ARGS...: the samples folded keeps with ARGS (0 if none).
count() {
	local t=$1
	shift
	"$REPORT" folded "$@" "$t" 2> /dev/null | awk '{ n += $NF } END { print n + 0 }'
}
# The stop's bound: a sanitized recorder's exit runs LeakSanitizer's scan
# of its heap, which the wait counts (a second on a loaded machine).
case $BUILD in
*-san) stop_ms=2500 ;;
*) stop_ms=500 ;;
esac
# ms: monotonic-ish milliseconds.
ms() { echo $(($(date +%s%N) / 1000000)); }

"$FIX/split" 60 > /dev/null &
target=$!
trap 'kill $target 2> /dev/null; rm -rf "$TMP"' EXIT
sleep 0.2
mkfifo "$TMP/ctl"

# --- mark a, pause, resume, mark b, stop -------------------------------
# scenario ARGS...: the whole of it, recorded with ARGS.
scenario() {
	local rec rc t0 took p0 p1 n len ab after
	"$RECORD" -q -f "$@" --control "$TMP/ctl" -o "$TMP/c.trace" -p $target 2> "$TMP/c.err" &
	rec=$!
	exec 3<> "$TMP/ctl"
	sleep 0.3
	echo "mark a" >&3
	sleep 1
	echo pause >&3
	sleep 1
	echo resume >&3
	echo "mark b" >&3
	sleep 1
	t0=$(ms)
	echo stop >&3
	wait $rec
	rc=$?
	took=$(($(ms) - t0))
	exec 3>&-
	if [ $rc != 0 ] || [ ! -s "$TMP/c.trace" ]; then
		fail "control-recording" "exit $rc: $(tail -3 "$TMP/c.err")"
	else
		read -r p0 p1 < <("$REPORT" info "$TMP/c.trace" | awk '/^pauses:/ { getline; print $1, $4 }')
		if [ -z "${p0:-}" ]; then
			fail "control-pause-no-samples" "info lists no pause"
		else
			# info rounds to the ms: a ms inside at either end
			n=$(count "$TMP/c.trace" --from "$(awk -v t="$p0" 'BEGIN { print t + 0.001 }')" \
				--to "$(awk -v t="$p1" 'BEGIN { print t - 0.001 }')")
			len=$(awk -v a="$p0" -v b="$p1" 'BEGIN { printf "%.2f", b - a }')
			[ "$n" = 0 ] && awk -v l="$len" 'BEGIN { exit !(l > 0.8 && l < 1.5) }' \
				&& ok "control-pause-no-samples ($len s paused)" \
				|| fail "control-pause-no-samples" "$n samples in the $len s paused ($p0 to $p1)"
		fi
		ab=$(count "$TMP/c.trace" --from mark:a --to mark:b)
		after=$(count "$TMP/c.trace" --from mark:b)
		awk -v a="$ab" -v b="$after" 'BEGIN { exit !(b > 0 && a >= 0.6 * b && a <= 1.5 * b) }' \
			&& ok "control-marks-window ($ab samples from a to b, $after after b)" \
			|| fail "control-marks-window" "$ab samples from a to b against $after in the second after b"
		[ $took -le $stop_ms ] && ok "control-stop-fast ($took ms)" || fail "control-stop-fast" "stop took $took ms (at most $stop_ms)"
	fi
	kill -0 $target 2> /dev/null && ok "control-target-runs" || fail "control-target-runs" "the target is gone"
}
scenario
# The ptrace sampler's pause in the plain suite only: the sanitized one
# has covered the loop's pause with perf_event, at half a minute a suite.
case $BUILD in
*-san) skip "tick-control" "a sanitized build; the plain suite runs the ptrace sampler's pause" ;;
*) CASE_PREFIX=tick- scenario --mode wall --sampler ptrace ;;
esac
CASE_PREFIX=

# --- cancel ------------------------------------------------------------
"$RECORD" -q --control "$TMP/ctl" -o "$TMP/x.trace" -p $target 2> "$TMP/x.err" &
rec=$!
exec 3<> "$TMP/ctl"
sleep 0.5
echo cancel >&3
wait $rec
rc=$?
exec 3>&-
[ $rc = 0 ] && [ ! -e "$TMP/x.trace" ] && kill -0 $target 2> /dev/null && ok "control-cancel-removes" \
	|| fail "control-cancel-removes" "exit $rc, file $(ls "$TMP/x.trace" 2>&1): $(tail -2 "$TMP/x.err")"

# --- hostile input -----------------------------------------------------
"$RECORD" -q --control "$TMP/ctl" -o "$TMP/h.trace" -p $target 2> "$TMP/h.err" &
rec=$!
exec 3<> "$TMP/ctl"
sleep 0.3
echo "mark start" >&3
head -c 1048576 /dev/zero | tr '\0' 'x' >&3
echo >&3
head -c 65536 /dev/urandom >&3
echo >&3
exec 3>&-
sleep 0.3
exec 3<> "$TMP/ctl"
echo "mark end" >&3
sleep 0.5
echo stop >&3
wait $rec
rc=$?
exec 3>&-
n=$(count "$TMP/h.trace" --from mark:start --to mark:end)
secs=$("$REPORT" info "$TMP/h.trace" | awk '/^marks:/ { getline; a = $1; getline; print $1 - a }')
base=$(count "$TMP/c.trace" --from mark:b)
lost=$("$REPORT" info "$TMP/h.trace" | awk '$1 == "samples-lost" { print $2 }')
refused=$(grep -c "control command .* refused" "$TMP/h.err")
if [ $rc = 0 ] && [ "$refused" -ge 2 ] && [ "$refused" -le 10 ] && [ "$lost" = 0 ] &&
	awk -v n="$n" -v s="$secs" -v b="$base" 'BEGIN { exit !(s > 0 && n / s >= 0.4 * b) }'; then
	ok "control-hostile-input ($refused lines said refused, $n samples in $secs s, none lost)"
else
	fail "control-hostile-input" "exit $rc, $refused said refused, $n samples in $secs s (a second has $base), $lost lost: $(tail -2 "$TMP/h.err")"
fi

# --- --paused ----------------------------------------------------------
"$RECORD" -q --paused --control "$TMP/ctl" -o "$TMP/p.trace" -p $target 2> "$TMP/p.err" &
rec=$!
exec 3<> "$TMP/ctl"
sleep 0.5
echo "mark go" >&3
echo resume >&3
sleep 0.5
echo stop >&3
wait $rec
rc=$?
exec 3>&-
before=$(count "$TMP/p.trace" --to mark:go)
total=$(count "$TMP/p.trace")
[ $rc = 0 ] && [ "$before" = 0 ] && [ "$total" -gt 0 ] && ok "control-paused-start ($total samples after resume)" \
	|| fail "control-paused-start" "exit $rc, $before samples before resume, $total in all"

# --- events ------------------------------------------------------------
"$RECORD" -q -f --events "$TMP/ev" -o "$TMP/e.trace" -d 2 -p $target 2> "$TMP/e.err"
rc=$?
first=$(head -1 "$TMP/ev" | sed -n 's/^{"event":"\([a-z]*\)".*/\1/p')
last=$(tail -1 "$TMP/ev" | sed -n 's/^{"event":"\([a-z]*\)".*/\1/p')
[ $rc = 0 ] && [ "$first" = start ] && [ "$last" = end ] && ok "events-order" \
	|| fail "events-order" "exit $rc, first '$first', last '$last': $(tail -2 "$TMP/e.err")"
prog=$(grep '"event":"progress"' "$TMP/ev" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
np=$(echo "$prog" | grep -c .)
echo "$prog" | awk -v n="$np" 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit !(n >= 4 && !bad) }' \
	&& ok "events-progress ($np, samples never down)" || fail "events-progress" "$np progress events: $(echo $prog)"
endn=$(tail -1 "$TMP/ev" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
infon=$("$REPORT" info "$TMP/e.trace" | awk '/^samples:/ { print $2 }')
[ -n "$endn" ] && [ "$endn" = "$infon" ] && ok "events-end-samples ($endn)" \
	|| fail "events-end-samples" "end says '$endn', info '$infon'"
if command -v python3 > /dev/null; then
	python3 -c 'import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$TMP/ev" && ok "events-json" || fail "events-json" "a line is not JSON"
else
	skip "events-json" "python3 is not installed"
fi

"$RECORD" -q -f --events "$TMP/ev" --control "$TMP/ctl" -o "$TMP/a.trace" -p $target 2> /dev/null &
rec=$!
exec 3<> "$TMP/ctl"
sleep 0.3
printf 'pause\npause\nresume\nmark "q"\nwhat\nstop\n' >&3
wait $rec
exec 3>&-
acks=$(grep '"event":"ack"' "$TMP/ev" | sed 's/.*"command":"\([^"]*\)".*"ok":\([a-z]*\).*/\1=\2/' | tr '\n' ' ')
[ "$acks" = "pause=true pause=false resume=true mark=true what=false stop=true " ] && ok "events-acks" \
	|| fail "events-acks" "$acks"

"$RECORD" -f --events fd:3 -o "$TMP/p.trace" -d 1 -p $target 3>&1 2> "$TMP/p.err" | head -c 10 > /dev/null
rc=${PIPESTATUS[0]}
n=$(count "$TMP/p.trace")
[ $rc = 0 ] && [ "$n" -gt 100 ] && grep -q "wrote" "$TMP/p.err" && ok "events-epipe ($n samples)" \
	|| fail "events-epipe" "exit $rc, $n samples: $(tail -2 "$TMP/p.err")"

"$RECORD" -q --events "$TMP/ev" -o "$TMP/none/x.trace" -p $target 2> /dev/null
rc=$?
[ $rc = 1 ] && grep -q '^{"event":"error","schema":1,"message":"cannot create .*","exit_code":1}$' "$TMP/ev" \
	&& ok "events-error-before-start" || fail "events-error-before-start" "exit $rc: $(cat "$TMP/ev")"
# --- a host's descriptors -------------------------------------------------
# fd:1 is shared with the launched command, which keeps its standard output.
"$RECORD" -q -f --events fd:1 -o "$TMP/o.trace" -- sh -c 'head -c 2000000 /dev/zero' 2> "$TMP/o.err" > "$TMP/o.out"
rc=$?
n=$(tr -d '\000' < "$TMP/o.out" | grep -c '^{"event":')
bytes=$(tr -cd '\000' < "$TMP/o.out" | wc -c)
[ $rc = 0 ] && [ "$bytes" = 2000000 ] && [ "$n" -ge 2 ] && ok "events-fd1-shared ($n events beside the command's output)" \
	|| fail "events-fd1-shared" "exit $rc, $bytes bytes of the command's, $n events: $(tail -2 "$TMP/o.err")"

# A reader that never reads, whose pipe is full before the start, and a
# host descriptor's flags: the recording runs its second, keeps its 200
# marks and loses nothing; the host's pipe is still blocking after it.
got=$(python3 - "$RECORD" "$TMP" $target <<'PY' 2>&1
import fcntl, os, subprocess, sys, time
record, tmp, pid = sys.argv[1:]
er, ew = os.pipe()
cr, cw = os.pipe()
os.set_blocking(ew, False)
try:
    while True:
        os.write(ew, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(ew, True)
os.write(cw, b"mark m\n" * 200)
t0 = time.monotonic()
p = subprocess.run([record, "-q", "-f", "--events", "fd:%d" % ew, "--control", "fd:%d" % cr,
                    "-o", tmp + "/full.trace", "-d", "1", "-p", pid], pass_fds=(ew, cr),
                   stderr=subprocess.PIPE, timeout=30)
took = time.monotonic() - t0
print(p.returncode, "%.1f" % took, os.get_blocking(ew), os.get_blocking(cr))
PY
)
read -r rc took wblock rblock <<< "$got"
marks=$("$REPORT" info "$TMP/full.trace" 2> /dev/null | awk '/^marks:/ { print $2 }')
lost=$("$REPORT" info "$TMP/full.trace" 2> /dev/null | awk '$1 == "samples-lost" { print $2 }')
[ "$rc" = 0 ] && awk -v t="$took" 'BEGIN { exit !(t < 3) }' && [ "$marks" = 200 ] && [ "$lost" = 0 ] \
	&& ok "events-full-reader (ended in $took s, 200 marks, none lost)" \
	|| fail "events-full-reader" "'$got', $marks marks, $lost lost"
[ "$wblock $rblock" = "True True" ] && ok "events-fd-flags-kept" || fail "events-fd-flags-kept" "'$got'"

# --- before the start and after the end -----------------------------------
# Commands waiting in the FIFO before prof-record opens it are carried out
# at the start; a writer that goes on after the end holds nothing up.
exec 3<> "$TMP/ctl"
printf 'mark early\npause\nresume\n' >&3
( while sleep 0.05; do echo "mark late" >&3 || break; done ) 2> /dev/null &
writer=$!
t0=$(ms)
"$RECORD" -q -f --control "$TMP/ctl" -o "$TMP/s.trace" -- "$FIX/split" 0.5 > /dev/null 2> "$TMP/s.err"
rc=$?
took=$(($(ms) - t0))
sleep 0.2
kill -0 $writer 2> /dev/null && alive=yes || alive=no
kill $writer 2> /dev/null
exec 3>&-
first=$("$REPORT" info "$TMP/s.trace" 2> /dev/null | awk '/^marks:/ { getline; print $3, $4 }')
[ $rc = 0 ] && [ "$first" = '"early" (control)' ] && [ $took -lt 5000 ] && [ $alive = yes ] \
	&& ok "control-before-start-after-end (first mark $first, ended in $took ms)" \
	|| fail "control-before-start-after-end" "exit $rc, first mark '$first', $took ms, writer alive: $alive: $(tail -2 "$TMP/s.err")"
mkfifo "$TMP/evf"
"$RECORD" -q --events "$TMP/evf" -o "$TMP/f.trace" -- true 2> "$TMP/f.err"
rc=$?
[ $rc = 1 ] && grep -q "a FIFO nobody reads (open it for reading first)" "$TMP/f.err" && [ ! -e "$TMP/f.trace" ] \
	&& ok "events-fifo-unread" || fail "events-fifo-unread" "exit $rc: $(cat "$TMP/f.err")"

# Every code a warning event can carry is in prof-record(1)'s list.
codes=$(cat "$TOP"/record/*.c "$TOP"/common/*.c | sed -n 's/.*warning_code("\([a-z-]*\)".*/\1/p' | sort -u)
missing=$(for c in $codes; do grep -q -- "$c" "$TOP/man/prof-record.1" || echo "$c"; done)
[ -n "$codes" ] && [ -z "$missing" ] && ok "events-warning-codes-documented ($(echo $codes | wc -w))" \
	|| fail "events-warning-codes-documented" "not in man/prof-record.1: $missing"
exit 0
