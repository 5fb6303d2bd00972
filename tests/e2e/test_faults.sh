#!/usr/bin/env bash
# End-to-end fault injection with real processes: the recorder killed at
# random points, a full disk and a file-size limit, signals from another
# process, targets that fork, exec from a thread, exit or crash mid-sample,
# run on a garbage frame pointer, or have 500 threads come and go; then
# hostile debug-file directories and hostile identities in a trace. Each process fault runs in wall and in
# cpu mode (cpu only where perf_event is allowed), and where wall mode
# samples with perf_event also in wall mode with --sampler ptrace (cases
# named -ptrace), under a timeout, so a hang fails rather than blocks.
#
# FAULT_KILLS (default 3) is how many random points the SIGKILL cases
# try in each mode; FAULT_SEED fixes the points (the seed is printed).
. "$(dirname "$0")/lib.sh"

FAULTS=$FIX/faults
KILLS=${FAULT_KILLS:-3}
SEED=${FAULT_SEED:-$(( $(date +%s) % 100000 ))}

# state_of PID: the State letter of /proc/PID/status ("" once it is gone).
state_of() { awk '$1 == "State:" { print $2 }' "/proc/$1/status" 2> /dev/null; }
# stopped PID: whether the process or any of its threads is stopped.
stopped() {
	local t
	for t in /proc/$1/task/*/status; do
		awk '$1 == "State:" && ($2 == "T" || $2 == "t") { found = 1 } END { exit !found }' "$t" 2> /dev/null && return 0
	done
	return 1
}
# gone PID SECONDS: waits up to SECONDS for a process that is not our child.
gone() {
	local i=0
	while [ -e "/proc/$1" ] && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -e "/proc/$1" ]
}
counter() { "$REPORT" info "$1" 2> /dev/null | awk -v k="$2" '$1 == k { print $2 }'; }
samples_of() { "$REPORT" folded "$1" 2> /dev/null | awk '{ s += $NF } END { print s + 0 }'; }

if ! why=$(ptrace_ok attach); then
	skip "faults" "$why"
	exit 0
fi
modes=wall
ptrace_modes=wall
if out=$("$RECORD" -q --mode cpu -o "$TMP/probe.trace" -- true 2>&1); then
	modes="wall cpu"
else
	skip "faults-cpu" "perf_event_open not permitted here: $(echo "$out" | head -1)"
fi
if "$RECORD" -q -f --mode wall --sampler perf -o "$TMP/probe.trace" -- true > /dev/null 2>&1; then
	modes="$modes ptrace"
	ptrace_modes=ptrace
fi
# sfx MODE: the suffix of a case's name in MODE.
sfx() { [ "$1" = wall ] || echo "-$1"; }
# args MODE: the recorder's options for MODE (ptrace: wall mode, forced).
args() { if [ "$1" = ptrace ]; then echo "--mode wall --sampler ptrace"; else echo "--mode $1"; fi; }

# --- SIGKILL of the recorder at random points ---------------------------
# kill_at MODE HOW DELAY DIR: one capture of split (attached to, or launched
# by, the recorder) whose recorder is killed DELAY seconds after the target
# started. Prints nothing if all is well, else what went wrong.
kill_at() {
	local mode=$1 how=$2 delay=$3 dir=$4 pid rec i st
	if [ "$how" = attach ]; then
		"$FIX/split" 1 > "$dir/out" &
		pid=$!
		"$RECORD" $(args "$mode") -q -o "$dir/trace" -p $pid 2> "$dir/err" &
		rec=$!
	else
		"$RECORD" $(args "$mode") -q -o "$dir/trace" -- "$FIX/split" 1 > "$dir/out" 2> "$dir/err" &
		rec=$!
		pid=
		for i in $(seq 50); do
			pid=$(ps -o pid= --ppid $rec | tr -d ' ')
			[ -n "$pid" ] && [ "$(readlink /proc/$pid/exe 2> /dev/null)" = "$FIX/split" ] && break
			pid=
			sleep 0.02
		done
		[ -n "$pid" ] || { kill -9 $rec; wait $rec 2> /dev/null; echo "at ${delay}s: the target never started"; return; }
	fi
	sleep "$delay"
	kill -9 $rec 2> /dev/null  # (unless it had already finished)
	wait $rec 2> /dev/null
	sleep 0.1
	if stopped $pid; then
		st=$(state_of $pid)
		kill -CONT $pid
		echo "at ${delay}s: target left in state $st"
	fi
	if [ "$how" = attach ]; then
		wait $pid
		st=$?
	else
		gone $pid 10
		st=$?
	fi
	grep -q 'work took' "$dir/out" || echo "at ${delay}s: target did not finish its work (status $st)"
	# Killed before its first chunk (which carries the file header): no
	# file, or an empty one; nothing to salvage, and no harm. A header
	# without its first chunk, a trace that holds no session, would fail.
	if [ ! -s "$dir/trace" ]; then
		echo nofile
		return
	fi
	"$REPORT" info "$dir/trace" > "$dir/info" 2>&1 \
		|| echo "at ${delay}s: trace not readable: $(grep -v warning "$dir/info" | head -1)"
}

# kill_series MODE HOW: KILLS captures, each killed at a random point;
# prints "ok DETAIL" or "fail DETAIL".
kill_series() {
	local mode=$1 how=$2 bad= n=0 early=0 k delay d why
	RANDOM=$SEED
	for k in $(seq "$KILLS"); do
		delay=$(awk -v m=$((50 + RANDOM % 850)) 'BEGIN { printf "%.3f", m / 1000 }')
		d="$TMP/kill-$mode-$how-$k"
		mkdir -p "$d"
		why=$(kill_at "$mode" "$how" "$delay" "$d")
		case $why in
		"") n=$((n + 1)) ;;
		nofile) early=$((early + 1)) ;;
		*) bad="$bad; $why" ;;
		esac
	done
	if [ -z "$bad" ]; then
		echo "ok $n of $KILLS points, seed $SEED: target running, finished, trace read; $early before the trace held anything"
	else
		echo "fail seed $SEED${bad}"
	fi
}
# Every series at once: each capture mostly waits for its target, which
# runs for a fixed time however loaded the machine is.
for mode in $modes; do
	for how in attach launch; do
		kill_series "$mode" "$how" > "$TMP/series-$mode-$how" &
	done
done
wait
for mode in $modes; do
	for how in attach launch; do
		read -r res detail < "$TMP/series-$mode-$how"
		name="sigkill-random-$how$(sfx "$mode")"
		[ "$res" = ok ] && ok "$name ($detail)" || fail "$name" "$detail"
	done
done

# --- the target changes under the recorder -------------------------------
# record MODE NAME ARGS...: records faults ARGS launched, under a timeout,
# into $TMP/NAME.trace; sets rc, and out to the target's output.
record() {
	local mode=$1 name=$2
	shift 2
	timeout 60 "$RECORD" $(args "$mode") -q -f -o "$TMP/$name.trace" -- "$FAULTS" "$@" \
		> "$TMP/$name.out" 2> "$TMP/$name.err"
	rc=$?
	out=$(tr '\n' '|' < "$TMP/$name.out")
	"$REPORT" folded "$TMP/$name.trace" > "$TMP/$name.folded" 2> /dev/null
}
# has FOLDED PATTERN: samples whose stack matches PATTERN.
has() { awk -v pat="$2" '{ line = $0; sub(/ [0-9]+$/, "", line); if (line ~ pat) n += $NF } END { print n + 0 }' "$1"; }

for mode in $modes; do
	x=$(sfx "$mode")
	record "$mode" fork-$mode fork 1
	a=$(has "$TMP/fork-$mode.folded" ';forked;spin_for;')
	if [ $rc -eq 0 ] && [[ $out == *"after done"* ]] && [[ $out == *"fork done (child status 0)"* ]] && [ "$a" -gt 0 ]; then
		ok "fork-child-execs$x (the child exec'd and finished, $a samples in forked)"
	else
		fail "fork-child-execs$x" "exit $rc, output '$out', $a samples in forked: $(head -c 300 "$TMP/fork-$mode.err")"
	fi

	record "$mode" texec-$mode thread-exec 1
	a=$(has "$TMP/texec-$mode.folded" ';exec_thread;spin_for;')
	b=$(has "$TMP/texec-$mode.folded" ';main;after_exec;spin_for;')
	if [ $rc -eq 0 ] && [[ $out == *"after done"* ]] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ]; then
		ok "thread-execve$x (before: $a samples in exec_thread, after: $b in after_exec)"
	else
		fail "thread-execve$x" "exit $rc, output '$out', exec_thread $a, after_exec $b: $(head -c 300 "$TMP/texec-$mode.err")"
	fi

	record "$mode" exit-$mode exit 0.5
	a=$(has "$TMP/exit-$mode.folded" ';spinner;spin_for;')
	if [ $rc -eq 0 ] && [[ $out == *"exit done"* ]] && [ "$a" -gt 0 ] && "$REPORT" info "$TMP/exit-$mode.trace" | grep -q '^exit: *status 0'; then
		ok "exit-mid-sample$x ($a samples of the spinning threads)"
	else
		fail "exit-mid-sample$x" "exit $rc, output '$out', spinner $a: $(head -c 300 "$TMP/exit-$mode.err")"
	fi

	record "$mode" segv-$mode segv 0.5
	if [ $rc -eq 139 ] && [[ $out == *"segv done"* ]] && "$REPORT" info "$TMP/segv-$mode.trace" | grep -q '^exit: *killed by signal 11'; then
		ok "segv-mid-sample$x (exit 139, recorded as killed by signal 11)"
	else
		fail "segv-mid-sample$x" "exit $rc, output '$out': $(head -c 300 "$TMP/segv-$mode.err")"
	fi

	# A frame pointer into unmapped memory: the walk stops there, and why.
	# Counted are the stacks cut at garbage_fp; a tick before it set its
	# frame pointer has a whole stack, which stops at its end.
	record "$mode" gfp-$mode garbage-fp 0.5
	a=$(has "$TMP/gfp-$mode.folded" '^faults;garbage_fp$')
	un=$(counter "$TMP/gfp-$mode.trace" stop-unreadable)
	if [ $rc -eq 0 ] && [[ $out == *"garbage-fp done"* ]] && [ "$a" -gt 0 ] && [ "${un:-0}" -ge "$a" ]; then
		ok "garbage-frame-pointer$x ($a samples end in garbage_fp, stop-unreadable $un)"
	else
		fail "garbage-frame-pointer$x" "exit $rc, output '$out', $a samples in garbage_fp, stop-unreadable '$un'"
	fi

	# 500 threads created and destroyed: each is followed; with the
	# ptrace sampler a thread that ends between the tick's list and its
	# interrupt is counted, and costs only its own sample.
	record "$mode" churn-$mode churn 500
	nth=$("$REPORT" info "$TMP/churn-$mode.trace" | awk '$1 == "threads:" { print $2 }')
	a=$(has "$TMP/churn-$mode.folded" ';churn_thread;churn_work;')
	van=$(counter "$TMP/churn-$mode.trace" threads-vanished)
	if [ $rc -eq 0 ] && [[ $out == *"churn done (500 threads)"* ]] && [ "${nth:-0}" -ge 450 ] && [ "$a" -gt 0 ] \
		&& { [ "$mode" != "$ptrace_modes" ] || [ "${van:-0}" -gt 0 ]; }; then
		ok "thread-churn-500$x ($nth threads recorded, $a samples in churn_work, threads-vanished $van)"
	else
		fail "thread-churn-500$x" "exit $rc, output '$out', threads '$nth', churn_work $a, threads-vanished '$van'"
	fi

	# SIGSTOP, then SIGCONT, from another process during the capture.
	"$FIX/split" 2 > "$TMP/stop-$mode.out" &
	pid=$!
	timeout 30 "$RECORD" $(args "$mode") -q -f -o "$TMP/stop-$mode.trace" -p $pid -d 1.5 2> "$TMP/stop-$mode.err" &
	rec=$!
	sleep 0.4
	kill -STOP $pid
	# The stop is the other process's to end: while it lasts, the target
	# gets (almost) no user time. 0.8 s swallowed would be some 80 ticks.
	sleep 0.1
	u1=$(awk '{ print $14 }' /proc/$pid/stat)
	sleep 0.8
	u2=$(awk '{ print $14 }' /proc/$pid/stat)
	kill -CONT $pid
	wait $rec
	rc=$?
	sleep 0.1
	st=$(state_of $pid)
	stopped $pid && kill -CONT $pid
	wait $pid
	trc=$?
	n=$(samples_of "$TMP/stop-$mode.trace")
	ran=$((u2 - u1))
	if [ $rc -eq 0 ] && [ $ran -le 5 ] && [ "$st" != T ] && [ "$st" != t ] && [ $trc -eq 0 ] \
		&& grep -q 'work took' "$TMP/stop-$mode.out" && [ "$n" -gt 0 ]; then
		ok "sigstop-sigcont-from-outside$x ($ran ticks of user time while stopped, state $st after, $n samples)"
	else
		fail "sigstop-sigcont-from-outside$x" "recorder exit $rc, $ran ticks run while stopped, state '$st' after, target exit $trc, $n samples: $(head -c 300 "$TMP/stop-$mode.err")"
	fi
done

# --- a full disk, and a file-size limit -----------------------------------
# A clear error naming the cause, only whole chunks kept, and the target
# detached, finishing its work. The 64 KiB tmpfs, filled but for 8 KiB, and
# the 8 KiB RLIMIT_FSIZE both run out within the first second at 9973 Hz.
# no_space MODE NAME MESSAGE FILE [ulimit -f KB]
no_space() {
	local mode=$1 name=$2 msg=$3 file=$4 limit=${5:-unlimited} pid rc trc lost
	"$FIX/split" 3 > "$TMP/$name.out" &
	pid=$!
	(ulimit -f "$limit" && exec timeout 30 "$RECORD" $(args "$mode") -q -f -F 9973 -o "$file" -p $pid) 2> "$TMP/$name.err"
	rc=$?
	wait $pid
	trc=$?
	"$REPORT" info "$file" > "$TMP/$name.info" 2>&1
	lost=$(awk '/bytes cut/ { print $3 }' "$TMP/$name.info")
	if [ $rc -eq 1 ] && grep -q "cannot write '$file': $msg" "$TMP/$name.err" && [ $trc -eq 0 ] \
		&& grep -q 'work took' "$TMP/$name.out" && [ "$lost" = 0 ]; then
		ok "$name (target finished, 0 bytes of partial chunk)"
	else
		fail "$name" "exit $rc, target $trc, tail lost '$lost': $(cat "$TMP/$name.err")"
	fi
}
# The sanitized suite fills the disk in wall mode only: a full disk and
# the size limit end in the same failed write and the same detach of the
# target, and the limit, which needs no root, still runs in every mode;
# each case is 3 s, the target's time (the plain suite runs all six).
mkdir -p "$TMP/small"
for mode in $modes; do
	x=$(sfx "$mode")
	if [ "${BUILD%-san}" != "$BUILD" ] && [ "$mode" != wall ]; then
		skip "error-full-disk$x" "a sanitized build: its full disk is checked in wall mode, the file-size limit in each mode"
	elif mount -t tmpfs -o size=64k prof-e2e "$TMP/small" 2> /dev/null; then
		dd if=/dev/zero of="$TMP/small/fill" bs=1k count=56 2> /dev/null
		no_space "$mode" "error-full-disk$x" 'No space left on device' "$TMP/small/x.trace"
		umount "$TMP/small"
	else
		skip "error-full-disk$x" "cannot mount a small tmpfs here (needs root)"
	fi
	no_space "$mode" "error-file-size-limit$x" 'File too large' "$TMP/fsize-$mode.trace" 8
done
# The recorder catches SIGXFSZ; the command it launches must not inherit
# that (an ignored signal would be inherited across exec).
"$RECORD" --mode wall -q -f -o "$TMP/sigs.trace" -- cat /proc/self/status > "$TMP/sigs.out"
ign=$(awk '$1 == "SigIgn:" { print $2 }' "$TMP/sigs.out")
# SIGXFSZ is 25: bit 24 of the mask, the seventh hex digit from the right.
if [ -n "$ign" ] && [ $(( 0x$ign & (1 << 24) )) -eq 0 ]; then
	ok "launched-command-sigxfsz-default (SigIgn $ign)"
else
	fail "launched-command-sigxfsz-default" "SigIgn '$ign'"
fi

# --- hostile debug-file directories ---------------------------------------
# A trace of split whose recorded path is gone, so its debug file can only
# come from --symbols, in a directory that holds, besides that debug file:
# a symlink to /dev/zero and a FIFO named like the binary, a 1 GB sparse
# file of zeros named like it too, a 1 GB sparse debug file (the real one
# with a gigabyte of holes after it), and copies of the debug file whose
# sections run past the end: one cut short, one whose section headers
# claim more bytes than the file has. prof-report must finish quickly,
# refuse what is not a debug file of that build, never read a gigabyte,
# and still name the functions.
SYNTH=$BUILD/tests/tools/synth_trace
dbg=$FIX/stripped/.debug/split.debug
id=$(readelf -n "$FIX/split" | awk '/Build ID/ { print $3 }')
addr() { printf '0x%x' $(( 0x$(nm "$FIX/split" | awk -v f="$1" '$3 == f { print $1 }') + 0x555555554000 + 4 )); }
# patch FILE OFFSET VALUE: writes VALUE as 8 little-endian bytes at OFFSET.
patch() { printf "$(printf '%016x' "$3" | sed 's/\(..\)/\1 /g' | awk '{ for (i = NF; i > 0; i--) printf "\\x%s", $i }')" \
	| dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null; }
hostile=$TMP/hostile
mkdir -p "$hostile/fifo" "$hostile/zero" "$hostile/holes" "$hostile/big" "$hostile/cut" "$hostile/past" "$hostile/good"
ln -s /dev/zero "$hostile/zero/split"
mkfifo "$hostile/fifo/split"
truncate -s 1G "$hostile/holes/split"
cp "$dbg" "$hostile/big/split.debug" && truncate -s 1G "$hostile/big/split.debug"
head -c $(( $(stat -c %s "$dbg") * 6 / 10 )) "$dbg" > "$hostile/cut/split.debug"
cp "$dbg" "$hostile/past/split.debug"
shoff=$(od -An -t u8 -j 40 -N 8 "$dbg" | tr -d ' ')
for sec in .debug_info .debug_line .debug_str; do
	i=$(readelf -S -W "$dbg" 2> /dev/null | awk -v s="$sec" '{ sub(/^ *\[ */, ""); sub(/\]/, "") } $2 == s { print $1 }')
	# sh_offset (at 24) near the end of the file, sh_size (at 32) of 1 MB
	patch "$hostile/past/split.debug" $((shoff + i * 64 + 24)) $(( $(stat -c %s "$dbg") - 16 ))
	patch "$hostile/past/split.debug" $((shoff + i * 64 + 32)) 1048576
done
"$SYNTH" -o "$TMP/hostile.trace" --os linux --arch x86_64 \
	--image "KIND=gnu-build-id,IDENT=$id,PATH=/nonexistent/split,START=0x555555554000,SIZE=0x5000,BIAS=0x555555554000" \
	--thread TID=1,NAME=split --sample "TID=1,STACK=$(addr path_a):$(addr run):$(addr main)" --count 10
# hostile_dirs NAME DIR...: info and folded with --symbols DIR...
hostile_dirs() {
	local name=$1 args=()
	shift
	for d in "$@"; do args+=(--symbols "$d"); done
	timeout 60 /usr/bin/time -f '%e %M' -o "$TMP/$name.time" "$REPORT" info "${args[@]}" "$TMP/hostile.trace" > "$TMP/$name.info" 2>&1
	rc=$?
	"$REPORT" folded "${args[@]}" "$TMP/hostile.trace" > "$TMP/$name.folded" 2>&1 || rc=$?
	read -r secs rss < <(tail -1 "$TMP/$name.time")
}
hostile_dirs hostile-refused "$hostile/zero" "$hostile/fifo" "$hostile/holes" "$hostile/cut"
info=$TMP/hostile-refused.info
# Not one of them is a debug file of the build, so none is used, and none
# is even listed as a candidate of that name.
if [ $rc -eq 0 ] && [ "${rss:-999999}" -lt 200000 ] && grep -q 'symbols:  none' "$info" \
	&& grep -q '100.0% unresolved' "$info" && ! grep -q "$hostile/" "$info" \
	&& ! grep -q ';path_a' "$TMP/hostile-refused.folded"; then
	ok "hostile-symbols-refused ($secs s, max RSS $rss KiB: /dev/zero, a FIFO, 1 GB of holes, a cut debug file)"
else
	fail "hostile-symbols-refused" "exit $rc, $secs s, max RSS $rss KiB: $(grep -A12 'image 1' "$info" | tail -10)"
fi
hostile_dirs hostile-past "$hostile/past"
if [ $rc -eq 0 ] && grep -q 'past/split.debug (.*no DWARF)' "$TMP/hostile-past.info" \
	&& grep -q ';main;run;path_a 10$' "$TMP/hostile-past.folded"; then
	ok "hostile-symbols-sections-past-the-end (its DWARF refused, its symbol table used)"
else
	fail "hostile-symbols-sections-past-the-end" "exit $rc: $(grep -A6 'image 1' "$TMP/hostile-past.info" | tail -4)"
fi
hostile_dirs hostile-big "$hostile/zero" "$hostile/fifo" "$hostile/holes" "$hostile/cut" "$hostile/big"
if [ $rc -eq 0 ] && [ "${rss:-999999}" -lt 200000 ] && grep -q 'big/split.debug (DWARF' "$TMP/hostile-big.info" \
	&& grep -q ';main;run;path_a 10$' "$TMP/hostile-big.folded"; then
	ok "hostile-symbols-sparse-1g-debug-file ($secs s, max RSS $rss KiB, its DWARF used)"
else
	fail "hostile-symbols-sparse-1g-debug-file" "exit $rc, $secs s, max RSS $rss KiB: $(grep -A6 'image 1' "$TMP/hostile-big.info" | tail -4)"
fi

# --- hostile identities ----------------------------------------------------
# Build-ids and UUIDs are bytes from the trace. Ones that spell paths with
# '/' and '..' must only ever reach a path as hex: strace lists every file
# prof-report touches, and none may contain the bytes themselves.
if ! command -v strace > /dev/null; then
	skip "hostile-identity-never-a-path" "strace is not installed (Debian: strace)"
else
	hexof() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
	gnu=$(hexof '/../../../../../../tmp/TRAPgnu')
	uuid=$(hexof '/../../../TRAP/.')
	"$SYNTH" -o "$TMP/ident-gnu.trace" --os linux --arch x86_64 \
		--image "KIND=gnu-build-id,IDENT=$gnu,PATH=/nonexistent/lib.so,START=0x1000,SIZE=0x1000,BIAS=0" \
		--thread TID=1,NAME=t --sample TID=1,STACK=0x1100
	"$SYNTH" -o "$TMP/ident-uuid.trace" --os macos --arch arm64 \
		--image "KIND=uuid,IDENT=$uuid,PATH=/nonexistent/lib.dylib,START=0x1000,SIZE=0x1000,BIAS=0" \
		--thread TID=1,NAME=t --sample TID=1,STACK=0x1100
	bad= n=0
	for k in gnu uuid; do
		# LeakSanitizer cannot run under ptrace: off, in a sanitized build.
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 \
			strace -f -qq -e trace=%file -o "$TMP/ident-$k.strace" \
			"$REPORT" info --symbols "$hostile" "$TMP/ident-$k.trace" > "$TMP/ident-$k.info" 2>&1 \
			|| bad="$bad; $k: exit $?: $(tail -2 "$TMP/ident-$k.info")"
		grep -q TRAP "$TMP/ident-$k.strace" && bad="$bad; $k: $(grep -m1 TRAP "$TMP/ident-$k.strace")"
		n=$((n + $(wc -l < "$TMP/ident-$k.strace")))
	done
	# The build-id was looked up, as hex, where build-ids are looked up.
	grep -q "/.build-id/${gnu:0:2}/${gnu:2}.debug" "$TMP/ident-gnu.strace" || bad="$bad; gnu: no .build-id lookup"
	if [ -z "$bad" ]; then
		ok "hostile-identity-never-a-path ($n file calls, none with the raw bytes)"
	else
		fail "hostile-identity-never-a-path" "${bad#; }"
	fi
fi
exit 0
