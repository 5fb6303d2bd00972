#!/usr/bin/env bash
# End-to-end: long recordings, on the threads fixture (two busy threads,
# two idle), in wall mode, where every thread is sampled each tick so
# recordings run side by side still hold the same samples.
# - rotate-files: --switch-output 1s over 4.5 s writes at least four
#   files, numbered in order, each finished cleanly;
# - rotate-samples-as-one: together they hold the samples of an
#   un-rotated recording run beside it (within 10%);
# - rotate-max-files: --switch-max-files 2 leaves the newest two;
# - rotate-size: --switch-output 64K cuts at 64 KiB (each file but the
#   last at least that, and under it plus a chunk);
# - rotate-signal: --switch-output signal, SIGUSR2 twice: three files;
# - rotate-control-events: the control channel's switch is acked, and
#   --events has a switch event for each file, with its samples;
# - rotate-set-refused, rotate-set-replaced: a file of the set there
#   already is refused without -f, named; -f removes the old set;
# - rotate-cancel-removes-all: cancel removes every file written;
# - rotate-next-taken: a file made under the next name meanwhile is left
#   alone, and the recording goes on in the file it has, said;
# - rotate-full-disk: a tmpfs filled during the rotations: the file that
#   could not be written is named, every file before it finished cleanly,
#   and the target runs to its end;
# - ring-window: --ring 2 over 6 s, SIGUSR2 at 4 s: a snapshot of about
#   the last 2 s, and at the end -o with about 2 s again;
# - ring-queued: three SIGUSR2 and a control snapshot in quick
#   succession: four snapshots, each whole;
# - ring-crash: --snapshot-on-crash, a child killed by SIGSEGV (with the
#   ptrace sampler, which learns how a child ends): a snapshot at once;
# - ring-too-long-refused and the options' misuse: usage errors naming
#   the fix;
# - ring-memory-flat: the ten-minute soak is make bench's (ring step).
. "$(dirname "$0")/lib.sh"

THREADS=$FIX/threads
# info_has FILE TEXT: whether prof-report info of FILE says TEXT.
info_has() { "$REPORT" info "$1" 2> /dev/null | grep -q "$2"; }
samples_of() { "$REPORT" info "$1" 2> /dev/null | awk '/^samples:/ { print $2; exit }'; }
# span_ms FILE: its duration as info gives it, in ms.
span_ms() { "$REPORT" info "$1" 2> /dev/null | awk '/^duration:/ { printf "%d\n", $2 * 1000; exit }'; }
cleanly() {
	local f
	for f in "$@"; do
		"$REPORT" info "$f" 2> /dev/null | grep -q 'finished cleanly *yes' || { echo "$f"; return 1; }
	done
}

cd "$TMP" || exit 1
mkfifo ctl ctl2 ctl3
# --- first, side by side: rotation by time and size, and a full disk -------
# The sanitized suite leaves these to the plain suite: they count files,
# samples and bytes, and the switches below run the same code.
if [[ $BUILD == *-san ]]; then
	for c in rotate-files rotate-samples-as-one rotate-max-files rotate-size rotate-full-disk; do
		skip "$c" "a sanitized build: the plain suite counts the files; the switches below run the same code"
	done
else
	W=(--mode wall -q -F 497)
	"$RECORD" "${W[@]}" --switch-output 1s -o r.trace -- "$THREADS" 4.5 > /dev/null 2> r.err &
	ja=$!
	"$RECORD" "${W[@]}" -o whole.trace -- "$THREADS" 4.5 > /dev/null 2> whole.err &
	jb=$!
	"$RECORD" "${W[@]}" --switch-output 1s --switch-max-files 2 -o m.trace -- sleep 4.5 > /dev/null 2> m.err &
	jc=$!
	"$RECORD" --mode wall -q -F 9973 --switch-output 64K -o s.trace -- "$THREADS" 3 > /dev/null 2> s.err &
	jd=$!
	mkdir small
	disk=""
	if mount -t tmpfs -o size=128k prof-e2e small 2> /dev/null; then
		dd if=/dev/zero of=small/fill bs=1k count=64 2> /dev/null
		"$THREADS" 4 > t.out &
		tpid=$!
		"$RECORD" --mode wall -q -F 9973 --switch-output 300ms -o small/f.trace -p $tpid 2> f.err &
		je=$!
	else
		disk="cannot mount a small tmpfs here (needs root)"
	fi
	wait $ja; ra=$?
	wait $jb; rb=$?
	wait $jc; rc=$?
	wait $jd; rd=$?
	files=(r.[0-9]*.trace)
	if [ $ra -ne 0 ] || [ ${#files[@]} -lt 4 ]; then
		fail "rotate-files" "exit $ra, ${#files[@]} files: $(cat r.err)"
	elif [ "${files[0]}" != r.000001.trace ] || [ "${files[3]}" != r.000004.trace ]; then
		fail "rotate-files" "named ${files[*]}"
	elif bad=$(cleanly "${files[@]}"); then
		ok "rotate-files (${#files[@]} files, each finished cleanly)"
	else
		fail "rotate-files" "$bad: $("$REPORT" info "$bad" 2>&1 | grep -i 'finished\|warn' | head -3)"
	fi
	sum=0
	for f in "${files[@]}"; do sum=$((sum + $(samples_of "$f"))); done
	one=$(samples_of whole.trace)
	if [ $rb -eq 0 ] && [ "${one:-0}" -gt 0 ] && [ $((sum * 10)) -ge $((one * 9)) ] && [ $((sum * 10)) -le $((one * 11)) ]; then
		ok "rotate-samples-as-one ($sum samples in ${#files[@]} files, $one in one)"
	else
		fail "rotate-samples-as-one" "$sum samples in the files, ${one:-none} in one (exit $rb)"
	fi
	kept=(m.[0-9]*.trace)
	last=${kept[1]:-m.0.trace}
	last=$((10#$(echo "$last" | tr -dc 0-9)))
	if [ $rc -eq 0 ] && [ ${#kept[@]} -eq 2 ] && [ $last -ge 5 ] && [ "${kept[0]}" = "$(printf 'm.%06d.trace' $((last - 1)))" ] &&
		cleanly "${kept[@]}" > /dev/null; then
		ok "rotate-max-files (of $last files, ${kept[*]})"
	else
		fail "rotate-max-files" "exit $rc, left ${kept[*]}"
	fi
	sizes=$(stat -c %s s.[0-9]*.trace | tr '\n' ' ')
	n=$(echo $sizes | wc -w)
	if [ $rd -eq 0 ] && [ "$n" -ge 2 ] && echo "$sizes" | awk '{ for (i = 1; i < NF; i++) if ($i < 65536 || $i > 65536 + 262144) exit 1 }'; then
		ok "rotate-size ($n files: $sizes bytes)"
	else
		fail "rotate-size" "exit $rd, sizes $sizes: $(cat s.err)"
	fi
	if [ -n "$disk" ]; then
		skip "rotate-full-disk" "$disk"
	else
		wait $je; re=$?
		wait $tpid; trc=$?
		short=$(sed -n "s/.*cannot write '\([^']*\)'.*/\1/p" f.err | head -1)
		done_files=()
		for f in small/f.[0-9]*.trace; do [ "$f" = "$short" ] || done_files+=("$f"); done
		if [ $re -eq 1 ] && grep -q "No space left on device" f.err && [ -n "$short" ] && [ $trc -eq 0 ] &&
			[ ${#done_files[@]} -ge 1 ] && cleanly "${done_files[@]}" > /dev/null; then
			ok "rotate-full-disk (${#done_files[@]} files whole, '${short#small/}' short)"
		else
			fail "rotate-full-disk" "exit $re, target $trc, short '$short', whole ${done_files[*]}: $(cat f.err)"
		fi
		umount small
	fi
fi

# --- then: by signal, the control channel, cancel, and the ring -------------
"$RECORD" --mode wall -q --switch-output signal -o g.trace -- sleep 4 > /dev/null 2> g.err &
jg=$!
"$RECORD" --mode wall -q --switch-output 10m --control ctl --events ev.jsonl -o c.trace -- sleep 2 \
	> /dev/null 2> c.err &
jc=$!
"$RECORD" --mode wall -q --switch-output 300ms --control ctl2 -o x.trace -- sleep 3 > /dev/null 2> x.err &
jx=$!
"$RECORD" --mode wall -F 497 --ring 2 -o ring.trace -- "$THREADS" 6 > /dev/null 2> ring.err &
jr=$!
"$RECORD" --mode wall -q --ring 3 --control ctl3 -o q.trace -- sleep 3 > /dev/null 2> q.err &
jq=$!
"$RECORD" --mode wall -q --switch-output signal -o t.trace -- sleep 2 > /dev/null 2> t.err &
jt=$!
exec 3> ctl 4> ctl2 5> ctl3
sleep 0.5
echo someone else\'s > t.000002.trace
sleep 0.2
kill -USR2 $jt
echo switch >&3
kill -USR2 $jg
sleep 0.5
echo snapshot >&3
echo cancel >&4
kill -USR2 $jq; sleep 0.05; kill -USR2 $jq; echo snapshot >&5; sleep 0.05; kill -USR2 $jq
exec 3>&- 4>&- 5>&-
# Signals that come before the recorder has switched make one switch: the
# second waits for the first's file.
for i in $(seq 40); do [ -e g.000002.trace ] && break; sleep 0.05; done
sleep 0.5
kill -USR2 $jg
sleep 2
kill -USR2 $jr
wait $jg; rg=$?
wait $jc; rc=$?
wait $jx
wait $jr; rr=$?
wait $jq; rq=$?
wait $jt; rt=$?
sig=(g.[0-9]*.trace)
if [ $rg -eq 0 ] && [ ${#sig[@]} -eq 3 ] && cleanly "${sig[@]}" > /dev/null; then
	ok "rotate-signal (${sig[*]})"
else
	fail "rotate-signal" "exit $rg, ${sig[*]}: $(cat g.err)"
fi
ctrl=(c.[0-9]*.trace)
acks=$(grep -c '"event": *"ack"' ev.jsonl)
if [ $rc -eq 0 ] && [ ${#ctrl[@]} -eq 2 ] && grep '"command": *"switch"' ev.jsonl | grep -q '"ok": *true' &&
	grep '"command": *"snapshot"' ev.jsonl | grep -q '"ok": *false'; then
	ok "rotate-control-switch (${ctrl[*]}; a snapshot refused)"
else
	fail "rotate-control-switch" "exit $rc, ${ctrl[*]}, $acks acks: $(cat c.err)"
fi
bad=""
for f in "${ctrl[@]}"; do
	n=$(samples_of "$f")
	grep '"event": *"switch"' ev.jsonl | grep "\"trace\": *\"$TMP/$f\"" | grep -q "\"samples\": *$n[,}]" || bad="$bad $f"
done
[ -z "$bad" ] && [ "$(grep -c '"event": *"switch"' ev.jsonl)" -eq 2 ] \
	&& ok "rotate-events (a switch event a file, its samples those of info)" \
	|| fail "rotate-events" "not as info:$bad: $(grep switch ev.jsonl)"
left=$(ls x.trace x.[0-9]*.trace 2> /dev/null)
[ -z "$left" ] && ok "rotate-cancel-removes-all" || fail "rotate-cancel-removes-all" "left $left"
snap=ring.000001.trace
s1=$(span_ms $snap); s2=$(span_ms ring.trace)
n1=$(samples_of $snap); n2=$(samples_of ring.trace)
# four threads at 497 Hz: about 4000 samples in 2 s
if [ $rr -eq 0 ] && [ "${s1:-0}" -ge 1900 ] && [ "$s1" -le 2800 ] && [ "${s2:-0}" -ge 1900 ] && [ "$s2" -le 2800 ] &&
	[ "${n1:-0}" -ge 3000 ] && [ "${n2:-0}" -ge 3000 ] && cleanly $snap ring.trace > /dev/null; then
	ok "ring-window (snapshot: $s1 ms, $n1 samples; at the end: $s2 ms, $n2 samples)"
else
	fail "ring-window" "exit $rr, snapshot ${s1:-none} ms ${n1:-} samples, end ${s2:-none} ms ${n2:-}: $(cat ring.err)"
fi
if [ $rt -eq 0 ] && grep -q "cannot create 't.000002.trace': File exists.*goes on in 't.000001.trace'" t.err &&
	[ "$(cat t.000002.trace)" = "someone else's" ] && cleanly t.000001.trace > /dev/null &&
	[ "$(span_ms t.000001.trace)" -ge 1900 ]; then
	ok "rotate-next-taken (the recording went on in the file it had)"
else
	fail "rotate-next-taken" "exit $rt: $(cat t.err)"
fi
qs=(q.[0-9]*.trace)
if [ $rq -eq 0 ] && [ ${#qs[@]} -eq 4 ] && cleanly "${qs[@]}" q.trace > /dev/null; then
	ok "ring-queued (${qs[*]})"
else
	fail "ring-queued" "exit $rq, ${qs[*]}: $(cat q.err)"
fi

# --- names already there ------------------------------------------------------
touch old.000099.trace
"$RECORD" --mode wall -q --switch-output 1s -o old.trace -- true > /dev/null 2> old.err
rc=$?
[ $rc -eq 1 ] && grep -q "'old.000099.trace' is there.*use -f" old.err && [ ! -e old.000001.trace ] \
	&& ok "rotate-set-refused" || fail "rotate-set-refused" "exit $rc: $(cat old.err)"
"$RECORD" --mode wall -q -f --switch-output 1s -o old.trace -- true > /dev/null 2> old.err
rc=$?
[ $rc -eq 0 ] && [ ! -e old.000099.trace ] && [ -s old.000001.trace ] \
	&& ok "rotate-set-replaced (-f removed the earlier set)" || fail "rotate-set-replaced" "exit $rc: $(ls old.*)"

if ! why=$(ptrace_ok launch); then
	skip "ring-crash" "$why"
else
	"$RECORD" --mode wall --sampler ptrace --ring 5 --snapshot-on-crash -o k.trace -- \
		sh -c 'sleep 0.5; sh -c "kill -SEGV \$\$"; sleep 0.5' > /dev/null 2> k.err
	rc=$?
	if [ $rc -eq 0 ] && grep -q "died of signal 11" k.err && cleanly k.000001.trace k.trace > /dev/null; then
		ok "ring-crash ($(grep -o "snapshot 'k.000001.trace'.*" k.err))"
	else
		fail "ring-crash" "exit $rc: $(cat k.err)"
	fi
fi

# --- usage ------------------------------------------------------------------
usage() { # NAME MESSAGE ARGS...
	local name=$1 msg=$2 out rc
	shift 2
	out=$("$RECORD" "$@" -- true 2>&1)
	rc=$?
	[ $rc -eq 2 ] && echo "$out" | grep -q -- "$msg" && ok "$name" || fail "$name" "exit $rc: $out"
}
usage ring-too-long-refused "needs at least 380 MiB.*over the 64 MiB of --ring-size" --ring 100000
usage ring-size-needs-ring "'--ring-size' needs '--ring'" --ring-size 1G
usage ring-not-with-switch "give '--ring' or '--switch-output', not both" --ring 5 --switch-output 1s
usage switch-max-needs-switch "'--switch-max-files' needs '--switch-output'" --switch-max-files 3
usage switch-output-unit "'10' is not a number and a unit: a time" --switch-output 10
usage switch-output-short "shorter than 100ms" --switch-output 5ms

skip "ring-memory-flat" "the ten-minute soak is make bench's (BENCH_STEPS=ring)"
exit 0
