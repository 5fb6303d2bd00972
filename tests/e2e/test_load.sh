#!/usr/bin/env bash
# End-to-end: the perf_event engine under load, on the benchmark's own
# workloads. switch50 is a server whose fifty workers and client hand the
# CPU to each other over 10,000 times a second; busy is a process of
# hundreds of threads that keep both CPUs busy. Wall mode must keep every
# tick of the switching server (at most 0.5% of the ticks due lost) with
# whole stacks; attached to 500 busy threads, both modes must see every
# thread and lose at most 1%. The rate achieved, the recorder's priority,
# and a rate the kernel did not give are said. Counts, not timings: the
# benchmark (make bench) times the same runs.
. "$(dirname "$0")/lib.sh"

W=$BUILD/bench
out=$("$RECORD" -q -f --mode wall -o "$TMP/probe.trace" -- true 2>&1)
if ! echo "$out$("$REPORT" info "$TMP/probe.trace" 2> /dev/null)" | grep -q '^sampler:    perf'; then
	skip "load" "wall mode with perf_event needs kernel sampling rights here: $(echo "$out" | head -1)"
	exit 0
fi
# What this test asserts is the engine's rate and losses under load. A
# sanitized recorder spends several times as long on each sample, so
# there they measure AddressSanitizer's cost (one run of .ci/run lost
# 1.4% of the switching server's ticks): the sanitized suite leaves the
# test to the plain one, whose recorder is the one users run.
case $BUILD in *-san)
	skip "load" "a sanitized build; the plain suite measures the engine under load"
	exit 0 ;;
esac
MANY=500 KEPT=0.995

# info_rate TRACE: "SAMPLES SECONDS" of info's rate line (samples over the
# thread or CPU time), or nothing.
info_rate() { "$REPORT" info "$1" | sed -n 's/^rate: .*achieved (\([0-9]*\) samples over \([0-9.]*\) s of .*/\1 \2/p'; }
counter() { "$REPORT" info "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
# at_least A B FRACTION: whether A >= B * FRACTION.
at_least() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a >= b * f) }'; }

# --- the switching server, launched, wall mode: the ticks due are the
# threads' time alive at 997 Hz; every one is a sample, or a loss counted
# (at most 0.5% of them: 1 - KEPT), and every worker's blocked stack is
# whole: it reaches start_thread (in worker, or in the thread's exit, where
# glibc gives back its stack with madvise).
"$RECORD" -q -f --mode wall -o "$TMP/sw.trace" -- "$W/switch50" 2 > "$TMP/sw.out" 2> "$TMP/sw.err"
read -r n secs <<< "$(info_rate "$TMP/sw.trace")"
due=$(awk -v s="${secs:-0}" 'BEGIN { printf "%d", s * 997 }')
lost=$(counter "$TMP/sw.trace" samples-lost)
if [ -n "${n:-}" ] && at_least "$n" "$due" $KEPT && at_least "$due" "${lost:-1}" "$(awk -v k=$KEPT 'BEGIN { print 1 / (1 - k) }')"; then
	ok "load-switching-wall-ticks-kept ($n samples of $due due, $lost lost; $(cat "$TMP/sw.out"))"
else
	fail "load-switching-wall-ticks-kept" "$n samples of $due due, $lost lost: $(cat "$TMP/sw.err")"
fi
"$REPORT" folded --state idle --thread server-worker "$TMP/sw.trace" > "$TMP/sw.folded"
whole=$(share "$TMP/sw.folded" ';start_thread;')
all=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/sw.folded")
[ "$all" -gt 10000 ] && [ "$whole" = 100 ] && ok "load-switching-blocked-stacks-whole ($all waiting samples)" \
	|| fail "load-switching-blocked-stacks-whole" "$whole% of $all waiting samples of the workers reach start_thread: $(sort -t' ' -k2 -nr "$TMP/sw.folded" | grep -v ';start_thread;' | head -3)"

# --- attached to MANY busy threads, each mode: every thread of the
# process is in the trace, and at most 1% of the samples due are lost (in
# wall mode the ticks of every thread's life; in cpu mode the samples the
# kernel took, lost ones included). A sanitized recorder is two to three
# times slower at reading each stack: there wall mode may miss 3% (98.7%
# was kept in one run of the sanitized suite, under the 99% that the plain
# recorder holds).
# Every command started while they run waits for a CPU too (a second or
# so each): the recordings are made first, the reports after.
"$W/busy" -j $MANY > "$TMP/busy.out" &
busy=$!
for i in $(seq 100); do grep -q ready "$TMP/busy.out" && break; sleep 0.1; done
tasks=$(ls /proc/$busy/task | wc -l)
for mode in cpu wall; do
	"$RECORD" -q -f --mode $mode -d 2 -o "$TMP/busy-$mode.trace" -p $busy 2> "$TMP/busy-$mode.err"
done
kill -9 $busy 2> /dev/null
wait $busy 2> /dev/null
keep=0.99
case $BUILD in *-san) keep=0.97 ;; esac
for mode in cpu wall; do
	seen=$("$REPORT" info "$TMP/busy-$mode.trace" | sed -n 's/^threads: //p')
	read -r n secs <<< "$(info_rate "$TMP/busy-$mode.trace")"
	lost=$(counter "$TMP/busy-$mode.trace" samples-lost)
	if [ $mode = wall ]; then
		due=$(awk -v s="${secs:-0}" 'BEGIN { printf "%d", s * 997 }')
		good=$(at_least "${n:-0}" "$due" "$keep" && echo 1)
	else
		due=$((${n:-0} + ${lost:-0}))
		good=$([ "${lost:-1}" -le $((due / 100)) ] && [ "${n:-0}" -gt 0 ] && echo 1)
	fi
	[ "$seen" = "$tasks" ] && [ -n "$good" ] \
		&& ok "load-many-attached-$mode ($seen threads of $tasks, $n samples of $due due, $lost lost)" \
		|| fail "load-many-attached-$mode" "$seen threads of $tasks, $n samples of $due due, $lost lost: $(head -3 "$TMP/busy-$mode.err")"
done

# --- without the rights to sample whole CPUs (another user, paranoid 2):
# each thread's events, opened a batch at a time while the others are
# sampled: every thread is still in the trace.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	NB=$TMP/nobody
	mkdir "$NB" && chmod 711 "$TMP" && chmod 777 "$NB"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$W/busy" -j 200 > "$NB/busy.out" &
	busy=$!
	for i in $(seq 100); do grep -q ready "$NB/busy.out" && break; sleep 0.1; done
	tasks=$(ls /proc/$busy/task | wc -l)
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RECORD" -q --mode cpu -d 1 -o "$NB/nb.trace" -p $busy 2> "$NB/nb.err"
	kill -9 $busy 2> /dev/null
	wait $busy 2> /dev/null
	seen=$("$REPORT" info "$NB/nb.trace" 2> /dev/null | sed -n 's/^threads: //p')
	prio=$("$REPORT" info "$NB/nb.trace" 2> /dev/null | sed -n 's/^recorder: *//p')
	[ "$seen" = "$tasks" ] && ok "load-many-attached-per-thread-events ($seen threads of $tasks)" \
		|| fail "load-many-attached-per-thread-events" "$seen threads of $tasks: $(head -3 "$NB/nb.err")"
	[ "$prio" = "normal priority (real-time priority 1 was refused)" ] \
		&& ok "priority-refused-recorded" || fail "priority-refused-recorded" "info says '$prio'"
else
	skip "load-many-attached-per-thread-events" "needs root, setpriv and kernel.perf_event_paranoid 1 or more to record as a user who cannot sample whole CPUs"
	skip "priority-refused-recorded" "needs root and setpriv to record as a user who cannot take real-time priority"
fi

# --- the recorder's priority, in the trace: real-time 1 by default where
# allowed (root here), normal with --realtime 0; out of range is bad usage.
if [ "$(id -u)" = 0 ]; then
	prio=$("$REPORT" info "$TMP/sw.trace" | sed -n 's/^recorder: *//p')
	[ "$prio" = "real-time priority 1" ] && ok "priority-realtime-by-default" \
		|| fail "priority-realtime-by-default" "info says '$prio'"
else
	skip "priority-realtime-by-default" "needs root (or CAP_SYS_NICE) for real-time priority"
fi
"$RECORD" -q -f --realtime 0 -o "$TMP/n.trace" -- true
prio=$("$REPORT" info "$TMP/n.trace" | sed -n 's/^recorder: *//p')
[ "$prio" = "normal priority" ] && ok "priority-normal-asked" || fail "priority-normal-asked" "info says '$prio'"
"$RECORD" -q -f --realtime 100 -o "$TMP/n.trace" -- true 2> "$TMP/rt.err"; rc=$?
[ $rc = 2 ] && grep -q "'--realtime'" "$TMP/rt.err" && ok "priority-out-of-range-refused" \
	|| fail "priority-out-of-range-refused" "exit $rc: $(cat "$TMP/rt.err")"

# --- the rate achieved: the switching server's, in info, as asked; a rate
# the kernel did not give (100 kHz of cpu-clock on two busy threads, where
# each sample takes about as long as the period) is said by the summary
# and by info, with what held it back and the fix.
if "$REPORT" info "$TMP/sw.trace" | grep -q '^held back:'; then
	fail "rate-achieved-as-asked" "$("$REPORT" info "$TMP/sw.trace" | grep -A1 '^rate:')"
else
	ok "rate-achieved-as-asked ($("$REPORT" info "$TMP/sw.trace" | sed -n 's/^rate: *//p'))"
fi
"$RECORD" -q -f --mode cpu -F 100000 -o "$TMP/hf.trace" -- "$W/threads8" -n 300 -j 2 > /dev/null 2> "$TMP/hf.err"
read -r n secs <<< "$(info_rate "$TMP/hf.trace")"
if [ -n "${n:-}" ] && at_least "$n" "$secs" 90000; then
	skip "rate-short-said" "this kernel gave 100 kHz ($n samples over $secs s of CPU)"
elif grep -q 'warning: sampled at [0-9]* Hz of the 100000 Hz asked: .*lower -F' "$TMP/hf.err" &&
     "$REPORT" info "$TMP/hf.trace" | grep -q '^held back:  .*lower -F'; then
	ok "rate-short-said ($(sed -n 's/.*warning: \(sampled at [0-9]* Hz\).*/\1/p' "$TMP/hf.err"))"
else
	fail "rate-short-said" "$n samples over $secs s; stderr: $(cat "$TMP/hf.err"); info: $("$REPORT" info "$TMP/hf.trace" | grep -A1 '^rate:')"
fi
