#!/usr/bin/env bash
# End-to-end: what format 1.2 adds, on traces made with synth_trace. A
# sample taken in the kernel shows a [kernel] leaf above its user stack in
# folded, top, svg and threads --split, and --focus and --exclude match it;
# preempted samples are a state of their own in threads (its column and
# the timeline) and for --state; info says what took the samples and
# whether kernel time was sampled, and if not why; a trace older than 1.2
# says unknown. (test_export.sh reads the same kernel frames back from the
# pprof and speedscope exports.)
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
if [ ! -x "$SYNTH" ]; then
	fail "states-synth" "$SYNTH was not built"
	exit 0
fi
app=0x401000 read=0x401100 work=0x401200
T=$TMP/k.trace
"$SYNTH" -o "$T" --os linux --arch x86_64 --mode wall --sampler perf --kernel sampled --paranoid 1 \
	--command /nonexistent/app \
	--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
	--thread TID=1,NAME=main --thread TID=2,NAME=worker \
	--sample TID=1,STACK=$read:$app --count 3 \
	--sample TID=1,KERNEL=1,STACK=$read:$app --count 2 \
	--sample TID=2,KERNEL=1 \
	--sample TID=2,STATE=preempted,STACK=$work:$app --count 4 \
	--sample TID=2,STATE=sleeping,STACK=$work:$app --count 2

# same NAME WANT FILE: FILE holds exactly WANT.
same() {
	if [ "$(cat "$3")" = "$2" ]; then ok "$1"; else fail "$1" "$(tr '\n' '|' < "$3")"; fi
}

"$REPORT" folded "$T" > "$TMP/f" 2>&1
same states-kernel-leaf-folded "app;[kernel] 1
app;app+0x1000;app+0x1100 3
app;app+0x1000;app+0x1100;[kernel] 2
app;app+0x1000;app+0x1200 6" "$TMP/f"
"$REPORT" folded --focus '^\[kernel\]$' "$T" > "$TMP/f" 2>&1
same states-kernel-focus "app;[kernel] 1
app;app+0x1000;app+0x1100;[kernel] 2" "$TMP/f"
"$REPORT" folded --exclude 'kernel' "$T" > "$TMP/f" 2>&1
same states-kernel-exclude "app;app+0x1000;app+0x1100 3
app;app+0x1000;app+0x1200 6" "$TMP/f"
"$REPORT" top "$T" | awk '$5 == "[kernel]" { print $3, $4 }' > "$TMP/f"
same states-kernel-top-self-3 "3 3" "$TMP/f"
"$REPORT" top --group image "$T" | awk '$5 == "[kernel]" { print $3, $4 }' > "$TMP/f"
same states-kernel-image-group "3 3" "$TMP/f"
"$REPORT" svg "$T" > "$TMP/k.svg"
grep -c '<title>\[kernel\] (' "$TMP/k.svg" > "$TMP/f"
same states-kernel-svg-two-boxes "2" "$TMP/f"

# States: preempted is neither running nor idle.
"$REPORT" folded --state preempted "$T" > "$TMP/f" 2>&1
same states-preempted-filter "app;app+0x1000;app+0x1200 4" "$TMP/f"
"$REPORT" folded --state idle "$T" > "$TMP/f" 2>&1
same states-idle-without-preempted "app;app+0x1000;app+0x1200 2" "$TMP/f"
"$REPORT" threads "$T" > "$TMP/f" 2>&1
same states-threads-preempted-column "     TID  NAME     SAMPLES  RUNNING  WAITING  PREEMPTED      FIRST       LAST      START        END
       2  worker         7    14.3%    28.6%      57.1%      0.006      0.012      0.000          -
       1  main           5   100.0%     0.0%       0.0%      0.001      0.005      0.000          -
2 threads, 12 samples" "$TMP/f"
if "$REPORT" threads --split "$TMP/split" "$T" > /dev/null 2> "$TMP/err"; then
	grep -q '<title>preempted, ' "$TMP/split/index.html" && grep -q '>preempted</text>' "$TMP/split/index.html" \
		&& ok "states-timeline-preempted" || fail "states-timeline-preempted" "$(grep -c rect "$TMP/split/index.html") rects, none preempted"
	same states-split-kernel-leaf "app;app+0x1000;app+0x1100 3
app;app+0x1000;app+0x1100;[kernel] 2" "$TMP/split/1-main.folded"
else
	fail "states-timeline-preempted" "threads --split: $(head -3 "$TMP/err")"
fi

# info: the sampler and kernel time, and why not.
# info_says NAME LINES SYNTH-OPTIONS...: info of a trace made with the
# options has LINES as its sampler and kernel time lines.
info_says() {
	local name=$1 want=$2
	shift 2
	"$SYNTH" -o "$TMP/i.trace" --thread TID=1 --sample TID=1 "$@"
	"$REPORT" info "$TMP/i.trace" | grep -E '^(sampler|kernel time):' > "$TMP/f"
	same "$name" "$want" "$TMP/f"
}
info_says states-info-sampled "sampler:    perf
kernel time: sampled" --sampler perf --kernel sampled --paranoid 1
info_says states-info-refused-paranoid "sampler:    perf
kernel time: not sampled: kernel.perf_event_paranoid is 2 (needs <= 1, or root or CAP_PERFMON)" \
	--sampler perf --kernel refused --paranoid 2
info_says states-info-refused "sampler:    perf
kernel time: not sampled: refused by the kernel (needs kernel.perf_event_paranoid <= 1, or root or CAP_PERFMON)" \
	--sampler perf --kernel refused
info_says states-info-tick "sampler:    tick
kernel time: not sampled by this sampler" --sampler tick --kernel not-sampled
info_says states-info-unknown "sampler:    unknown
kernel time: unknown"
"$REPORT" info "$T" | grep '^in the kernel:' > "$TMP/f"
same states-info-kernel-samples "in the kernel:    3 (shown with a [kernel] leaf frame)" "$TMP/f"
# A trace written before 1.2 (the committed golden one is 1.0) says unknown.
"$REPORT" info "$TOP/testdata/golden/tables.trace" | grep -E '^(format|sampler|kernel time):' > "$TMP/f"
same states-info-older-trace "format:     1.0
sampler:    unknown
kernel time: unknown" "$TMP/f"
