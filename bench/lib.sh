# bench/lib.sh: what bench/bench.sh and bench/symbolize.sh share, sourced
# by both: timing one command, with its peak RSS.
#
# timed OUT COMMAND...: runs COMMAND with its output in OUT and its errors
# in OUT.err, and prints "SECONDS PEAK_RSS_KIB". The time is wall-clock
# with nanosecond resolution (GNU time's own is 10 ms, too coarse for a
# report that takes 30 ms); the RSS is GNU time's, the peak of the
# command's process. Returns non-zero, with the end of the errors on
# stderr, if the command fails.
timed() {
	local out=$1 t0 t1 rss
	shift
	t0=$(date +%s%N)
	if ! /usr/bin/time -f %M -o "$out.rss" "$@" > "$out" 2> "$out.err"; then
		echo "$*: failed: $(tail -3 "$out.err")" >&2
		return 1
	fi
	t1=$(date +%s%N)
	rss=$(tail -1 "$out.rss")
	awk -v a="$t0" -v b="$t1" -v r="$rss" 'BEGIN { printf "%.6f %d\n", (b - a) / 1e9, r }'
}
