#!/usr/bin/env bash
# bench/bench.sh: prof against perf, side by side in one run (`make bench`).
#
# Every figure is a comparison made in the same run, because the machines
# this runs on are shared and noisy: runs of the tools being compared are
# interleaved (bare, prof cpu, prof wall, perf fp, perf dwarf, perf with
# context-switch samples, then again), and each figure is the median of the
# repetitions with their min and max.
# The workloads (bench/workloads/*.c) time their own work, so start-up and
# post-processing do not count. The steps:
#
#   overhead  each workload's time under each tool over its bare time, in
#             the same repetition, at each rate, and the share of samples
#             each tool lost;
#   size      bytes per sample of those runs' traces and perf.data files,
#             and of perf.data written with -z where this perf has zstd;
#   attach    what -p costs: at 997 Hz, the workload's slowdown with prof
#             (each mode) and perf -g attached to it with -p, next to the
#             same tool launching it, in the same repetitions;
#   many      -p on a process of many busy threads (busy -j N): the wall
#             time of prof (each mode) with -d 3 and of perf -g -p for 3 s,
#             their samples, losses and threads seen, and prof's first
#             sample's time;
#   report    prof-report folded and svg against perf report, on recordings
#             of the same deep-stack workload, with their peak RSS, and
#             one more prof-report folded's time by stage (open, locate,
#             decompress, DWARF index, lookups, output...: PROF_REPORT_TIMING);
#   small     prof-report folded against perf report on a small trace of
#             the Rust fixture (what a user opens while working), and on
#             a loop of reports of small traces of it, one after another,
#             and the small report's time by stage, as report's; and
#             prof-report annotate (its five hottest functions' source
#             lines) against folded on the small trace;
#   symbolize bench/symbolize.sh: prof-report against llvm-symbolizer on
#             the same addresses of the same debug files;
#   recorder  prof-record's own CPU time per sample and peak RSS while
#             attached to the 8-thread workload;
#   ring      prof-record --ring 30 (wall mode, 997 Hz) launching the
#             8-thread workload for BENCH_RING_SECONDS: its RSS every 10 s,
#             whether it stays flat after the first minute, and what the
#             window written at the end holds;
#   max rate  the highest rate of a sweep at which cpu mode loses less than
#             0.1% of its samples;
#   syscall   a workload that spends a known share of its CPU time in
#             read(2) (it measures the share itself), recorded by prof in
#             cpu mode and by perf --call-graph dwarf: the share each gives
#             its calling function, next to the measured one.
#
# It prints a table on stdout, with a line "STEP: not run (BENCH_STEPS)" for
# each step left out, and writes bench/results.json (keys in a fixed order),
# naming the file on stderr with its progress.
# A tool that cannot run here (no perf, perf_event refused, no ptrace) is
# skipped with the reason, and its figures are null. The settings:
#
#   BENCH_SMOKE=1          every step briefly (about 2 s each), one repetition,
#                          the overhead step on cpu1 and switch50 only, the
#                          many step on 10 threads, the ring step for 3 s
#                          with the RSS every 0.5 s from the first, perf
#                          without its BPF side-band thread (below)
#   BENCH_REPS             repetitions of each interleaved run (default 5)
#   BENCH_SECONDS          bare length of each overhead run (default 1.5)
#   BENCH_RATES            sampling rates of the overhead runs ("997 9973")
#   BENCH_WORKLOADS        which workloads ("cpu1 threads8 deep200 server50
#                          switch50"; smoke: "cpu1 switch50")
#   BENCH_ATTACH_WORKLOADS which workloads the attach step runs ("server50":
#                          fifty threads there when -p attaches)
#   BENCH_STEPS            which steps run (default all: "overhead attach many
#                          report small symbolize recorder ring maxrate
#                          syscall");
#                          the figures of the others are null
#   BENCH_MANY             the many step's thread counts ("500 1000")
#   BENCH_MANY_SECONDS     how long each tool records them (default 3)
#   BENCH_REPORT_SAMPLES   samples in the report-speed recordings (1000000)
#   BENCH_REPORT_HZ        their rate, with two threads (default 9973)
#   BENCH_REPORT_REPS      repetitions of each report (default 3)
#   BENCH_SMALL_SECONDS    length of the small recordings (default 10)
#   BENCH_SMALL_HZ         their rate (default 4999)
#   BENCH_SMALL_REPS       repetitions of each small report (default 5)
#   BENCH_LOOP_TRACES      small traces reported in a row (default 20)
#   BENCH_LOOP_SECONDS     length of each of them (default 1)
#   BENCH_SYMBOLIZE_ADDRS  addresses bench/symbolize.sh resolves (20000)
#   BENCH_CAPTURE_SECONDS  length of the recorder-cost capture (default 60)
#   BENCH_RING_SECONDS     length of the ring step's recording (default 600)
#   BENCH_MAX_RATES        the rates the max-rate sweep tries, in order
#   BENCH_OUT              the JSON file (default bench/results.json)
#   PLAYWRIGHT_DIR         where node_modules/playwright-core is (default
#                          build/node, make check's), and CHROMIUM the
#                          browser it drives, for the html page's first draw
#
# usage: bench/bench.sh   (from the top of the tree; make bench builds first)
set -eu
BUILD=${BUILD:-build}
BIN=${BIN:-.}
RECORD=${BIN%/}/prof-record
REPORT=${BIN%/}/prof-report
W=$BUILD/bench
if [ -n "${BENCH_SMOKE:-}" ]; then
	REPS=${BENCH_REPS:-1} SECS=${BENCH_SECONDS:-0.2} RATES=${BENCH_RATES:-997}
	REPORT_SAMPLES=${BENCH_REPORT_SAMPLES:-4000} REPORT_REPS=${BENCH_REPORT_REPS:-1}
	CAPTURE=${BENCH_CAPTURE_SECONDS:-1} MAX_RATES=${BENCH_MAX_RATES:-"997 9973"}
	SMALL_SECS=${BENCH_SMALL_SECONDS:-1} SMALL_REPS=${BENCH_SMALL_REPS:-1}
	LOOP_TRACES=${BENCH_LOOP_TRACES:-2} LOOP_SECS=${BENCH_LOOP_SECONDS:-0.3}
	SYM_ADDRS=${BENCH_SYMBOLIZE_ADDRS:-2000}
	MANY=${BENCH_MANY:-10} MANY_SECS=${BENCH_MANY_SECONDS:-0.5}
	WORKLOADS=${BENCH_WORKLOADS:-"cpu1 switch50"}
	RING_SECS=${BENCH_RING_SECONDS:-3} RING_EVERY=0.5 RING_FROM=0
else
	REPS=${BENCH_REPS:-5} SECS=${BENCH_SECONDS:-1.5} RATES=${BENCH_RATES:-"997 9973"}
	REPORT_SAMPLES=${BENCH_REPORT_SAMPLES:-1000000} REPORT_REPS=${BENCH_REPORT_REPS:-3}
	CAPTURE=${BENCH_CAPTURE_SECONDS:-60} MAX_RATES=${BENCH_MAX_RATES:-"997 2999 4999 9973 19997 29989 49999"}
	SMALL_SECS=${BENCH_SMALL_SECONDS:-10} SMALL_REPS=${BENCH_SMALL_REPS:-5}
	LOOP_TRACES=${BENCH_LOOP_TRACES:-20} LOOP_SECS=${BENCH_LOOP_SECONDS:-1}
	SYM_ADDRS=${BENCH_SYMBOLIZE_ADDRS:-20000}
	MANY=${BENCH_MANY:-"500 1000"} MANY_SECS=${BENCH_MANY_SECONDS:-3}
	WORKLOADS=${BENCH_WORKLOADS:-"cpu1 threads8 deep200 server50 switch50"}
	RING_SECS=${BENCH_RING_SECONDS:-600} RING_EVERY=10 RING_FROM=60
fi
SMALL_HZ=${BENCH_SMALL_HZ:-4999}
ATTACH_WORKLOADS=${BENCH_ATTACH_WORKLOADS:-server50}
STEPS=${BENCH_STEPS:-"overhead attach many report small symbolize recorder ring maxrate syscall"}
REPORT_HZ=${BENCH_REPORT_HZ:-9973}
OUT=${BENCH_OUT:-bench/results.json}
PLAYWRIGHT_DIR=${PLAYWRIGHT_DIR:-build/node}
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
TOOLS="prof-cpu prof-wall perf-fp perf-dwarf perf-sw"
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
KV=$TMP/kv      # one "KEY VALUE" line per measurement
. "$(dirname "$0")/lib.sh"
: > "$KV"
: > "$TMP/skipped"

say() { echo "bench: $*" >&2; }
die() { say "$*"; exit 1; }
put() { [ "$2" = null ] || echo "$1 $2" >> "$KV"; }  # a null is no measurement
# stats KEY: "median min max" of every value put under KEY, or "null null null".
stats() {
	awk -v k="$1" '$1 == k { v[n++] = $2 } END {
		if (!n) { print "null null null"; exit }
		for (i = 1; i < n; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		m = n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
		printf "%.10g %.10g %.10g\n", m, v[0], v[n - 1] }' "$KV"
}
median() { stats "$1" | cut -d' ' -f1; }
skip_tool() { # TOOL REASON
	echo "$1" >> "$TMP/skipped.tools"
	printf '%s\t%s\n' "$1" "$2" >> "$TMP/skipped"
	say "skipping $1: $2"
}
usable() { ! grep -qx "$1" "$TMP/skipped.tools" 2>/dev/null; }
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "null" || b == "null" || b == 0) print "null"; else printf "%.6g\n", a / b }'; }

for p in "$RECORD" "$REPORT"; do [ -x "$p" ] || die "missing $p: run make first"; done
for w in $WORKLOADS $ATTACH_WORKLOADS syscall busy; do [ -x "$W/$w" ] || die "missing $W/$w: run 'make bench'"; done
[ -x /usr/bin/time ] || die "missing /usr/bin/time: install the Debian package 'time'"

# --- which tools can run here
if ! out=$("$RECORD" -q -f --mode cpu -o "$TMP/probe.trace" -- true 2>&1); then
	skip_tool prof-cpu "$(echo "$out" | head -1)"
fi
if ! out=$("$RECORD" -q -f --mode wall -o "$TMP/probe.trace" -- true 2>&1); then
	skip_tool prof-wall "$(echo "$out" | head -1)"
fi
# perf record (6.1), as it ends, waits up to a second for its side-band
# thread, which follows the BPF programs loaded while it records: a second
# of each of the smoke run's 17 perf runs, whose figures are not kept.
# The smoke run turns that thread off (--no-bpf-event) where perf has it;
# a full run records as perf does by default, and the many step's wall
# time counts that second.
PERF_OPTS=
if [ -n "${BENCH_SMOKE:-}" ] && command -v perf > /dev/null &&
	perf record --no-bpf-event -q -o "$TMP/probe.data" -- true > /dev/null 2>&1; then
	PERF_OPTS=--no-bpf-event
fi
why=
if ! command -v perf > /dev/null; then
	why="perf is not installed (Debian package linux-perf)"
elif ! out=$(perf record $PERF_OPTS -q -o "$TMP/probe.data" -- true 2>&1); then
	why="perf record refused: $(echo "$out" | head -1)"
elif ! perf version --build-options 2> /dev/null | grep -Eq 'zstd: \[ on'; then
	skip_tool perf-fp-z "this perf has no zstd (-z)"
fi
if [ -z "$why" ]; then
	sleep 2 &
	probe=$!
	if ! out=$(perf record $PERF_OPTS -q -o "$TMP/probe.data" -p $probe -- sleep 0.1 2>&1); then
		skip_tool perf-fp-p "perf record -p refused: $(echo "$out" | head -1)"
	fi
	kill $probe 2> /dev/null
	wait $probe 2> /dev/null || true
fi
for tool in perf-fp perf-dwarf perf-sw perf-fp-z perf-fp-p; do
	[ -z "$why" ] || skip_tool "$tool" "$why"
done
# prof-report annotate (issue 32), timed on the small trace where there is one.
"$REPORT" annotate -h > /dev/null 2>&1 || skip_tool annotate "this prof-report has no annotate command"

# settle PID NAME: waits until process PID runs NAME (the exec is done)
# and its thread count has held for 10 ms, so that the threads it starts
# with are there; or until it is gone.
settle() {
	local n=-1 comm tasks
	while [ -d "/proc/$1" ]; do
		read -r comm < "/proc/$1/comm" || return 0
		tasks=(/proc/$1/task/*)
		[ "$comm" = "$2" ] && [ ${#tasks[@]} = "$n" ] && return 0
		[ "$comm" = "$2" ] && n=${#tasks[@]}
		sleep 0.01
	done
}
# attached TOOL HZ OUTFILE COMMAND...: starts COMMAND, and once its threads
# are started TOOL (prof-cpu-p, prof-wall-p, perf-fp-p) attaches to it with
# -p until it ends; fails if either fails.
attached() {
	local tool=$1 hz=$2 out=$3 pid rc=0
	shift 3
	"$@" &
	pid=$!
	settle "$pid" "$(basename "$1" | cut -c1-15)"
	case $tool in
	prof-cpu-p)  "$RECORD" -f --mode cpu -F "$hz" -o "$out" -p "$pid" ;;
	prof-wall-p) "$RECORD" -f --mode wall -F "$hz" -o "$out" -p "$pid" ;;
	perf-fp-p)   perf record $PERF_OPTS -F "$hz" -g -o "$out" -p "$pid" ;;
	esac || rc=$?
	wait "$pid" || rc=$?
	return "$rc"
}
# --- one run: run TOOL HZ OUTFILE COMMAND...; leaves "SECONDS CPU SAMPLES LOST" in $TMP/run.
# A TOOL ending in -p attaches to COMMAND (attached()).
run() {
	local tool=$1 hz=$2 out=$3 log=$TMP/run.err
	shift 3
	rm -f "$out"
	case $tool in
	bare)       "$@" ;;
	prof-cpu)   "$RECORD" -f --mode cpu -F "$hz" -o "$out" -- "$@" ;;
	prof-wall)  "$RECORD" -f --mode wall -F "$hz" -o "$out" -- "$@" ;;
	prof-cpu-events) "$RECORD" -f --mode cpu -F "$hz" --events "$out.events" -o "$out" -- "$@" ;;
	perf-fp)    perf record $PERF_OPTS -F "$hz" -g -o "$out" -- "$@" ;;
	perf-fp-z)  perf record $PERF_OPTS -z -F "$hz" -g -o "$out" -- "$@" ;;
	perf-dwarf) perf record $PERF_OPTS -F "$hz" --call-graph dwarf -o "$out" -- "$@" ;;
	perf-sw)    perf record $PERF_OPTS -e "cpu-clock/freq=$hz/" -e context-switches/period=1/ -g -o "$out" -- "$@" ;;
	*-p)        attached "$tool" "$hz" "$out" "$@" ;;
	esac > "$TMP/run.out" 2> "$log" || die "$tool $*: failed: $(tail -3 "$log")"
	local secs cpu samples=null lost=0
	secs=$(sed -n 's/.*work took \([0-9.]*\) s.*/\1/p' "$TMP/run.out")
	cpu=$(sed -n 's/.*, cpu \([0-9.]*\) s$/\1/p' "$TMP/run.out")
	[ -n "$secs" ] || die "$tool $*: no timing from the workload: $(head -3 "$TMP/run.out")"
	case $tool in
	prof-*)
		samples=$(sed -n 's/^prof-record: \([0-9]*\) samples, .* \([0-9]*\) lost, .*/\1/p' "$log")
		lost=$(sed -n 's/^prof-record: [0-9]* samples, .* \([0-9]*\) lost, .*/\1/p' "$log") ;;
	perf-fp-z)
		samples=$(perf script -i "$out" -F tid 2> /dev/null | wc -l) ;;
	perf-*)
		samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$log")
		lost=$(perf_lost "$out") ;;
	esac
	echo "$secs $cpu ${samples:-null} ${lost:-0}" > "$TMP/run"
}
# perf_lost FILE: the samples perf lost, as its per-event stats count them.
perf_lost() {
	perf report -i "$1" --stats 2> /dev/null |
		awk '/ stats:$/ && !/Aggregated/ { ev = 1 } ev && $1 == "LOST_SAMPLES" { n += $3 } END { print n + 0 }'
}
# lost_share SAMPLES LOST: the lost share of the samples due, in percent.
lost_share() { awk -v n="$1" -v l="$2" 'BEGIN { if (n == "null" || n + l == 0) print "null"; else printf "%.4g\n", l * 100 / (n + l) }'; }
# bps FILE SAMPLES: bytes per sample.
bps() { ratio "$(stat -c %s "$1")" "$2"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date +%s)
say "load average $load_before; $REPS repetitions of ${SECS} s runs at $RATES Hz"

# --- what the steps share: the mode prof records the report steps' traces
# in, perf's folded report, timing one command, the small traces' program
rmode=prof-cpu
usable prof-cpu || rmode=prof-wall
PERF_FOLDED="perf report --stdio --no-children -g folded -i"
tm() { # tm KEY COMMAND...: wall time and peak RSS of one run, its output in $TMP/tm.out
	local key=$1 secs rss
	shift
	read -r secs rss < <(timed "$TMP/tm.out" "$@") || die "$*: failed"
	put "$key.seconds" "$secs"
	put "$key.rss_kib" "$rss"
}
SMALL=$BUILD/testdata/rust/shapes
stages() { # stages STEP TRACE: one more prof-report folded of TRACE, its time by stage (PROF_REPORT_TIMING)
	PROF_REPORT_TIMING=1 "$REPORT" folded "$2" 2>&1 > /dev/null |
		sed -n 's/^prof-report: timing: //p' > "$TMP/stages.$1"
}

# --- overhead and size
if step overhead; then
	for w in $WORKLOADS; do
		run bare 0 "$TMP/none" "$W/$w" "$SECS"
		units=$(sed -n 's/.*: \([0-9]*\) units.*/\1/p' "$TMP/run.out")
		for hz in $RATES; do
			say "overhead: $w at $hz Hz ($units units)"
			for rep in $(seq "$REPS"); do
				run bare "$hz" "$TMP/none" "$W/$w" -n "$units"
				read -r base _ < "$TMP/run"
				put "bare.$w.$hz" "$base"
				for tool in $TOOLS; do
					usable "$tool" || continue
					f=$TMP/$tool.out
					run "$tool" "$hz" "$f" "$W/$w" -n "$units"
					read -r secs _ samples lost < "$TMP/run"
					echo "$secs" > "$TMP/secs.$tool"
					put "slowdown.$w.$hz.$tool" "$(ratio "$secs" "$base")"
					put "bps.$w.$hz.$tool" "$(bps "$f" "$samples")"
					put "lost.$w.$hz.$tool" "$(lost_share "$samples" "$lost")"
				done
				# Against perf -g in this repetition: the ratio of the
				# slowdowns, and their difference in points.
				for tool in prof-cpu prof-wall; do
					usable "$tool" && usable perf-fp || continue
					a=$(cat "$TMP/secs.$tool") b=$(cat "$TMP/secs.perf-fp")
					put "vsfp.$w.$hz.$tool" "$(ratio "$a" "$b")"
					put "ptsfp.$w.$hz.$tool" "$(awk -v a="$a" -v b="$b" -v c="$base" 'BEGIN { printf "%.6g\n", (a - b) / c * 100 }')"
				done
				# What --events costs: prof cpu with its events written
				# for a host, against without, in points.
				if usable prof-cpu; then
					run prof-cpu-events "$hz" "$TMP/ev.out" "$W/$w" -n "$units"
					read -r a _ < "$TMP/run"
					put "evpts.$w.$hz" "$(awk -v a="$a" -v b="$(cat "$TMP/secs.prof-cpu")" -v c="$base" 'BEGIN { printf "%.6g\n", (a - b) / c * 100 }')"
				fi
			done
			if usable perf-fp-z; then
				run perf-fp-z "$hz" "$TMP/z.data" "$W/$w" -n "$units"
				read -r _ _ samples _ < "$TMP/run"
				put "bps.$w.$hz.perf-fp-z" "$(bps "$TMP/z.data" "$samples")"
			fi
		done
	done
fi

# --- attach: what -p costs. At 997 Hz, in each repetition: the bare run,
# then for each tool (prof in each mode, perf -g) the workload launched by
# it and the workload attached to with -p once its threads are started.
# Each time over the bare time; attached over launched; and prof attached
# against perf -g attached, in points and as a ratio. An attaching tool
# starts while the workload runs: its start-up counts against the
# workload, and what runs before its events are open is not sampled, which
# the sample counts, attached against launched, show.
ATTACH_TOOLS="prof-cpu prof-wall perf-fp"
if step attach; then
	# At least 1 s, so that a tool starting on a loaded machine attaches
	# well before the workload ends (BENCH_SMOKE's runs are 0.4 s).
	asecs=$(awk -v s="$SECS" 'BEGIN { print s < 1 ? 1 : s }')
	for w in $ATTACH_WORKLOADS; do
		run bare 0 "$TMP/none" "$W/$w" "$asecs"
		units=$(sed -n 's/.*: \([0-9]*\) units.*/\1/p' "$TMP/run.out")
		say "attach: $w at 997 Hz ($units units), launched and attached to"
		for rep in $(seq "$REPS"); do
			run bare 997 "$TMP/none" "$W/$w" -n "$units"
			read -r base _ < "$TMP/run"
			put "attach.bare.$w" "$base"
			rm -f "$TMP"/asecs.*
			for tool in $ATTACH_TOOLS; do
				for t in "$tool" "$tool-p"; do
					usable "$tool" && usable "$t" || continue
					run "$t" 997 "$TMP/a.out" "$W/$w" -n "$units"
					read -r secs _ samples _ < "$TMP/run"
					echo "$secs" > "$TMP/asecs.$t"
					put "attach.slowdown.$w.$t" "$(ratio "$secs" "$base")"
					put "attach.samples.$w.$t" "$samples"
				done
				[ -s "$TMP/asecs.$tool-p" ] || continue
				put "attach.vslaunch.$w.$tool" "$(ratio "$(cat "$TMP/asecs.$tool-p")" "$(cat "$TMP/asecs.$tool")")"
			done
			for tool in prof-cpu prof-wall; do
				[ -s "$TMP/asecs.$tool-p" ] && [ -s "$TMP/asecs.perf-fp-p" ] || continue
				a=$(cat "$TMP/asecs.$tool-p") b=$(cat "$TMP/asecs.perf-fp-p")
				put "attach.vsfp.$w.$tool" "$(ratio "$a" "$b")"
				put "attach.ptsfp.$w.$tool" "$(awk -v a="$a" -v b="$b" -v c="$base" 'BEGIN { printf "%.6g\n", (a - b) / c * 100 }')"
			done
		done
	done
fi

# --- many: -p on a process of many busy threads (busy -j N, which keeps
# both CPUs busy), each tool recording MANY_SECS seconds of it: prof with
# -d, perf -g -p with a sleep. Every command started while busy runs waits
# for a CPU, the tools' own execs too, so the clock is time(1) started by
# a real-time shell (as root), and each tool is started at normal priority
# as a user would start it; /bin/true, timed the same way, says how long
# any command waits there before it runs. A tool that has not ended after
# 120 s is stopped, and its figures are null. For prof also its first
# sample, in seconds after it started (-v).
MANY_TOOLS="prof-cpu prof-wall perf-fp"
# many_run TOOL N OUT: leaves "SECONDS SAMPLES LOST THREADS-SEEN THREADS
# FIRST" in $TMP/many; TOOL true times /bin/true alone.
many_run() {
	local tool=$1 n=$2 out=$3 pid tasks secs samples lost seen first rt=""
	rm -f "$out"
	"$W/busy" -j "$n" > "$TMP/busy.out" &
	pid=$!
	for i in $(seq 600); do grep -q ready "$TMP/busy.out" && break; sleep 0.1; done
	tasks=$(ls "/proc/$pid/task" | wc -l)
	case $tool in
	prof-*) cmd="'$RECORD' -v -f --mode ${tool#prof-} -d $MANY_SECS -o '$out' -p $pid" ;;
	perf-fp) cmd="perf record $PERF_OPTS -g -o '$out' -p $pid -- sleep $MANY_SECS" ;;
	true) cmd=true ;;
	esac
	[ "$(id -u)" = 0 ] && rt="chrt -f 2"
	if $rt sh -c "exec /usr/bin/time -f %e -o '$TMP/many.time' timeout 120 ${rt:+chrt -o 0} $cmd" \
		> /dev/null 2> "$TMP/many.err"; then
		secs=$(tail -1 "$TMP/many.time")
	else
		say "many: $tool on $n threads: $(grep -v '^Command' "$TMP/many.err" | tail -2)"
		secs=null
	fi
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null || true
	samples=null lost=null seen=null first=null
	if [ "$secs" != null ]; then
		case $tool in
		prof-*)
			samples=$(sed -n 's/^prof-record: \([0-9]*\) samples, .*/\1/p' "$TMP/many.err")
			lost=$(sed -n 's/^prof-record: [0-9]* samples, .* \([0-9]*\) lost, .*/\1/p' "$TMP/many.err")
			first=$(sed -n 's/^prof-record: first sample \([0-9.]*\) s after the start$/\1/p' "$TMP/many.err")
			seen=$("$REPORT" info "$out" | sed -n 's/^threads: //p') ;;
		perf-*)
			samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/many.err")
			lost=$(perf_lost "$out")
			seen=$(perf script -i "$out" -F tid 2> /dev/null | sort -u | wc -l) ;;
		esac
	fi
	echo "$secs ${samples:-null} ${lost:-null} ${seen:-null} $tasks ${first:-null}" > "$TMP/many"
}
if step many; then
	for n in $MANY; do
		say "many: /bin/true while busy -j $n runs"
		many_run true "$n" "$TMP/many.true"
		read -r secs _ < "$TMP/many"
		put "many.$n.true.seconds" "$secs"
		for tool in $MANY_TOOLS; do
			usable "$tool" || continue
			say "many: $tool on busy -j $n for $MANY_SECS s"
			many_run "$tool" "$n" "$TMP/many.out"
			read -r secs samples lost seen tasks first < "$TMP/many"
			put "many.$n.$tool.seconds" "$secs"
			put "many.$n.$tool.samples" "$samples"
			put "many.$n.$tool.lost" "$lost"
			put "many.$n.$tool.lost_share" "$(lost_share "$samples" "${lost/null/0}")"
			put "many.$n.$tool.threads_seen" "$seen"
			put "many.$n.$tool.threads" "$tasks"
			put "many.$n.$tool.first_sample" "$first"
		done
	done
fi

# --- report speed: the same work, two threads of deep200, recorded by prof
# (cpu mode, or wall mode where perf_event is refused) and by perf. The work
# is sized in CPU time, which is what cpu-clock samples, so both recordings
# hold about REPORT_SAMPLES samples however loaded the machine is. prof's
# trace is also written as an html page, whose size and first draw are
# measured.
#
# html_draw KEY PAGE: the time PAGE takes to draw its first view in
# headless Chromium (tests/browser/html.mjs, which the test set-up's
# playwright-core drives), in seconds, put as KEY; skipped, with why,
# where there is no browser.
html_draw() {
	local ms
	if [ ! -d "$PLAYWRIGHT_DIR/node_modules/playwright-core" ] || ! command -v "$CHROMIUM" > /dev/null; then
		skip_tool html-browser "no playwright-core in $PLAYWRIGHT_DIR or no $CHROMIUM (make check's set-up installs them)"
		return
	fi
	ms=$(PLAYWRIGHT_DIR=$PLAYWRIGHT_DIR CHROMIUM=$CHROMIUM timeout 300 node tests/browser/html.mjs "big=$2" |
		sed -n 's/.*first draw at \([0-9.]*\) ms.*/\1/p' | head -1)
	[ -n "$ms" ] && put "$1" "$(awk -v m="$ms" 'BEGIN { print m / 1000 }')"
}

if step report; then
	run bare 0 "$TMP/none" "$W/deep200" "$SECS" -j 2
	runits=$(awk -v n="$REPORT_SAMPLES" -v hz="$REPORT_HZ" -v line="$(cat "$TMP/run.out")" 'BEGIN {
		split(line, f, /[ ,]+/); printf "%.0f\n", f[2] / f[9] * n / hz }')
	say "report: recording deep200 -j 2 -n $runits at $REPORT_HZ Hz, for about $REPORT_SAMPLES samples"
	if usable "$rmode"; then
		run "$rmode" "$REPORT_HZ" "$TMP/r.trace" "$W/deep200" -n "$runits" -j 2
		read -r _ _ samples _ < "$TMP/run"
		put report.prof.samples "$samples"
		put report.prof.bps "$(bps "$TMP/r.trace" "$samples")"
	fi
	if usable perf-fp; then
		run perf-fp "$REPORT_HZ" "$TMP/r.data" "$W/deep200" -n "$runits" -j 2
		read -r _ _ samples _ < "$TMP/run"
		put report.perf.samples "$samples"
	fi
	for rep in $(seq "$REPORT_REPS"); do
		if usable "$rmode"; then
			tm report.prof_folded "$REPORT" folded "$TMP/r.trace"
			[ "$rep" -gt 1 ] || put report.prof.unique_stacks "$(wc -l < "$TMP/tm.out")"
			tm report.prof_svg "$REPORT" svg "$TMP/r.trace" -o "$TMP/r.svg"
			tm report.prof_html "$REPORT" html "$TMP/r.trace" -o "$TMP/r.html"
			[ "$rep" -gt 1 ] || put report.prof.html_bytes "$(stat -c %s "$TMP/r.html")"
			html_draw report.prof.html_first_draw "$TMP/r.html"
		fi
		if usable perf-fp; then
			tm report.perf_folded $PERF_FOLDED "$TMP/r.data"
		fi
	done
	usable "$rmode" && stages report "$TMP/r.trace"
fi

# --- small traces: what a user opens while working, one after another.
# The Rust fixture (4.4 MB with its DWARF, and libc, named through
# libc6-dbg) recorded by prof and by perf -g at SMALL_HZ: one trace of
# SMALL_SECS, reported SMALL_REPS times by each tool, interleaved; then
# LOOP_TRACES traces of LOOP_SECS, each reported once in a row, the whole
# loop timed, REPORT_REPS times.
if step small; then
	small_ok=
	if [ ! -x "$SMALL" ]; then
		skip_tool small "no $SMALL (the Rust fixture; rustc is needed to build it)"
	elif ! usable "$rmode"; then
		skip_tool small "prof-record cannot record here"
	else
		small_ok=1
	fi
	record_small() { # record_small prof|perf SECONDS OUT: records the Rust fixture, prints the sample count
		local tool=$1 secs=$2 out=$3 n
		case $tool in
		prof) "$RECORD" -f --mode "${rmode#prof-}" -F "$SMALL_HZ" -o "$out" -- "$SMALL" "$secs" ;;
		perf) perf record $PERF_OPTS -F "$SMALL_HZ" -g -o "$out" -- "$SMALL" "$secs" ;;
		esac > /dev/null 2> "$TMP/small.err" || die "$tool on $SMALL: $(tail -3 "$TMP/small.err")"
		case $tool in
		prof) n=$(sed -n 's/^prof-record: \([0-9]*\) samples.*/\1/p' "$TMP/small.err") ;;
		perf) n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/small.err") ;;
		esac
		echo "${n:-null}"
	}
	if [ -n "$small_ok" ]; then
		say "small: recording $SMALL for $SMALL_SECS s at $SMALL_HZ Hz"
		put small.prof.samples "$(record_small prof "$SMALL_SECS" "$TMP/s.trace")"
		usable perf-fp && put small.perf.samples "$(record_small perf "$SMALL_SECS" "$TMP/s.data")"
		for rep in $(seq "$SMALL_REPS"); do
			tm small.prof_folded "$REPORT" folded "$TMP/s.trace"
			[ "$rep" -gt 1 ] || put small.prof.unique_stacks "$(wc -l < "$TMP/tm.out")"
			usable annotate && tm small.prof_annotate "$REPORT" annotate "$TMP/s.trace"
			usable perf-fp && tm small.perf_folded $PERF_FOLDED "$TMP/s.data"
		done
		stages small "$TMP/s.trace"
		say "small: recording $LOOP_TRACES traces of $LOOP_SECS s"
		for i in $(seq "$LOOP_TRACES"); do
			put loop.prof.samples "$(record_small prof "$LOOP_SECS" "$TMP/l$i.trace")"
			usable perf-fp && put loop.perf.samples "$(record_small perf "$LOOP_SECS" "$TMP/l$i.data")"
		done
		for rep in $(seq "$REPORT_REPS"); do
			for tool in prof perf; do
				[ $tool = prof ] || usable perf-fp || continue
				total=0 peak=0
				for i in $(seq "$LOOP_TRACES"); do
					if [ $tool = prof ]; then cmd=("$REPORT" folded "$TMP/l$i.trace")
					else cmd=($PERF_FOLDED "$TMP/l$i.data"); fi
					read -r secs rss < <(timed "$TMP/tm.out" "${cmd[@]}") || die "${cmd[*]}: failed"
					total=$(awk -v a="$total" -v b="$secs" 'BEGIN { print a + b }')
					[ "$rss" -le "$peak" ] || peak=$rss
				done
				put "loop.${tool}_folded.seconds" "$total"
				put "loop.${tool}_folded.rss_kib" "$peak"
			done
		done
	fi
fi

# --- symbolization: bench/symbolize.sh's addresses, prof-report against
# llvm-symbolizer
if step symbolize; then
	if ! command -v llvm-symbolizer > /dev/null; then
		skip_tool symbolize "llvm-symbolizer is not installed (Debian package llvm)"
	elif [ ! -x "$SMALL" ]; then
		skip_tool symbolize "no $SMALL (the Rust fixture; rustc is needed to build it)"
	else
		say "symbolize: $SYM_ADDRS addresses of libc and the Rust fixture"
		rc=0
		BENCH_KV=$KV SYMBOLIZE_REPS=$REPORT_REPS BUILD=$BUILD BIN=$BIN \
			bash "$(dirname "$0")/symbolize.sh" "$SYM_ADDRS" > "$TMP/symbolize.out" 2> "$TMP/symbolize.err" || rc=$?
		case $rc in
		0) ;;
		2) skip_tool symbolize "$(tail -1 "$TMP/symbolize.err")" ;;
		*) die "bench/symbolize.sh failed: $(tail -3 "$TMP/symbolize.err")" ;;
		esac
	fi
fi

# --- recorder cost: prof-record attached to threads8 for CAPTURE seconds
if step recorder; then
	for mode in cpu wall; do
		usable "prof-$mode" || continue
		say "recorder: $mode mode attached to threads8 for $CAPTURE s"
		"$W/threads8" "$(awk -v c="$CAPTURE" 'BEGIN { print c + 3 }')" > /dev/null &
		pid=$!
		sleep 0.2
		/usr/bin/time -f '%U %S %M' -o "$TMP/tm" "$RECORD" -f --mode "$mode" -F 997 -d "$CAPTURE" \
			-p "$pid" -o "$TMP/c.trace" 2> "$TMP/c.err" || die "recorder $mode: $(tail -3 "$TMP/c.err")"
		# It ran 3 s longer than the capture, so as to outlive it; the
		# rest of its time is measured by nothing.
		kill "$pid" 2> /dev/null || true
		wait "$pid" 2> /dev/null || true
		read -r user sys rss < "$TMP/tm"
		samples=$(sed -n 's/^prof-record: \([0-9]*\) samples.*/\1/p' "$TMP/c.err")
		put "recorder.$mode.samples" "$samples"
		put "recorder.$mode.us_per_sample" "$(awk -v u="$user" -v s="$sys" -v n="$samples" 'BEGIN { printf "%.3f\n", n ? (u + s) * 1e6 / n : 0 }')"
		put "recorder.$mode.rss_kib" "$rss"
		put "recorder.$mode.bps" "$(bps "$TMP/c.trace" "$samples")"
	done
fi

# --- ring: the flight recorder's memory over a long recording.
# prof-record --ring 30 in wall mode at 997 Hz launches threads8 for
# RING_SECS seconds; its VmRSS (the recorder's, not the workload's) is
# read every RING_EVERY seconds, on a grid from its start so that the
# readings do not drift. The ring holds 30 s, so its chunks have come and
# gone many times over by the end: after the first minute (RING_FROM) its
# memory should stay flat. The figures: the RSS at the first reading from
# RING_FROM on, at the last and the largest; the last over that first, and
# the change between them in KiB a minute; and the samples and duration
# of the window written to -o at the end (prof-report info). With KEEP=1
# the readings stay in $TMP/ring.rss, and the recorder's smaps_rollup at
# that first reading and at the last in $TMP/ring.smaps.*, for what grew.
# ring_rss PID: PID's VmRSS in KiB; nothing once it has ended.
ring_rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2> /dev/null || true; }
: > "$TMP/ring.rss"
if step ring; then
	if ! usable prof-wall; then
		skip_tool ring "prof-record cannot record in wall mode here"
	else
		say "ring: wall mode --ring 30 launching threads8 for $RING_SECS s, its RSS every $RING_EVERY s"
		"$RECORD" -f --mode wall -F 997 --ring 30 -o "$TMP/ring.trace" -- "$W/threads8" "$RING_SECS" \
			> /dev/null 2> "$TMP/ring.err" &
		pid=$!
		t0=$(date +%s%N)
		k=0
		while :; do
			k=$((k + 1))
			sleep "$(awk -v k="$k" -v e="$RING_EVERY" -v t0="$t0" -v now="$(date +%s%N)" \
				'BEGIN { d = k * e - (now - t0) / 1e9; print (d > 0 ? d : 0) }')"
			rss=$(ring_rss "$pid")
			[ -n "$rss" ] || break
			t=$(awk -v t0="$t0" -v now="$(date +%s%N)" 'BEGIN { printf "%.2f\n", (now - t0) / 1e9 }')
			echo "$t $rss" >> "$TMP/ring.rss"
			if [ ! -e "$TMP/ring.smaps.first" ] && awk -v t="$t" -v f="$RING_FROM" 'BEGIN { exit !(t >= f) }'; then
				cp "/proc/$pid/smaps_rollup" "$TMP/ring.smaps.first" 2> /dev/null || true
			else
				cp "/proc/$pid/smaps_rollup" "$TMP/ring.smaps.last" 2> /dev/null || true
			fi
		done
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" = 0 ] || die "ring: prof-record failed: $(tail -3 "$TMP/ring.err")"
		[ -s "$TMP/ring.rss" ] || die "ring: prof-record ended before its RSS was read"
		read -r first first_t last last_t max < <(awk -v f="$RING_FROM" '
			!n++ || $2 > max { max = $2 }
			first == "" && $1 >= f { first = $2; ft = $1 }
			{ last = $2; lt = $1 }
			END { print first == "" ? "null" : first, first == "" ? "null" : ft, last, lt, max }' "$TMP/ring.rss")
		put ring.rss_first "$first"
		put ring.rss_first_at "$first_t"
		put ring.rss_last "$last"
		put ring.rss_last_at "$last_t"
		put ring.rss_max "$max"
		put ring.growth "$(ratio "$last" "$first")"
		put ring.kib_per_minute "$(awk -v a="$first" -v at="$first_t" -v b="$last" -v bt="$last_t" \
			'BEGIN { if (a == "null" || bt <= at) print "null"; else printf "%.4g\n", (b - a) * 60 / (bt - at) }')"
		n=$(sed -n 's/^prof-record: \([0-9]*\) samples.*/\1/p' "$TMP/ring.err")
		put ring.samples_recorded "${n:-null}"
		"$REPORT" info "$TMP/ring.trace" > "$TMP/ring.info" 2> "$TMP/ring.info.err" ||
			die "ring: prof-report info: $(tail -3 "$TMP/ring.info.err")"
		n=$(awk '/^samples:/ { print $2 }' "$TMP/ring.info")
		put ring.window_samples "${n:-null}"
		n=$(awk '/^duration:/ { print $2 }' "$TMP/ring.info")
		put ring.window_seconds "${n:-null}"
	fi
fi

# --- max rate: cpu mode on one busy thread (whose ring fills fastest) and
# on eight (which keep the recorder from a CPU), rising rates until one
# loses 0.1% or more
: > "$TMP/maxrate"
if step maxrate; then
	for w in cpu1 threads8; do
		usable prof-cpu || break
		best=null
		for hz in $MAX_RATES; do
			say "max rate: cpu mode on $w at $hz Hz"
			if ! "$RECORD" -f --mode cpu -F "$hz" -o "$TMP/m.trace" -- "$W/$w" "$SECS" \
				> "$TMP/run.out" 2> "$TMP/run.err"; then
				say "cpu mode refused $hz Hz: $(head -1 "$TMP/run.err")"
				break
			fi
			samples=$(sed -n 's/^prof-record: \([0-9]*\) samples.*/\1/p' "$TMP/run.err")
			lost=$(sed -n 's/^prof-record: .* \([0-9]*\) lost,.*/\1/p' "$TMP/run.err")
			echo "$w $hz $samples $lost" >> "$TMP/maxrate"
			awk -v s="$samples" -v l="$lost" 'BEGIN { exit !(l * 1000 < s + l) }' || break
			best=$hz
		done
		put "maxrate.$w" "$best"
	done
fi

# --- syscall: the share of read_chunk (which calls read(2)) in the
# workload's own measure of its CPU time, in prof's cpu mode and in perf's
# DWARF call graphs, of the same runs' repetitions
# share_folded FILE: read_chunk's share of the samples of folded stacks.
share_folded() { awk '{ n += $NF; if ($1 ~ /;read_chunk(;|$)/) k += $NF } END { printf "%.4f\n", n ? k / n : 0 }' "$1"; }
if step syscall; then
	run bare 0 "$TMP/none" "$W/syscall" "$SECS"
	units=$(sed -n 's/.*: \([0-9]*\) units.*/\1/p' "$TMP/run.out")
	say "syscall: read(2)'s share, $units units at 997 Hz"
	for rep in $(seq "$REPS"); do
		for tool in prof-cpu perf-dwarf; do
			usable "$tool" || continue
			run "$tool" 997 "$TMP/sys.$tool" "$W/syscall" -n "$units"
			put syscall.own "$(sed -n 's/.*cpu share \([0-9.]*\).*/\1/p' "$TMP/run.out")"
			case $tool in
			prof-cpu) "$REPORT" folded "$TMP/sys.$tool" > "$TMP/sys.folded" ;;
			perf-dwarf) perf script -i "$TMP/sys.$tool" -F ip,sym 2> /dev/null | awk -v RS= '{
				n = split($0, l, "\n"); s = ""
				for (i = n; i >= 1; i--) { split(l[i], f, " "); s = s ";" f[2] }
				print substr(s, 2), 1 }' > "$TMP/sys.folded" ;;
			esac
			put "syscall.$tool" "$(share_folded "$TMP/sys.folded")"
		done
	done
fi

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - t_start))

# Nothing more is measured: each key's "median min max" is worked out
# once, in one pass, and stats and median read them from there; an awk
# run for each of the 300 figures below took 8 s on a loaded machine.
declare -A STATS
while read -r k v; do STATS[$k]=$v; done < <(awk '{ v[$1, n[$1]++] = $2 } END {
	for (k in n) {
		c = n[k]
		for (i = 0; i < c; i++) s[i] = v[k, i]
		for (i = 1; i < c; i++) for (j = i; j > 0 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
		m = c % 2 ? s[int(c / 2)] : (s[c / 2 - 1] + s[c / 2]) / 2
		printf "%s %.10g %.10g %.10g\n", k, m, s[0], s[c - 1] } }' "$KV")
stats() { echo "${STATS[$1]:-null null null}"; }
median() { local s=${STATS[$1]:-null}; echo "${s%% *}"; }

# --- the results: JSON with its keys in a fixed order, then the table
# jstat KEY: {"median": M, "min": A, "max": B} of KEY's values.
jstat() { stats "$1" | awk '{ printf "{\"median\": %s, \"min\": %s, \"max\": %s}", $1, $2, $3 }'; }
jstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"; }
jlist() { printf '%s\n' "$@" | paste -sd, - | sed 's/,/, /g'; }
# target NAME VALUE OP LIMIT: one line of $TMP/targets, with whether it is
# met (null without a value).
target() {
	awk -v n="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN { if (v == "null") m = "null";
		else m = (op == "<=" ? v <= l : v >= l) ? "true" : "false"; print n, v, op, l, m }' >> "$TMP/targets"
}
# worst VALUE...: the largest (W_PICK=max) or smallest of the values; null
# if one is null or there are none (a workload left out of BENCH_WORKLOADS).
worst() { printf '%s\n' "$@" | awk -v pick="$W_PICK" 'NF == 0 { next } $1 == "null" { bad = 1 }
	$1 != "null" { if (!n++ || (pick == "max" ? $1 > v : $1 < v)) v = $1 }
	END { print (bad || !n) ? "null" : v }'; }
# nest FN: {"WORKLOAD": {"HZ": (what FN WORKLOAD HZ prints), ...}, ...}
nest() {
	local sep="" rsep w hz
	for w in $WORKLOADS; do
		printf '%s    "%s": {\n' "$sep" "$w"
		rsep=""
		for hz in $RATES; do
			printf '%s      "%s": %s' "$rsep" "$hz" "$("$1" "$w" "$hz")"
			rsep=$',\n'
		done
		printf '\n    }'
		sep=$',\n'
	done
	echo
}
overhead_entry() {
	printf '{\n        "bare_seconds": %s' "$(jstat "bare.$1.$2")"
	for tool in $TOOLS; do printf ',\n        "%s": %s' "$tool" "$(jstat "slowdown.$1.$2.$tool")"; done
	printf '\n      }'
}
# attach_entry WORKLOAD: the attach step's figures for it, as JSON.
attach_entry() {
	local w=$1 k key tool sep
	printf '{\n      "bare_seconds": %s' "$(jstat "attach.bare.$w")"
	for k in launched attached attached_vs_launched samples_launched samples_attached points_over_perf_fp vs_perf_fp; do
		printf ',\n      "%s": {' "$k"
		sep=""
		for tool in $ATTACH_TOOLS; do
			case $k in
			launched) key=attach.slowdown.$w.$tool ;;
			attached) key=attach.slowdown.$w.$tool-p ;;
			attached_vs_launched) key=attach.vslaunch.$w.$tool ;;
			samples_launched) key=attach.samples.$w.$tool ;;
			samples_attached) key=attach.samples.$w.$tool-p ;;
			points_over_perf_fp) key=attach.ptsfp.$w.$tool ;;
			vs_perf_fp) key=attach.vsfp.$w.$tool ;;
			esac
			case $k:$tool in *_perf_fp:perf-fp) continue ;; esac
			printf '%s"%s": %s' "$sep" "$tool" "$(jstat "$key")"
			sep=", "
		done
		printf '}'
	done
	printf '\n    }'
}
lost_entry() {
	local sep="" tool
	printf '{'
	for tool in $TOOLS; do
		printf '%s"%s": %s' "$sep" "$tool" "$(median "lost.$1.$2.$tool")"
		sep=", "
	done
	printf '}'
}
# many_entry N: the many step's figures for busy -j N, as JSON.
many_entry() {
	local sep="," tool k
	printf '{\n      "true_seconds": %s' "$(median "many.$1.true.seconds")"
	for tool in $MANY_TOOLS; do
		printf '%s\n      "%s": {' "$sep" "$tool"
		local ksep=""
		for k in seconds samples lost lost_share threads_seen threads first_sample; do
			printf '%s"%s": %s' "$ksep" "$k" "$(median "many.$1.$tool.$k")"
			ksep=", "
		done
		printf '}'
		sep=","
	done
	printf '\n    }'
}
size_entry() {
	local sep="" tool
	printf '{'
	for tool in $TOOLS perf-fp-z; do
		printf '%s"%s": %s' "$sep" "$tool" "$(median "bps.$1.$2.$tool")"
		sep=", "
	done
	printf '}'
}

first_rate=${RATES%% *}
steady="cpu1 threads8"
vs_fp=()
# vs_perf KIND TOOL HZ: the worst over the workloads of the median of the
# per-repetition comparisons with perf -g (KIND ptsfp: points more of
# slowdown; vsfp: the ratio of the slowdowns).
# switch50 is there for what is lost; perf's cost is held to on the others.
vs_perf() {
	local w v=()
	for w in $WORKLOADS; do [ "$w" = switch50 ] || v+=("$(median "$1.$w.$3.$2")"); done
	W_PICK=max worst "${v[@]}"
}
for w in $steady; do
	case " $WORKLOADS " in *" $w "*) ;; *) continue ;; esac
	for tool in prof-cpu prof-wall; do
		vs_fp+=("$(ratio "$(median "bps.$w.$first_rate.perf-fp")" "$(median "bps.$w.$first_rate.$tool")")")
	done
done
# A steady workload's size is that of the long captures: a short run's
# trace is mostly its image table and thread names.
bps_prof=("$(median recorder.cpu.bps)" "$(median recorder.wall.bps)")
speedup=$(ratio "$(median report.perf_folded.seconds)" "$(median report.prof_folded.seconds)")
small_speedup=$(ratio "$(median small.perf_folded.seconds)" "$(median small.prof_folded.seconds)")
annotate_vs_folded=$(ratio "$(median small.prof_annotate.seconds)" "$(median small.prof_folded.seconds)")
loop_speedup=$(ratio "$(median loop.perf_folded.seconds)" "$(median loop.prof_folded.seconds)")
sym_speedup=$(ratio "$(median symbolize.llvm.seconds)" "$(median symbolize.prof.seconds)")
rss_max=$(W_PICK=max worst "$(median recorder.cpu.rss_kib)" "$(median recorder.wall.rss_kib)")
rss_mib=$(awk -v k="$rss_max" 'BEGIN { print k == "null" ? "null" : k / 1024 }')
target cpu_997_points_over_perf_fp "$(vs_perf ptsfp prof-cpu 997)" "<=" 1
target wall_997_points_over_perf_fp "$(vs_perf ptsfp prof-wall 997)" "<=" 2
target cpu_9973_vs_perf_fp "$(vs_perf vsfp prof-cpu 9973)" "<=" 1.05
target wall_9973_vs_perf_fp "$(vs_perf vsfp prof-wall 9973)" "<=" 1.05
for w in switch50 server50; do
	target "wall_997_lost_percent_$w" "$(median "lost.$w.997.prof-wall")" "<=" 0.5
done
for mode in cpu wall; do
	target "many_500_${mode}_lost_percent" "$(median "many.500.prof-$mode.lost_share")" "<=" 1
	target "many_500_${mode}_threads_unseen" "$(awk -v a="$(median "many.500.prof-$mode.threads")" \
		-v b="$(median "many.500.prof-$mode.threads_seen")" 'BEGIN { print a == "null" || b == "null" ? "null" : a - b }')" "<=" 0
	target "many_500_${mode}_seconds_over_$MANY_SECS" "$(awk -v a="$(median "many.500.prof-$mode.seconds")" \
		-v s="$MANY_SECS" 'BEGIN { print a == "null" ? "null" : a - s }')" "<=" 1.5
	target "many_1000_${mode}_first_sample_seconds" "$(median "many.1000.prof-$mode.first_sample")" "<=" 1
done
target trace_bytes_per_sample "$(W_PICK=max worst "${bps_prof[@]}")" "<=" 4
target trace_smaller_than_perf_fp "$(W_PICK=min worst "${vs_fp[@]}")" ">=" 15
target folded_faster_than_perf_report "$speedup" ">=" 50
target small_folded_vs_perf_report "$small_speedup" ">=" 1
target small_annotate_vs_folded "$annotate_vs_folded" "<=" 2
target report_html_mib "$(awk -v b="$(median report.prof.html_bytes)" 'BEGIN { print b == "null" ? "null" : b / 1048576 }')" "<=" 8
target report_html_first_draw_seconds "$(median report.prof.html_first_draw)" "<=" 1
target loop_folded_vs_perf_report "$loop_speedup" ">=" 1
target symbolize_vs_llvm_symbolizer "$sym_speedup" ">=" 2
target recorder_rss_mib "$rss_mib" "<=" 32
target ring_rss_growth "$(median ring.growth)" "<=" 1.10

{
	echo "{"
	echo '  "run": {'
	echo "    \"date\": $(jstr "$(date -u +%Y-%m-%dT%H:%M:%SZ)"),"
	echo "    \"elapsed_seconds\": $elapsed,"
	echo "    \"cpus\": $(nproc),"
	echo "    \"kernel\": $(jstr "$(uname -r)"),"
	echo "    \"perf\": $(jstr "$(perf version 2> /dev/null || echo none)"),"
	echo "    \"load_before\": $(jstr "$load_before"),"
	echo "    \"load_after\": $(jstr "$load_after"),"
	echo "    \"smoke\": $([ -n "${BENCH_SMOKE:-}" ] && echo true || echo false),"
	echo "    \"reps\": $REPS,"
	echo "    \"seconds\": $SECS,"
	echo "    \"rates\": [$(jlist $RATES)],"
	echo "    \"workloads\": [$(jlist $(printf '"%s"\n' $WORKLOADS))],"
	echo "    \"attach_workloads\": [$(jlist $(printf '"%s"\n' $ATTACH_WORKLOADS))],"
	echo "    \"report_hz\": $REPORT_HZ,"
	echo "    \"report_reps\": $REPORT_REPS,"
	echo "    \"capture_seconds\": $CAPTURE"
	echo '  },'
	echo '  "skipped": ['
	sep=""
	while IFS=$'\t' read -r tool why; do
		printf '%s    {"tool": %s, "reason": %s}' "$sep" "$(jstr "$tool")" "$(jstr "$why")"
		sep=$',\n'
	done < "$TMP/skipped"
	[ -z "$sep" ] || echo
	echo '  ],'
	echo '  "overhead": {'
	nest overhead_entry
	echo '  },'
	echo '  "bytes_per_sample": {'
	nest size_entry
	echo '  },'
	echo '  "lost_percent": {'
	nest lost_entry
	echo '  },'
	echo '  "many": {'
	for n in $MANY; do printf '    "%s": %s,\n' "$n" "$(many_entry "$n")"; done
	echo "    \"seconds\": $MANY_SECS"
	echo '  },'
	echo '  "attach": {'
	for w in $ATTACH_WORKLOADS; do printf '    "%s": %s,\n' "$w" "$(attach_entry "$w")"; done
	echo '    "hz": 997'
	echo '  },'
	echo '  "report": {'
	echo "    \"prof_mode\": $(jstr "${rmode#prof-}"),"
	echo "    \"prof_samples\": $(median report.prof.samples),"
	echo "    \"prof_unique_stacks\": $(median report.prof.unique_stacks),"
	echo "    \"prof_bytes_per_sample\": $(median report.prof.bps),"
	echo "    \"perf_samples\": $(median report.perf.samples),"
	for k in prof_folded prof_svg prof_html perf_folded; do
		echo "    \"$k\": {\"seconds\": $(jstat "report.$k.seconds"), \"rss_kib\": $(jstat "report.$k.rss_kib")},"
	done
	echo "    \"prof_html_bytes\": $(median report.prof.html_bytes),"
	echo "    \"prof_html_first_draw_seconds\": $(jstat report.prof.html_first_draw),"
	echo "    \"folded_speedup\": $speedup,"
	for c in small loop; do
		echo "    \"$c\": {"
		[ $c = small ] || echo "      \"traces\": $LOOP_TRACES,"
		echo "      \"prof_samples\": $(median $c.prof.samples),"
		echo "      \"perf_samples\": $(median $c.perf.samples),"
		[ $c = loop ] || echo "      \"prof_unique_stacks\": $(median $c.prof.unique_stacks),"
		for k in prof_folded $([ $c = small ] && echo prof_annotate) perf_folded; do
			echo "      \"$k\": {\"seconds\": $(jstat "$c.$k.seconds"), \"rss_kib\": $(jstat "$c.$k.rss_kib")},"
		done
		[ $c = loop ] || echo "      \"annotate_vs_folded\": $annotate_vs_folded,"
		echo "      \"speedup\": $([ $c = small ] && echo "$small_speedup" || echo "$loop_speedup")"
		echo "    },"
	done
	echo '    "symbolize": {'
	echo "      \"addresses\": $(median symbolize.addresses),"
	echo "      \"unresolved\": $(median symbolize.unresolved),"
	for k in prof llvm; do
		echo "      \"$k\": {\"seconds\": $(jstat "symbolize.$k.seconds"), \"rss_kib\": $(jstat "symbolize.$k.rss_kib")},"
	done
	echo "      \"speedup\": $sym_speedup"
	echo '    }'
	echo '  },'
	echo '  "recorder": {'
	for mode in cpu wall; do
		printf '    "%s": {"samples": %s, "us_per_sample": %s, "rss_kib": %s, "bytes_per_sample": %s}%s\n' "$mode" \
			"$(median "recorder.$mode.samples")" "$(median "recorder.$mode.us_per_sample")" \
			"$(median "recorder.$mode.rss_kib")" "$(median "recorder.$mode.bps")" "$([ $mode = cpu ] && echo ,)"
	done
	echo '  },'
	echo '  "max_rate": {'
	sep=""
	for w in cpu1 threads8; do
		printf '%s    "%s": {"hz": %s, "tried": [' "$sep" "$w" "$(median "maxrate.$w")"
		awk -v w="$w" '$1 == w { printf "%s{\"hz\": %s, \"samples\": %s, \"lost\": %s}", (n++ ? ", " : ""), $2, $3, $4 }' \
			"$TMP/maxrate"
		printf ']}'
		sep=$',\n'
	done
	printf '\n  },\n'
	echo '  "ring": {'
	echo "    \"seconds\": $RING_SECS,"
	echo '    "window_seconds": 30,'
	echo '    "hz": 997,'
	echo "    \"every_seconds\": $RING_EVERY,"
	echo "    \"from_seconds\": $RING_FROM,"
	printf '    "rss_kib": {"first": %s, "first_at": %s, "last": %s, "last_at": %s, "max": %s},\n' \
		"$(median ring.rss_first)" "$(median ring.rss_first_at)" "$(median ring.rss_last)" \
		"$(median ring.rss_last_at)" "$(median ring.rss_max)"
	echo "    \"growth\": $(median ring.growth),"
	echo "    \"kib_per_minute\": $(median ring.kib_per_minute),"
	echo "    \"samples_recorded\": $(median ring.samples_recorded),"
	echo "    \"window_samples\": $(median ring.window_samples),"
	echo "    \"window_duration_seconds\": $(median ring.window_seconds),"
	printf '    "readings": [%s]\n' "$(awk '{ printf "%s[%s, %s]", (NR > 1 ? ", " : ""), $1, $2 }' "$TMP/ring.rss")"
	echo '  },'
	echo '  "syscall": {'
	for k in own prof-cpu perf-dwarf; do
		echo "    \"$k\": $(jstat "syscall.$k")$([ $k = perf-dwarf ] || echo ,)"
	done
	echo '  },'
	echo '  "targets": {'
	awk '{ printf "%s    \"%s\": {\"value\": %s, \"want\": \"%s %s\", \"met\": %s}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5 }
		END { print "" }' "$TMP/targets"
	echo '  }'
	echo "}"
} > "$TMP/results.json"
mv "$TMP/results.json" "$OUT"

# The table: the same figures, for people, a part for each step that ran
# and one line for each that did not.
cell() { stats "$1" | awk '$1 == "null" { printf "%-22s", "-"; next }
	{ printf "%-22s", sprintf("%.3f [%.3f-%.3f]", $1, $2, $3) }'; }
num() { awk -v v="$1" -v f="${2:-%.1f}" 'BEGIN { if (v == "null") printf "%10s", "-"; else printf "%10s", sprintf(f, v) }'; }
# fig KEY: the median of KEY as it was put, or "-".
fig() { median "$1" | sed 's/^null$/-/'; }
# kib KEY: the median of KEY in whole KiB, or "-".
kib() { num "$(median "$1")" %d | tr -d ' '; }
# part STEP: the blank line before a step's part; false, with the line
# saying so, where the step did not run.
part() {
	echo
	step "$1" && return 0
	echo "$1: not run (BENCH_STEPS)"
	return 1
}
# times PREFIX NAME...: one line for each NAME, PREFIX.NAME's seconds and peak RSS.
print_stages() { # print_stages STEP: the stages of its last prof-report folded, if it ran one
	[ -s "$TMP/stages.$1" ] && printf '  prof_folded by stage, one run: %s\n' "$(cat "$TMP/stages.$1")"
	return 0
}
times() {
	local p=$1 k
	shift
	for k; do
		printf '  %-13s %s s, peak RSS %s KiB\n' "$k" "$(cell "$p.$k.seconds")" "$(kib "$p.$k.rss_kib")"
	done
}
{
	if part overhead; then
		echo "slowdown: time under the tool / bare time, median [min-max] of $REPS interleaved runs"
		printf '%-9s %6s %9s  %-22s%-22s%-22s%-22s%-22s\n' workload Hz "bare s" "prof cpu" "prof wall" "perf -g" \
			"perf dwarf" "perf -g switches"
		for w in $WORKLOADS; do
			for hz in $RATES; do
				printf '%-9s %6s %9.3f  ' "$w" "$hz" "$(median "bare.$w.$hz")"
				for tool in $TOOLS; do cell "slowdown.$w.$hz.$tool"; done
				echo
			done
		done
		echo
		echo "slowdown against perf -g in the same repetition, median: points more (prof - perf), and the ratio"
		printf '%-9s %6s  %-14s%-14s%-14s%-14s\n' workload Hz "cpu points" "wall points" "cpu ratio" "wall ratio"
		for w in $WORKLOADS; do
			for hz in $RATES; do
				printf '%-9s %6s  ' "$w" "$hz"
				for k in ptsfp.$w.$hz.prof-cpu ptsfp.$w.$hz.prof-wall vsfp.$w.$hz.prof-cpu vsfp.$w.$hz.prof-wall; do
					printf '%-14s' "$(num "$(median "$k")" %.3f | tr -d ' ')"
				done
				echo
			done
		done
		echo
		echo "--events: prof cpu writing its events for a host, against without in the same repetition, median points more"
		for w in $WORKLOADS; do
			for hz in $RATES; do
				printf '%-9s %6s  %s\n' "$w" "$hz" "$(num "$(median "evpts.$w.$hz")" %.3f | tr -d ' ')"
			done
		done
		echo
		echo "bytes per sample, median"
		printf '%-9s %6s %10s %10s %10s %10s %10s %10s\n' workload Hz "prof cpu" "prof wall" "perf -g" "perf dwarf" \
			"perf -g sw" "perf -g -z"
		for w in $WORKLOADS; do
			for hz in $RATES; do
				printf '%-9s %6s' "$w" "$hz"
				for tool in $TOOLS perf-fp-z; do printf ' %s' "$(num "$(median "bps.$w.$hz.$tool")")"; done
				echo
			done
		done
		echo
		echo "samples lost, percent of those due (lost / (written + lost)), median"
		printf '%-9s %6s %10s %10s %10s %10s %10s\n' workload Hz "prof cpu" "prof wall" "perf -g" "perf dwarf" "perf -g sw"
		for w in $WORKLOADS; do
			for hz in $RATES; do
				printf '%-9s %6s' "$w" "$hz"
				for tool in $TOOLS; do printf ' %s' "$(num "$(median "lost.$w.$hz.$tool")" %.3f)"; done
				echo
			done
		done
	fi
	if part many; then
		echo "many: -p on busy -j N (N threads computing and napping) for $MANY_SECS s; time(1) in a real-time shell,"
		echo "the tool at normal priority; first sample: seconds after the tool's start (prof -v)"
		printf '%-6s %-10s %9s %10s %10s %9s %9s %14s\n' threads tool seconds samples lost "lost %" seen "first sample s"
		for n in $MANY; do
			printf '%-6s %-10s %9s   (how long any command waits for a CPU there before it runs)\n' "$n" "/bin/true" \
				"$(fig "many.$n.true.seconds")"
			for tool in $MANY_TOOLS; do
				case $tool in perf-fp) name="perf -g" ;; *) name=${tool/-/ } ;; esac
				printf '%-6s %-10s %9s %10s %10s %9s %9s %14s\n' "$n" "$name" "$(fig "many.$n.$tool.seconds")" \
					"$(fig "many.$n.$tool.samples")" "$(fig "many.$n.$tool.lost")" \
					"$(fig "many.$n.$tool.lost_share")" \
					"$(fig "many.$n.$tool.threads_seen")/$(fig "many.$n.$tool.threads")" \
					"$(fig "many.$n.$tool.first_sample")"
			done
		done
	fi
	if part attach; then
		echo "attach: at 997 Hz, the tool attached with -p to the running workload once its threads are started, against launching it"
		echo "slowdown: time / bare time, median [min-max] of $REPS interleaved runs; attached / launched time"
		printf '%-9s %-10s %-22s%-22s%-22s%s\n' workload tool launched "attached (-p)" "attached/launched" \
			"samples launched/attached"
		for w in $ATTACH_WORKLOADS; do
			for tool in $ATTACH_TOOLS; do
				case $tool in perf-fp) name="perf -g" ;; *) name=${tool/-/ } ;; esac
				printf '%-9s %-10s ' "$w" "$name"
				for k in "slowdown.$w.$tool" "slowdown.$w.$tool-p" "vslaunch.$w.$tool"; do cell "attach.$k"; done
				echo "$(fig "attach.samples.$w.$tool")/$(fig "attach.samples.$w.$tool-p")"
			done
			printf '  attached, against perf -g attached in the same repetition, median: prof cpu %s points (ratio %s), prof wall %s points (ratio %s)\n' \
				$(for k in ptsfp.$w.prof-cpu vsfp.$w.prof-cpu ptsfp.$w.prof-wall vsfp.$w.prof-wall; do
					num "$(median "attach.$k")" %.3f | tr -d ' '; echo; done)
		done
	fi
	if part report; then
		printf 'report: prof %s samples (%s unique folded stacks, %s B/sample), perf %s samples; median [min-max] of %s\n' \
			"$(fig report.prof.samples)" "$(fig report.prof.unique_stacks)" "$(fig report.prof.bps)" \
			"$(fig report.perf.samples)" "$REPORT_REPS"
		times report prof_folded prof_svg prof_html perf_folded
		printf '  the html page: %s bytes, its first view drawn in %s s in headless Chromium\n' \
			"$(fig report.prof.html_bytes)" "$(fig report.prof.html_first_draw)"
		print_stages report
		printf '  folded is %sx faster than perf report\n' "$(num "$speedup" %.1f | tr -d ' ')"
	fi
	if part small; then
		printf 'small: the Rust fixture for %s s at %s Hz, prof %s samples (%s unique folded stacks), perf %s samples; median [min-max] of %s\n' \
			"$SMALL_SECS" "$SMALL_HZ" "$(fig small.prof.samples)" "$(fig small.prof.unique_stacks)" \
			"$(fig small.perf.samples)" "$SMALL_REPS"
		times small prof_folded prof_annotate perf_folded
		print_stages small
		printf '  folded is %sx the speed of perf report\n' "$(num "$small_speedup" %.2f | tr -d ' ')"
		printf '  annotate takes %sx the time of folded\n' "$(num "$annotate_vs_folded" %.2f | tr -d ' ')"
		printf 'loop: %s traces of %s s (median %s samples, perf %s) reported in a row; the whole loop, median [min-max] of %s\n' \
			"$LOOP_TRACES" "$LOOP_SECS" "$(fig loop.prof.samples)" "$(fig loop.perf.samples)" "$REPORT_REPS"
		times loop prof_folded perf_folded
		printf '  folded is %sx the speed of perf report\n' "$(num "$loop_speedup" %.2f | tr -d ' ')"
	fi
	if part symbolize; then
		printf 'symbolize: %s addresses of libc and the Rust fixture (%s unresolved); median [min-max] of %s\n' \
			"$(fig symbolize.addresses)" "$(fig symbolize.unresolved)" "$REPORT_REPS"
		for k in prof llvm; do
			printf '  %-12s %s s, peak RSS %s KiB\n' "$([ $k = prof ] && echo prof_folded || echo llvm-symbolizer)" \
				"$(cell "symbolize.$k.seconds")" "$(kib "symbolize.$k.rss_kib")"
		done
		printf '  prof-report is %sx the speed of llvm-symbolizer\n' "$(num "$sym_speedup" %.2f | tr -d ' ')"
	fi
	if part recorder; then
		echo "recorder attached to threads8 at 997 Hz for $CAPTURE s"
		for mode in cpu wall; do
			printf '  %-5s %s samples, %s us CPU/sample, peak RSS %s KiB, %s B/sample\n' "$mode" \
				"$(fig "recorder.$mode.samples")" "$(fig "recorder.$mode.us_per_sample")" \
				"$(fig "recorder.$mode.rss_kib")" "$(fig "recorder.$mode.bps")"
		done
	fi
	if part ring; then
		echo "ring: prof-record --mode wall -F 997 --ring 30 launching threads8 for $RING_SECS s, its RSS every $RING_EVERY s"
		printf '  RSS %s KiB at %s s, %s KiB at the end (%s s), %s KiB at most\n' "$(fig ring.rss_first)" \
			"$(fig ring.rss_first_at)" "$(fig ring.rss_last)" "$(fig ring.rss_last_at)" "$(fig ring.rss_max)"
		printf '  growth after %s s: %s (end over first), %s KiB a minute\n' "$RING_FROM" "$(fig ring.growth)" \
			"$(fig ring.kib_per_minute)"
		printf '  the window written at the end: %s samples over %s s, of %s recorded\n' "$(fig ring.window_samples)" \
			"$(fig ring.window_seconds)" "$(fig ring.samples_recorded)"
		echo "  the readings, seconds: KiB"
		awk '{ printf "%s%s: %s", NR % 8 == 1 ? (NR > 1 ? "\n" : "") "   " : ",", $1, $2 } END { if (NR) print "" }' \
			"$TMP/ring.rss" | sed 's/,/, /g; s/^   /    /'
	fi
	if part syscall; then
		echo "syscall: read_chunk's share of the CPU time (it calls read(2)), median [min-max] of $REPS"
		printf '  measured by the workload %s prof cpu %s perf dwarf %s\n' "$(cell syscall.own)" "$(cell syscall.prof-cpu)" \
			"$(cell syscall.perf-dwarf)"
	fi
	if part maxrate; then
		echo "max rate: the highest rate at which cpu mode lost < 0.1% of samples, in $SECS s runs"
		for w in cpu1 threads8; do
			printf '  %-9s %s Hz;' "$w" "$(fig "maxrate.$w")"
			awk -v w="$w" '$1 == w { printf " %s Hz: %s lost of %s;", $2, $4, $3 + $4 }' "$TMP/maxrate"
			echo
		done
	fi
	echo
	echo "targets"
	awk '{ printf "  %-32s %-10s %-6s %s\n", $1, $2 == "null" ? "-" : $2, $3 " " $4, $5 == "null" ? "not measured" : $5 == "true" ? "met" : "MISSED" }' \
		"$TMP/targets"
	if [ -s "$TMP/skipped" ]; then
		echo
		echo "skipped"
		sed 's/^/  /; s/\t/: /' "$TMP/skipped"
	fi
	echo
	echo "load average before $load_before, after $load_after; $elapsed s"
}
say "wrote $OUT"
